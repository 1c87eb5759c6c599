package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data/stargazer"
	grv "transitbench/grader/rv"
	"transitbench/sandbox"
)

func init() { rvSubcommands = append(rvSubcommands, newRVGradeCmd) }

func newRVGradeCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "grade --solution DIR",
		Short: "Run an RV solution on every task in the sandbox and report pass rates per tier",
		Long: "Run a contestant's RV solution (solution.py, an executable run, or a Go main package in DIR) once per task,\n" +
			"in the same sandbox as the transit track. argv[1] is a read-only folder holding task.json, exactly what\n" +
			"'rv show TASK --json' prints. The solution prints on stdout what 'rv submit --planets' accepts: a JSON list of\n" +
			"{\"P_days\", \"K_ms\" or \"m_sin_i_mjup\", \"e\", \"omega_rad\", \"l_rad\" or \"M0_rad\" or \"t_peri_days\"}, or\n" +
			"{\"planets\": [...], \"jitter_ms\": s}. Each answer is graded with the four-criterion gate; nothing is spent\n" +
			"from the submission budgets. A timeout, a crash or output that does not parse fails that task (its exit\n" +
			"reason is kept). The task folder is hidden from the solution.\n\n" +
			"Each task may run for its tier's time budget: easy 600 s, medium 900 s, hard and real 1500 s of wall-clock\n" +
			"time. --timeout S lowers that to S seconds for every task (it never raises it); use it for quick checks.\n\n" +
			"JSON: {\"tiers\": {TIER: {\"tasks\", \"passed\", \"pass_rate\", \"solvable_tasks\", \"solvable_passed\",\n" +
			"\"criteria\": {...}}}, \"seconds\", \"workers\", \"isolation\", \"results\": [{\"task\", \"tier\", \"exit\", \"error\",\n" +
			"\"result\", \"periods_days\", \"seconds\", ...}]}.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			solDir, _ := cmd.Flags().GetString("solution")
			workers, _ := cmd.Flags().GetInt("workers")
			timeout, _ := cmd.Flags().GetFloat64("timeout")
			quiet, _ := cmd.Flags().GetBool("quiet")
			if solDir == "" {
				return usageErrorf("rv grade needs --solution DIR (a folder with solution.py, an executable run, or a Go main package)")
			}
			if cmd.Flags().Changed("timeout") && !(timeout > 0) {
				return usageErrorf("--timeout must be a positive number of seconds")
			}
			tier, err := tierFilter(cmd)
			if err != nil {
				return err
			}
			flagDir, _ := cmd.Flags().GetString("tasks")
			dir, err := stargazer.LocateDir(flagDir)
			if err != nil {
				return err
			}
			all, _, err := loadTasksWarn(cmd, dir)
			if err != nil {
				return err
			}
			var tasks []*stargazer.Task
			for _, t := range all {
				if tier == "" || t.Tier() == tier {
					tasks = append(tasks, t)
				}
			}
			sol, err := sandbox.Detect(solDir)
			if err != nil {
				return usageErrorf("%v", err)
			}
			defer sol.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			errw := cmd.ErrOrStderr()
			opt := grv.SolutionOptions{Workers: workers, TasksDir: dir, Limits: sandbox.Limits{WallTime: secondsDuration(timeout)}}
			rep, err := grv.RunSolution(ctx, tasks, sol, opt, func(done, total int, o grv.TaskOutcome) {
				if !quiet {
					fmt.Fprintf(errw, "[%d/%d] %-18s %-6s %-10s passed=%-5v planets=%d/%d %.1fs\n", done, total, o.Task, o.Tier,
						o.Exit, o.Result.Passed, o.Result.NGuess, o.NTruth, o.Seconds)
				}
			})
			if rep == nil {
				return err
			}
			if err != nil {
				fmt.Fprintf(errw, "rv grade stopped early: %v (%d of %d tasks finished)\n", err, len(rep.Outcomes), len(tasks))
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "TIER\tTASKS\tPASSED\tRATE\tSOLVABLE\tSOLV_PASSED\tRMS\tDBIC\tMATCH\tCOUNT")
			for _, tr := range stargazer.Tiers {
				if s := rep.Tiers[tr]; s != nil {
					fmt.Fprintf(w, "%s\t%d\t%d\t%.3f\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\n", tr, s.Tasks, s.Passed, s.PassRate,
						s.SolvableTasks, s.SolvablePassed, s.Criteria.OKRMS, s.Criteria.OKDeltaBIC, s.Criteria.OKMatch, s.Criteria.OKCount)
				}
			}
			failed := map[string]int{}
			for _, o := range rep.Outcomes {
				if o.Exit != sandbox.ExitOK {
					failed[o.Exit]++
				}
			}
			if len(failed) > 0 {
				fmt.Fprintf(w, "tasks without a usable answer: %v\n", failed)
			}
			fmt.Fprintf(w, "%.1f s on %d workers, isolation %s\n", rep.Seconds, rep.Workers, rep.Isolation)
			return w.Flush()
		},
	}
	c.Flags().String("solution", "", "folder holding the solution (solution.py, an executable run, or a Go main package)")
	c.Flags().String("tier", "", "only this tier: easy, medium, hard or real")
	c.Flags().Int("workers", 0, "tasks run at once (default: number of CPUs)")
	c.Flags().Float64("timeout", 0, "wall-clock seconds per task, at most the tier's time budget (default: the tier's budget, 600/900/1500 s)")
	c.Flags().Bool("quiet", false, "no progress lines")
	return c
}
