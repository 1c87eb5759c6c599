package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/sandbox"
	"transitbench/workspace"
)

func init() {
	register(newInitCmd)
	register(newDevCmd)
	register(newGradeCmd)
	register(newRunsCmd)
	register(newStarCmd)
	register(newMiniCmd)
}

func newInitCmd() *cobra.Command {
	var preset, lang, task string
	cmd := &cobra.Command{
		Use:   "init DIR",
		Short: "Create a contestant's workspace",
		Long: `Create a contestant's workspace in DIR (SPEC A8): TASK.md (the task, the rules, the output format, the
scoring and the budget), data/dev/ (the 196 labelled dev stars and answers.json), solution/ (the starter: a BLS
search in Go, or in Python with numpy) and the state directory .transitbench/. The dev set is built first if
needed. Hidden sets never enter a workspace.

--preset mini makes a mini-task workspace (--task, default mini-dev-00000000): its data/dev holds the task's 12
labelled stars; 'transitbench mini run' scores the task's hidden stars.

--json prints {"workspace", "preset", "lang", "task", "dev_stars"}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, ok := workspace.Presets[preset]; !ok {
				return usageErrorf("--preset %q: use survey or mini", preset)
			}
			if lang != "go" && lang != "python" {
				return usageErrorf("--lang %q: use go or python", lang)
			}
			if task != "" && preset != "mini" {
				return usageErrorf("--task goes with --preset mini")
			}
			home, err := data.Home()
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			build := newProgressPrinter(stderr, "building")
			write := newProgressPrinter(stderr, "writing")
			ws, err := workspace.Init(args[0], workspace.InitOptions{Home: home, Preset: preset, Lang: lang, Task: task,
				SetProgress: build.update,
				StarProgress: func(done, total int) {
					write.update(sets.Progress{Set: "data/dev", Done: done, Total: total})
				}})
			if err != nil {
				if errors.Is(err, workspace.ErrExists) {
					return withCode(codeUsage, err)
				}
				return err
			}
			n := len(ws.Config.DevStars)
			if n == 0 {
				entries, _ := os.ReadDir(ws.DevDir())
				n = len(entries) - 1 // answers.json
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"workspace": ws.Root, "preset": ws.Config.Preset,
					"lang": ws.Config.Lang, "task": ws.Config.Task, "dev_stars": n})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "workspace %s: %d labelled stars in data/dev, the %s starter in solution/; read TASK.md, then run 'transitbench dev' there\n",
				ws.Root, n, ws.Config.Lang)
			return nil
		},
	}
	cmd.Flags().StringVar(&preset, "preset", "survey", "budget preset: survey or mini")
	cmd.Flags().StringVar(&lang, "lang", "go", "the starter's language: go or python")
	cmd.Flags().StringVar(&task, "task", "", "the mini task (with --preset mini)")
	return cmd
}

// defaultWorkspaceDir is the workspace used when none is given and the working directory is not in one.
func defaultWorkspaceDir(home string) string { return filepath.Join(home, "workspace") }

// openWorkspace opens --workspace DIR, else the workspace around the working directory, else the default
// workspace in the data directory (created on first use, so a fresh install works with no set-up).
func openWorkspace(cmd *cobra.Command, dir, home string) (*workspace.Workspace, error) {
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
		fmt.Fprintf(cmd.ErrOrStderr(), "using the default workspace %s\n", def)
		return ws, nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "no workspace here: creating the default workspace %s\n", def)
	build := newProgressPrinter(cmd.ErrOrStderr(), "building")
	return workspace.Init(def, workspace.InitOptions{Home: home, SetProgress: build.update})
}

// runFlags are the flags shared by dev, grade and mini run.
type runFlags struct {
	workspace     string
	workers       int
	allowDegraded bool
	timeout       float64
}

func (f *runFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.workspace, "workspace", "", "the workspace (default: the one around the working directory, else the default workspace)")
	cmd.Flags().IntVar(&f.workers, "workers", 0, "stars run at once (default: the number of CPUs)")
	cmd.Flags().BoolVar(&f.allowDegraded, "allow-degraded", false, "run hidden sets even when the sandbox cannot isolate fully")
	cmd.Flags().Float64Var(&f.timeout, "timeout", 60, "wall-clock seconds per star")
}

func (f *runFlags) options(home string) (workspace.RunOptions, error) {
	if f.workers < 0 {
		return workspace.RunOptions{}, usageErrorf("--workers %d: give a number of stars to run at once, or 0 for one per CPU", f.workers)
	}
	if !(f.timeout > 0) {
		return workspace.RunOptions{}, usageErrorf("--timeout must be a positive number of seconds")
	}
	return workspace.RunOptions{Home: home, Workers: f.workers, AllowDegraded: f.allowDegraded,
		Limits: sandbox.Limits{WallTime: secondsDuration(f.timeout)}}, nil
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

// start resolves the data directory and the workspace and sets up a run's options, cancellation and progress.
func (f *runFlags) start(cmd *cobra.Command) (*runStart, error) {
	home, err := data.Home()
	if err != nil {
		return nil, err
	}
	opt, err := f.options(home)
	if err != nil {
		return nil, err
	}
	ws, err := openWorkspace(cmd, f.workspace, home)
	if err != nil {
		return nil, err
	}
	opt.SetProgress = newProgressPrinter(cmd.ErrOrStderr(), "building").update
	ctx, stop := interruptible(cmd)
	events, wait := runEvents(cmd.ErrOrStderr())
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

// interruptible returns a context cancelled by Ctrl-C or SIGTERM.
func interruptible(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
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

func newDevCmd() *cobra.Command {
	var rf runFlags
	var limit int
	var stars string
	var fresh bool
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the current solution on the labelled dev stars and score it",
		Long: `Run the workspace's current solution on its labelled dev stars exactly as grading would (each star in the
sandbox: 60 s, one CPU, no network), then print S, C, F, the EB share and the breakdowns. Per-star outcomes are
stored for 'transitbench star', 'transitbench runs' and the terminal UI.

An interrupted run (Ctrl-C) keeps its finished stars; running dev again with the same solution resumes it
(--fresh starts over).

--json prints {"run_id", "set", "hidden", "stars_run", "resumed", "S", "C", "F", "eb_share", "credit", "false",
"planets", "scored_stars", "counted_ebs", "ebs_with_rows", "by_population", "by_mes_bin", "by_category",
"ignored_stars", "ignored_rows", "failures": {"timeout", "crash", "output_limit"}, "exits": {reason: stars},
"slowest_seconds": [longest runtimes, no star ids], "score_withheld" (a partly run hidden set), "grading" (grade
runs), "isolation", "seconds", "solution_hash", "complete"}. Exit status 1 when the run was interrupted or failed,
or when another process is resuming the same run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usageErrorf("--limit %d: give a number of stars, or 0 for all", limit)
			}
			r, err := rf.start(cmd)
			if err != nil {
				return err
			}
			defer r.stop()
			r.opt.Limit, r.opt.Fresh = limit, fresh
			if stars != "" {
				r.opt.Stars = strings.Split(stars, ",")
			}
			rep, err := r.ws.Dev(r.ctx, r.opt, r.events)
			r.wait()
			if err != nil && rep != nil {
				if errors.Is(err, context.Canceled) {
					err = fmt.Errorf("interrupted: %d stars kept in run %d; run 'transitbench dev' again to resume: %w",
						rep.StarsRun, rep.RunID, err)
				} else {
					err = fmt.Errorf("%w (%d finished stars kept in run %d; run 'transitbench dev' again to resume)",
						err, rep.StarsRun, rep.RunID)
				}
			}
			if wantJSON(cmd) {
				if err != nil {
					return failWithResult(err, rep)
				}
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			if rep != nil {
				printReport(cmd.OutOrStdout(), rep)
			}
			return err
		},
	}
	rf.add(cmd)
	cmd.Flags().IntVar(&limit, "limit", 0, "run only the first N stars")
	cmd.Flags().StringVar(&stars, "stars", "", "run only these stars (comma-separated ids)")
	cmd.Flags().BoolVar(&fresh, "fresh", false, "start a new run instead of resuming an interrupted one")
	return cmd
}

