package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/workspace"
)

func init() { register(newStarCmd) }

// starOptions are the inputs of 'transitbench star'.
type starOptions struct {
	ID         string // the star (the argument)
	Run        int64  // --run: the run (0: the latest that has the star)
	scopeFlags        // --workspace, --all-workspaces: whose runs
}

// starOutcomeJSON is what 'transitbench star --json' prints: the stored outcome (store.Outcome: run and star
// ids, status, credit, false, runtime, exit reason, stderr's end, isolation, rows, matches, updated) and the
// grader's result for the star (grader.StarResult).
type starOutcomeJSON struct {
	store.Outcome
	Result grader.StarResult `json:"result"`
}

func newStarCmd() *cobra.Command {
	opts := &starOptions{}
	cmd := &cobra.Command{
		Use:   "star ID",
		Short: "Show one star's outcome in a run",
		Long: `Show one star's outcome in a run (default: the current workspace's latest run that has the star): the rows
the solution printed, how each matched, the runtime, the exit reason and the end of stderr. The first line
names the run's workspace and solution kind. Runs belong to a workspace (--workspace DIR, else the one around
the working directory, else the default workspace): --run N of another workspace is refused (exit status 2,
code refused) unless --all-workspaces, which also picks the latest run of any workspace.

Stars of the hidden sets (A-0000, B-0123) and runs on them are never shown: the command exits with status 2
saying "hidden stars are not shown" (with --json, {"error": {"code": "hidden", "message"}} on stdout).

--json prints {"run_id", "star_id", "status", "credit", "false", "runtime_ms", "exit_reason", "stderr_tail",
"isolation", "rows", "matches", "updated", "result"}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			return runStar(cmd.Context(), streamsOf(cmd), opts)
		},
	}
	cmd.Flags().Int64Var(&opts.Run, "run", 0, "the run (default: the workspace's latest that has the star)")
	opts.scopeFlags.add(cmd)
	return cmd
}

// runStar prints one star's outcome in a run; hidden stars and runs on hidden sets are refused.
func runStar(ctx context.Context, s streams, opts *starOptions) error {
	run, id := opts.Run, opts.ID
	if run < 0 {
		return usageErrorf("--run %d: give a run id from 'transitbench runs'", run)
	}
	st, err := openResults()
	if err != nil {
		return err
	}
	defer st.Close()
	if workspace.IsHiddenStar(id) {
		return refuseHidden(id + " is a star of a hidden set; gradings report those as aggregates only (see 'transitbench runs')")
	}
	scope, err := opts.scope()
	if err != nil {
		return err
	}
	var r store.Run
	if run != 0 {
		if r, err = st.Run(ctx, run); err == nil && r.Hidden {
			return refuseHidden(fmt.Sprintf("run %d is on the hidden set %s; its aggregates are in 'transitbench runs --json'", run, r.Set))
		}
		if err != nil {
			return withCode(codeNotFound, fmt.Errorf("run %d: %w (see 'transitbench runs')", run, err))
		}
		if err := scope.allows(r); err != nil {
			return err
		}
	} else if r, err = latestRunWithStar(ctx, st, id, scope); err != nil {
		return err
	}
	o, err := st.Outcome(ctx, r.ID, id)
	if err != nil {
		return withCode(codeNotFound, fmt.Errorf("star %s in run %d: %w (see 'transitbench runs')", id, r.ID, err))
	}
	sr, _ := workspace.StarResultOf(o)
	if s.JSON {
		return writeJSON(s.Out, starOutcomeJSON{Outcome: o, Result: sr})
	}
	fmt.Fprintf(s.Out, "run %d of %s (%s solution)\n", r.ID, termtext.Line(orDash(runPlace(r))), termtext.Line(orDash(r.SolutionKind)))
	printStarOutcome(s.Out, id, r.ID, o, sr)
	return nil
}

// latestRunWithStar returns the newest run of the scope that has an outcome for star id.
func latestRunWithStar(ctx context.Context, st *store.Store, id string, scope runScope) (store.Run, error) {
	runs, err := st.Runs(ctx, store.RunFilter{Workspace: scope.filter()})
	if err != nil {
		return store.Run{}, err
	}
	for _, r := range runs {
		if _, err := st.Outcome(ctx, r.ID, id); err == nil {
			return r, nil
		}
	}
	if scope.All {
		return store.Run{}, notFoundf("no run has star %s: run 'transitbench dev' first, or check the id", id)
	}
	return store.Run{}, notFoundf("no run of the workspace %s has star %s: run 'transitbench dev' there first, check the id, "+
		"or pass --all-workspaces to look in every workspace's runs", termtext.Line(scope.Workspace), id)
}

// printStarOutcome prints a star's outcome for people: its planets, its rows and how each matched, and the end
// of its stderr.
func printStarOutcome(w io.Writer, id string, run int64, o store.Outcome, sr grader.StarResult) {
	line := termtext.Line
	fmt.Fprintf(w, "star %s  run %d  %s  exit %s  %d ms  %s\n", line(id), run, o.Status, line(o.ExitReason), o.RuntimeMS, line(o.Isolation))
	for _, p := range sr.Planets {
		fmt.Fprintf(w, "  planet P %.5f d  t0 %.4f  T14 %.2f h  MES %.1f  %s\n", p.PeriodDays, p.T0Days, 24*p.DurationDays, p.MES, p.Status)
	}
	for _, r := range sr.Rows {
		fmt.Fprintf(w, "  row %d  P %.5f d  t0 %.4f  score %.3g  %s  f_true %.2f  f_pred %.2f %s\n", r.Rank, r.PeriodDays, r.T0Days, r.Score,
			line(r.Status), r.FTrue, r.FPred, line(r.Note))
	}
	if o.StderrTail != "" {
		fmt.Fprintf(w, "stderr (end):\n%s\n", termtext.Text(o.StderrTail))
	}
}
