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
	"transitbench/internal/termtext"
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

// scopeFlags are the flags of the commands that read runs (runs, star, failing, report): whose runs they show.
type scopeFlags struct {
	Workspace     string // --workspace: the workspace ("": the one around the working directory, else the default)
	AllWorkspaces bool   // --all-workspaces: every run of the data directory
}

// add binds the scope flags to cmd.
func (f *scopeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Workspace, "workspace", "", "show this workspace's runs (default: the one around the working directory, else the default workspace)")
	cmd.Flags().BoolVar(&f.AllWorkspaces, "all-workspaces", false, "show the runs of every workspace of the data directory")
}

// runScope is whose runs a command shows: one workspace's (its path and its solution's kind) or every run.
type runScope struct {
	All          bool
	Workspace    string // the workspace's path ("" with All)
	SolutionKind string // its solution's kind (workspace.SolutionKind)
	none         bool   // All because there is no workspace here nor in the data directory
}

// scope resolves the flags: --all-workspaces, else --workspace DIR, else the workspace around the working
// directory, else the default workspace when it exists. It creates nothing. Where there is no workspace at all
// (a data directory of baselines, or whose workspaces were moved), every run is shown, and the header says why.
func (f scopeFlags) scope() (runScope, error) {
	if f.AllWorkspaces {
		if f.Workspace != "" {
			return runScope{}, usageErrorf("--workspace and --all-workspaces: give one (the runs of one workspace, or of all)")
		}
		return runScope{All: true}, nil
	}
	ws, err := f.find()
	if err != nil {
		return runScope{}, err
	}
	if ws == nil {
		return runScope{All: true, none: true}, nil
	}
	return runScope{Workspace: ws.Root, SolutionKind: ws.SolutionKind()}, nil
}

// find opens the workspace the flags name, without creating one; nil when no flag names one and there is none
// here nor in the data directory.
func (f scopeFlags) find() (*workspace.Workspace, error) {
	if f.Workspace != "" {
		ws, err := workspace.Open(f.Workspace)
		if errors.Is(err, workspace.ErrNotWorkspace) {
			return nil, withCode(codeNotFound, fmt.Errorf("--workspace %s: %w", f.Workspace, err))
		}
		return ws, err
	}
	if ws, err := workspace.Open("."); err == nil {
		return ws, nil
	} else if !errors.Is(err, workspace.ErrNotWorkspace) {
		return nil, err
	}
	home, err := data.Home()
	if err != nil {
		return nil, err
	}
	ws, err := workspace.Open(defaultWorkspaceDir(home))
	if errors.Is(err, workspace.ErrNotWorkspace) {
		return nil, nil
	}
	return ws, err
}

// filter is the run filter of the scope: the workspace's runs, or all.
func (s runScope) filter() string {
	if s.All {
		return ""
	}
	return s.Workspace
}

// header is the line a table or report of runs starts with: the workspace's path and solution kind, or "every
// workspace".
func (s runScope) header() string {
	if s.none {
		return "no workspace here nor in the data directory: runs of every workspace (each row names its own; " +
			"--workspace DIR shows one workspace's)"
	}
	if s.All {
		return "runs of every workspace (each run's workspace and solution kind in its row)"
	}
	return fmt.Sprintf("workspace %s (%s solution); --all-workspaces shows every workspace's runs",
		termtext.Line(s.Workspace), s.SolutionKind)
}

// title is what the results site's pages say of whose runs they show.
func (s runScope) title() string {
	if s.none {
		return "Runs of every workspace (there is no workspace here nor in the data directory)"
	}
	if s.All {
		return "Runs of every workspace of the data directory"
	}
	return fmt.Sprintf("Runs of the workspace %s (%s solution)", s.Workspace, s.SolutionKind)
}

// allows reports whether run r is one the scope shows, and else an error saying whose it is (code refused: the
// run is shown with --all-workspaces).
func (s runScope) allows(r store.Run) error {
	if s.All || r.Workspace == s.Workspace {
		return nil
	}
	owner := "no workspace (a baseline)"
	if r.Workspace != "" {
		owner = "the workspace " + termtext.Line(r.Workspace)
	}
	return withCode(codeRefused, fmt.Errorf("run %d belongs to %s, not to %s: pass --all-workspaces to see it",
		r.ID, owner, termtext.Line(s.Workspace)))
}
