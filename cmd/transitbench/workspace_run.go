package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/sandbox"
	"transitbench/workspace"
)

// What dev, grade, mini run, runs and star share: finding the workspace, the run flags, a run's progress and
// cancellation, and the results store.

// defaultWorkspaceDir is the workspace used when none is given and the working directory is not in one.
func defaultWorkspaceDir(home string) string { return filepath.Join(home, "workspace") }

// openWorkspace opens --workspace DIR, else the workspace around the working directory, else the default
// workspace in the data directory (created on first use, so a fresh install works with no set-up). What it
// chose is said on errw.
func openWorkspace(errw io.Writer, dir, home string) (*workspace.Workspace, error) {
	if dir != "" {
		return workspace.Open(dir)
	}
	if ws, err := workspace.Open("."); err == nil {
		return ws, nil
	} else if !errors.Is(err, workspace.ErrNotWorkspace) {
		return nil, err
	}
	def := defaultWorkspaceDir(home)
	if ws, err := workspace.Open(def); err == nil {
		fmt.Fprintf(errw, "using the default workspace %s\n", def)
		return ws, nil
	}
	fmt.Fprintf(errw, "no workspace here: creating the default workspace %s\n", def)
	build := newProgressPrinter(errw, "building")
	return workspace.Init(def, workspace.InitOptions{Home: home, SetProgress: build.update})
}

// runFlags are the options shared by dev, grade and mini run.
type runFlags struct {
	Workspace     string  // --workspace: the workspace directory ("": found as openWorkspace says)
	Workers       int     // --workers: stars run at once (0: one per CPU)
	AllowDegraded bool    // --allow-degraded: run hidden sets under degraded isolation
	Timeout       float64 // --timeout: wall-clock seconds per star
	backendFlags
	// Compositions, when set, gives the sets other compositions than SPEC A2's (small sets in tests); the
	// command line leaves it nil.
	Compositions map[string]sets.Composition
}

// add binds the run flags to cmd.
func (f *runFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Workspace, "workspace", "", "the workspace (default: the one around the working directory, else the default workspace)")
	cmd.Flags().IntVar(&f.Workers, "workers", 0, "stars run at once (default: the number of CPUs)")
	cmd.Flags().BoolVar(&f.AllowDegraded, "allow-degraded", false, "run hidden sets even when the sandbox cannot isolate fully")
	cmd.Flags().Float64Var(&f.Timeout, "timeout", 60, "wall-clock seconds per star")
	f.backendFlags.add(cmd)
}

func (f *runFlags) options(home string) (workspace.RunOptions, error) {
	if f.Workers < 0 {
		return workspace.RunOptions{}, usageErrorf("--workers %d: give a number of stars to run at once, or 0 for one per CPU", f.Workers)
	}
	if !(f.Timeout > 0) {
		return workspace.RunOptions{}, usageErrorf("--timeout must be a positive number of seconds")
	}
	return workspace.RunOptions{Home: home, Workers: f.Workers, AllowDegraded: f.AllowDegraded,
		Limits: sandbox.Limits{WallTime: secondsDuration(f.Timeout)}, Compositions: f.Compositions}, nil
}

// runStart is what dev, grade and mini run share once their flags are checked: the workspace, the run options
// with set-build progress, a context cancelled by Ctrl-C, and the channel that shows the run's progress.
type runStart struct {
	ws     *workspace.Workspace
	opt    workspace.RunOptions
	ctx    context.Context
	stop   context.CancelFunc
	events chan workspace.Event
	wait   func() // closes events and waits for the display; call once the run has returned
}

// start resolves the data directory and the workspace and sets up a run's options, cancellation and progress
// (on errw).
func (f *runFlags) start(ctx context.Context, errw io.Writer) (*runStart, error) {
	home, err := data.Home()
	if err != nil {
		return nil, err
	}
	opt, err := f.options(home)
	if err != nil {
		return nil, err
	}
	if opt.Backend, err = f.backend(errw); err != nil {
		return nil, err
	}
	ws, err := openWorkspace(errw, f.Workspace, home)
	if err != nil {
		return nil, err
	}
	opt.SetProgress = newProgressPrinter(errw, "building").update
	ctx, stop := interruptible(ctx)
	events, wait := runEvents(errw)
	return &runStart{ws: ws, opt: opt, ctx: ctx, stop: stop, events: events, wait: wait}, nil
}

// openResults opens the results store of the data directory.
func openResults() (*store.Store, error) {
	home, err := data.Home()
	if err != nil {
		return nil, err
	}
	return workspace.OpenStore(home)
}

// listResults opens the results database, returns what list reads from it (empty, never nil, so that --json
// prints [] for nothing) and closes it.
func listResults[T any](list func(*store.Store) ([]T, error)) ([]T, error) {
	st, err := openResults()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows, err := list(st)
	if err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []T{}
	}
	return rows, nil
}

// interruptible returns a context derived from ctx that Ctrl-C or SIGTERM cancels.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// runEvents shows a run's progress on w and returns the channel to pass to the workspace and a function that
// waits for the display to finish.
func runEvents(w io.Writer) (chan workspace.Event, func()) {
	events := make(chan workspace.Event)
	done := make(chan struct{})
	go func() {
		defer close(done)
		printers := map[string]*progressPrinter{}
		for ev := range events {
			p := printers[ev.Set]
			if p == nil {
				p = newProgressPrinter(w, "running on")
				printers[ev.Set] = p
			}
			p.update(sets.Progress{Set: ev.Set, Done: ev.Done, Total: ev.Total})
		}
	}()
	return events, func() { close(events); <-done }
}

// runKinds are the kinds of run the results store records.
var runKinds = []string{workspace.KindDev, workspace.KindGrade, workspace.KindMini, store.KindBaseline}

// checkSetFlag makes an unknown --set a usage error naming the sets of the data directory.
func checkSetFlag(name string) error {
	if name == "" {
		return nil
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	return checkSetName(home, "--set", name)
}

// secondsDuration converts seconds to a time.Duration.
func secondsDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