func newGradeCmd() *cobra.Command {
	var rf runFlags
	var again bool
	cmd := &cobra.Command{
		Use:   "grade",
		Short: "Freeze the solution and grade it once on the hidden sets",
		Long: `Freeze solution/ (its content hash; the frozen copy is kept in the data directory), run it once on the hidden
set A (the score), once on B (the replication) and on the dev stars, and record the three results. A frozen
solution is graded once: grading the same content again needs --again and is recorded as a re-run. Hidden sets
are refused under degraded sandbox isolation unless --allow-degraded.

Hidden sets stay hidden: A and B are reported as aggregates only (S, C, F, EB share, the breakdowns by
population, MES bin and category, counts by exit reason, the slowest runtimes without star ids), with no score
until the set is complete; no star of A or B is ever shown, and the solution's output on them is discarded once
matched. Every grading of the workspace is numbered ("grading #2 of this workspace"), re-gradings included.
An interrupted grading (Ctrl-C) keeps its finished stars: running grade again with the same solution resumes it
under its number. One process grades a workspace at a time; another one exits with status 1.

--json prints {"frozen", "again", "grading", "resumed", "A": {…as dev --json, with "hidden": true}, "B": {…},
"dev": {…}}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := rf.start(cmd)
			if err != nil {
				return err
			}
			defer r.stop()
			r.opt.Again = again
			rep, err := r.ws.Grade(r.ctx, r.opt, r.events)
			r.wait()
			if errors.Is(err, context.Canceled) && rep != nil {
				err = fmt.Errorf("interrupted: grading #%d keeps its finished stars; run 'transitbench grade' again to resume it: %w", rep.Grading, err)
			}
			hasResult := rep != nil && (err == nil || rep.A != nil)
			if wantJSON(cmd) {
				if err != nil {
					if hasResult {
						return failWithResult(err, rep)
					}
					return err
				}
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			if hasResult {
				if jerr := printGradeReport(cmd.OutOrStdout(), rep, false); jerr != nil {
					return jerr
				}
			}
			return err
		},
	}
	rf.add(cmd)
	cmd.Flags().BoolVar(&again, "again", false, "grade a solution that was graded before (recorded as a re-run)")
	return cmd
}

// printGradeReport prints a grading's result: the JSON of --json, else the grading's number and a table per set.
func printGradeReport(w io.Writer, rep *workspace.GradeReport, asJSON bool) error {
	if asJSON {
		return writeJSON(w, rep)
	}
	again := map[bool]string{true: ", a re-grade"}[rep.Again]
	resumed := map[bool]string{true: ", resumed"}[rep.Resumed]
	fmt.Fprintf(w, "frozen %s: grading #%d of this workspace%s%s\n", rep.Frozen, rep.Grading, again, resumed)
	for _, r := range []*workspace.Report{rep.A, rep.B, rep.Dev} {
		if r != nil {
			printReport(w, r)
		}
	}
	return nil
}

// printReport prints a run's score as a short table; a hidden set's shows aggregates only, and no score until
// the run is complete.
func printReport(w io.Writer, r *workspace.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	state := ""
	if !r.Complete {
		state = "  (incomplete)"
	}
	fmt.Fprintf(tw, "set %s\trun %d\t%d stars\t%.1f s\t%s%s\n", r.Set, r.RunID, r.StarsRun, r.Seconds, r.Isolation, state)
	if r.Resumed > 0 {
		fmt.Fprintf(tw, "  resumed\t%d of %d stars kept from the interrupted run\n", r.Resumed, r.StarsRun)
	}
	if r.ScoreWithheld {
		fmt.Fprintf(tw, "  score\twithheld until the hidden set is complete\n")
	} else {
		printScore(tw, r)
	}
	printRuntime(tw, r)
	tw.Flush()
}

// printScore prints a run's S, C, F, EB share and breakdowns.
func printScore(tw io.Writer, r *workspace.Report) {
	fmt.Fprintf(tw, "  S\t%.3f\t(%.1f points)\n", r.S, 100*r.S)
	fmt.Fprintf(tw, "  C\t%.3f\t(credit %.1f of %d planets)\n", r.C, r.Credit, r.Planets)
	fmt.Fprintf(tw, "  F\t%.1f\t(%d false candidates on %d scored stars)\n", r.F, r.False, r.ScoredStars)
	fmt.Fprintf(tw, "  EB share\t%.3f\t(%d of %d counted EBs flagged)\n", r.EBShare, r.EBsWithRows, r.CountedEBs)
	fmt.Fprintf(tw, "  random\tS %.3f\tC %.3f\tF %.1f\n", r.ByPopulation.Random.S, r.ByPopulation.Random.C, r.ByPopulation.Random.F)
	fmt.Fprintf(tw, "  false-alarm\tS %.3f\tC %.3f\tF %.1f\n", r.ByPopulation.FalseAlarm.S, r.ByPopulation.FalseAlarm.C, r.ByPopulation.FalseAlarm.F)
	b := r.ByMESBin
	fmt.Fprintf(tw, "  C by MES\t4–7.1 %.2f (%d)\t7.1–10 %.2f (%d)\t10–20 %.2f (%d)\n", b.Low.C, b.Low.Planets, b.Mid.C, b.Mid.Planets, b.High.C, b.High.Planets)
	c := r.ByCategory
	fmt.Fprintf(tw, "  categories\tinjected %d\tuntouched %d\teb %d\t(stars; false candidates %d / %d / %d)\n",
		c.Injected.Stars, c.Untouched.Stars, c.EB.Stars, c.Injected.False, c.Untouched.False, c.EB.False)
}

// printRuntime prints how a run's stars ended and its slowest runtimes (never which stars they were).
func printRuntime(w io.Writer, r *workspace.Report) {
	if f := r.Failures; f != (workspace.Failures{}) {
		fmt.Fprintf(w, "  failures\ttimeout %d\tcrash %d\toutput limit %d\n", f.Timeout, f.Crash, f.OutputLimit)
	}
	if len(r.Exits) > 0 {
		reasons := make([]string, 0, len(r.Exits))
		for k := range r.Exits {
			reasons = append(reasons, k)
		}
		slices.Sort(reasons)
		var parts []string
		for _, k := range reasons {
			parts = append(parts, fmt.Sprintf("%s %d", k, r.Exits[k]))
		}
		fmt.Fprintf(w, "  exits\t%s\n", strings.Join(parts, "\t"))
	}
	if len(r.Slowest) > 0 {
		var parts []string
		for _, s := range r.Slowest {
			parts = append(parts, fmt.Sprintf("%.1f s", s))
		}
		fmt.Fprintf(w, "  slowest\t%s\n", strings.Join(parts, "\t"))
	}
}

func newRunsCmd() *cobra.Command {
	var set, kind string
	var limit int
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List past runs",
		Long: `List past runs (dev, grade, mini) from the results store in the data directory, newest first.

A grade run shows the number of its grading among its workspace's gradings (#1 for the first, counting every
grading of any solution, re-gradings included). A run on a hidden set (A, B) holds aggregates only.

--json prints a list of {"id", "kind", "set", "label" (the workspace), "solution_hash", "started", "finished",
"status", "isolation", "stars", "summary", "flags", "hidden", "grading"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usageErrorf("--limit %d: give a number of runs, or 0 for all", limit)
			}
			if kind != "" && !slices.Contains(runKinds, kind) {
				return usageErrorf("--kind %q: use one of %s", kind, strings.Join(runKinds, ", "))
			}
			if err := checkSetFlag(set); err != nil {
				return err
			}
			st, err := openResults()
			if err != nil {
				return err
			}
			defer st.Close()
			runs, err := st.Runs(cmd.Context(), store.RunFilter{Set: set, Kind: kind, Limit: limit})
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				if runs == nil {
					runs = []store.Run{}
				}
				return writeJSON(cmd.OutOrStdout(), runs)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tKIND\tGRADING\tSET\tSTARS\tSTATUS\tSTARTED\tSOLUTION\tWORKSPACE")
			for _, r := range runs {
				grading := "–"
				if r.Grading > 0 {
					grading = fmt.Sprintf("#%d", r.Grading)
					if r.HasFlag(store.FlagAgain) {
						grading += " again"
					}
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%.12s\t%s\n", r.ID, r.Kind, grading, r.Set, r.Stars, r.Status,
					r.Started.Local().Format("2006-01-02 15:04"), r.SolutionHash, r.Label)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&set, "set", "", "only runs on this set")
	cmd.Flags().StringVar(&kind, "kind", "", "only runs of this kind (dev, grade, mini)")
	cmd.Flags().IntVar(&limit, "limit", 20, "at most this many runs (0: all)")
	return cmd
}

