package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data/stargazer"
	"transitbench/workspace/rvbaselines"
	"transitbench/workspace/rvtrack"
)

// rvSolvers are the pipelines 'rv baseline' and 'rv fit' can run.
var rvSolvers = map[string]rvbaselines.Solver{
	"classical":          rvbaselines.ClassicalSolver,
	"classical-thorough": rvbaselines.ClassicalThoroughSolver,
	"search":             rvbaselines.SearchSolver,
	"honest":             rvbaselines.HonestSolver,
}

// rvInteractive are the pipelines only 'rv baseline' runs: they submit several times and use the gate's
// per-criterion feedback, which needs the truth, so 'rv fit' cannot offer them.
var rvInteractive = map[string]rvbaselines.InteractiveSolver{
	"expert": rvbaselines.ExpertSolver,
}

func solverNames() []string {
	var names []string
	for k := range rvSolvers {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// baselineNames are the pipelines 'rv baseline' accepts.
func baselineNames() []string {
	names := solverNames()
	for k := range rvInteractive {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// rvBaselineOptions are the inputs of 'rv baseline'. Its --json output is rvbaselines.BaselineReport: the
// per-tier summaries ("tiers"), "seconds", "workers" and, with --per-task, every task's outcome ("results").
type rvBaselineOptions struct {
	rvCommon
	Pipeline string // the pipeline (argument): a key of rvSolvers or rvInteractive
	Tier     string // --tier: only this tier ("": all)
	Workers  int    // --workers: tasks at once (0: one per CPU)
	PerTask  bool   // --per-task: keep every task's outcome in the JSON
	Quiet    bool   // --quiet: no progress lines on Stderr
}

// newRVBaselineCmd builds the command; runF, when not nil, replaces runRVBaseline (tests check the options the flags
// produce with it).
func newRVBaselineCmd(common *rvCommon, runF func(context.Context, rvBaselineOptions, io.Writer) error) *cobra.Command {
	c, opts := rvSubcommand(&cobra.Command{Use: "baseline PIPELINE", Args: cobra.ExactArgs(1),
		Short: "Run a reference pipeline on the RV tasks and report pass rates per tier",
		Long: `Run a reference pipeline on every task and grade its configuration with the gate. Every pipeline searches
periods from 0.2 d, fits with Kipping's eccentricity prior and keeps an orbit above e = 0.8 only on ΔBIC 10.
classical: the original Lomb–Scargle peel-and-search with multi-start least squares and greedy planet addition,
with each peak's daily and yearly aliases as candidates; a planet must lower the BIC (with one jitter fitted)
by 6 ln N, its peak have a false-alarm probability below 5 % and the residual periodogram an empirical one
below 1 %; classical-thorough: the same rules with the monthly aliases and harmonics of the top peak,
eccentric starts, a joint refit of all planets at each step and a final re-peel of each planet; search: the
classical one with alias and harmonic candidates, eccentric starts, a false-alarm test, a rotation Gaussian
process when the residuals need one, and a fitted jitter; honest: the search for real multi-instrument data
(rv.Honest: per-instrument offsets and jitters, a planet only when the residual periodogram's peak has analytic
and empirical false-alarm probabilities below 0.1 %, the aliases of every significant peak, a stellar-activity
term when the residuals ask for one, periods up to the series' span); expert: a contestant's use of the tier's
submissions (3 / 5 / 10) (rvbaselines.ExpertSolver): it submits the classical and the honest models, then the
alternatives within ΔBIC 10 of the best (a planet moved to an alias, one planet more, the weakest dropped),
and uses the feedback only to choose among them. With --per-task each result says how many submissions were
made and whether the pass also meets the strict match (ok_match_strict). Rates are fractions; solvable_* count
the tasks whose own truth passes the gate. Beside the original gate every tier reports the strict one (match
score normalised by the number of true planets: passed_strict, pass_rate_strict, solvable_passed_strict) and the
calibrated one (every true planet matched with P, K and e within 3σ of the uncertainties the data give at the
truth: passed_calibrated, pass_rate_calibrated, solvable_passed_calibrated); the table shows them as STRICT,
CALIB and SOLV_O/S/C. Progress lines go to standard error; Ctrl-C stops and reports what finished.

On the 120 published tasks (original / strict match) classical passes Easy 19/19, Medium 14/14, Hard 1/0 and
Real 1/20 (the paper's classical baseline: 95 / 35 / 5 %); honest Easy 18/18, Medium 13/13, Hard 1/0 and Real
0/20 (3 under the fair RMS criterion); expert Easy 19/19, Medium 17/14, Hard 1/0, Real 1/20. The Hard pass is
a task whose own truth fails the gate; no pipeline meets the strict match on a Hard task.`,
	}, runF, runRVBaseline, func(o *rvBaselineOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Pipeline = common.at(cmd), args[0]
	}, os.Interrupt)
	c.Flags().StringVar(&opts.Tier, "tier", "", "only this tier: easy, medium, hard or real")
	c.Flags().IntVar(&opts.Workers, "workers", 0, "parallel tasks (default: number of CPUs)")
	c.Flags().BoolVar(&opts.PerTask, "per-task", false, "include every task's outcome in the JSON (key results)")
	c.Flags().BoolVar(&opts.Quiet, "quiet", false, "no progress lines")
	return c
}

// runRVBaseline runs pipeline opts.Pipeline on the tasks of opts.Tier and prints the pass rates per tier.
// Cancelling ctx stops handing out tasks; the finished ones are reported.
func runRVBaseline(ctx context.Context, opts rvBaselineOptions, out io.Writer) error {
	solve, ok := rvInteractive[opts.Pipeline]
	if one, found := rvSolvers[opts.Pipeline]; found {
		solve, ok = rvbaselines.OneShot(one), true
	}
	if !ok {
		return usageErrorf("unknown pipeline %q: choose one of %v", opts.Pipeline, baselineNames())
	}
	if err := checkGradableTier(opts.Tier); err != nil {
		return err
	}
	if err := checkRVTier(opts.Tier); err != nil {
		return err
	}
	if opts.Workers < 0 {
		return usageErrorf("--workers %d: give a number of tasks to run at once, or 0 for one per CPU", opts.Workers)
	}
	all, _, _, err := opts.loadTasks()
	if err != nil {
		return err
	}
	tasks := gradable(inTier(all, opts.Tier))
	errw := opts.stderr()
	rep := rvbaselines.RunInteractive(ctx, tasks, solve, opts.Workers, func(done, total int, o rvtrack.TaskOutcome) {
		if !opts.Quiet {
			fmt.Fprintf(errw, "[%d/%d] %-18s %-6s passed=%-5v strict=%-5v calibrated=%-5v planets=%d/%d %.1fs\n", done, total,
				o.Task, o.Tier, o.Result.Passed, o.Result.PassedStrict, o.Result.PassedCalibrated, o.Result.NGuess, o.NTruth, o.Seconds)
		}
	})
	if !opts.PerTask {
		rep.Outcomes = nil
	}
	if opts.JSON {
		return writeJSON(out, rep)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	writeTierTable(w, rep.Tiers)
	fmt.Fprintf(w, "%.1f s on %d workers\n", rep.Seconds, rep.Workers)
	return w.Flush()
}

// writeTierTable writes the per-tier summary table of 'rv baseline' and 'rv grade': passes under the original
// gate with its rate and criteria, and beside them the strict and calibrated gates' passes (STRICT, CALIB) and
// the passes on solvable tasks under the three (SOLV_O/S/C).
func writeTierTable(w io.Writer, tiers map[string]*rvtrack.TierSummary) {
	fmt.Fprintln(w, "TIER\tTASKS\tPASSED\tRATE\tSTRICT\tCALIB\tSOLVABLE\tSOLV_O/S/C\tRMS\tDBIC\tMATCH\tCOUNT")
	for _, tr := range stargazer.Tiers {
		if s := tiers[tr]; s != nil {
			fmt.Fprintf(w, "%s\t%d\t%d\t%.3f\t%d\t%d\t%d\t%d/%d/%d\t%.2f\t%.2f\t%.2f\t%.2f\n", tr, s.Tasks, s.Passed, s.PassRate,
				s.PassedStrict, s.PassedCalibrated, s.SolvableTasks, s.SolvablePassed, s.SolvablePassedStrict,
				s.SolvablePassedCalibrated, s.Criteria.OKRMS, s.Criteria.OKDeltaBIC, s.Criteria.OKMatch, s.Criteria.OKCount)
		}
	}
}