// starOutcomeJSON is what 'transitbench star --json' prints.
type starOutcomeJSON struct {
	store.Outcome
	Result grader.StarResult `json:"result"`
}

func newStarCmd() *cobra.Command {
	var run int64
	cmd := &cobra.Command{
		Use:   "star ID",
		Short: "Show one star's outcome in a run",
		Long: `Show one star's outcome in a run (default: the latest run that has the star): the rows the solution printed,
how each matched, the runtime, the exit reason and the end of stderr.

Stars of the hidden sets (A-0000, B-0123) and runs on them are never shown: the command exits with status 2
saying "hidden stars are not shown" (with --json, {"error": {"code": "hidden", "message"}} on stdout).

--json prints {"run_id", "star_id", "status", "credit", "false", "runtime_ms", "exit_reason", "stderr_tail",
"isolation", "rows", "matches", "updated", "result"}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if run < 0 {
				return usageErrorf("--run %d: give a run id from 'transitbench runs'", run)
			}
			st, err := openResults()
			if err != nil {
				return err
			}
			defer st.Close()
			id := args[0]
			if workspace.IsHiddenStar(id) {
				return refuseHidden(id + " is a star of a hidden set; gradings report those as aggregates only (see 'transitbench runs')")
			}
			if run != 0 {
				if r, err := st.Run(cmd.Context(), run); err == nil && r.Hidden {
					return refuseHidden(fmt.Sprintf("run %d is on the hidden set %s; its aggregates are in 'transitbench runs --json'", run, r.Set))
				}
			}
			if run == 0 {
				runs, err := st.Runs(cmd.Context(), store.RunFilter{})
				if err != nil {
					return err
				}
				for _, r := range runs {
					if _, err := st.Outcome(cmd.Context(), r.ID, id); err == nil {
						run = r.ID
						break
					}
				}
				if run == 0 {
					return notFoundf("no run has star %s: run 'transitbench dev' first, or check the id", id)
				}
			}
			o, err := st.Outcome(cmd.Context(), run, id)
			if err != nil {
				return withCode(codeNotFound, fmt.Errorf("star %s in run %d: %w (see 'transitbench runs')", id, run, err))
			}
			sr, _ := workspace.StarResultOf(o)
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), starOutcomeJSON{Outcome: o, Result: sr})
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "star %s  run %d  %s  exit %s  %d ms  %s\n", id, run, o.Status, o.ExitReason, o.RuntimeMS, o.Isolation)
			for _, p := range sr.Planets {
				fmt.Fprintf(w, "  planet P %.5f d  t0 %.4f  T14 %.2f h  MES %.1f  %s\n", p.PeriodDays, p.T0Days, 24*p.DurationDays, p.MES, p.Status)
			}
			for _, r := range sr.Rows {
				fmt.Fprintf(w, "  row %d  P %.5f d  t0 %.4f  score %.3g  %s  f_true %.2f  f_pred %.2f %s\n", r.Rank, r.PeriodDays, r.T0Days, r.Score,
					r.Status, r.FTrue, r.FPred, r.Note)
			}
			if o.StderrTail != "" {
				fmt.Fprintf(w, "stderr (end):\n%s\n", o.StderrTail)
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&run, "run", 0, "the run (default: the latest that has the star)")
	return cmd
}

func newMiniCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mini",
		Short: "The mini taskset (SPEC A8)",
		Args:  cobra.NoArgs,
		RunE:  groupHelp,
	}
	var rf runFlags
	var task string
	run := &cobra.Command{
		Use:   "run --task ID",
		Short: "Run the workspace's solution on a mini task's hidden stars and print the reward",
		Long: `Run the workspace's solution on the 16 hidden stars of a mini task (mini-train-%08d drawn from the train pool,
mini-dev-00000000 … 31 from the dev pool; 8 injected planets) and print the reward
clip((credit − false) / 8, −1, 1).

--json prints {"task", "reward", "credit", "false", "run_id", "seconds"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if task == "" {
				return usageErrorf("--task is required (e.g. mini-dev-00000007)")
			}
			if _, _, err := sets.ParseMiniTask(task); err != nil {
				return usageErrorf("--task: %v", err)
			}
			r, err := rf.start(cmd)
			if err != nil {
				return err
			}
			defer r.stop()
			res, err := r.ws.Mini(r.ctx, task, r.opt, r.events)
			r.wait()
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s  reward %.3f  (credit %.1f, false %d)\n", res.Task, res.Reward, res.Credit, res.False)
			return nil
		},
	}
	rf.add(run)
	run.Flags().StringVar(&task, "task", "", "the mini task id")
	cmd.AddCommand(run)
	return cmd
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
