package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/stargazer"
	"transitbench/sandbox"
	"transitbench/workspace"
	"transitbench/workspace/rvtrack"
)

func init() { rvSubcommands = append(rvSubcommands, newRVGradeCmd) }

func newRVGradeCmd() *cobra.Command {
	var fresh bool
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
			"Each finished task is kept in the data directory as it finishes: a run stopped by Ctrl-C, a crash or a kill\n" +
			"is resumed by the next 'rv grade' of the same solution content over the same tasks, --tier and --timeout\n" +
			"(\"resuming ... N of M tasks done\" on stderr); --fresh starts over. Exit status 1 when the run stopped early.\n\n" +
			"JSON: {\"tiers\": {TIER: {\"tasks\", \"passed\", \"pass_rate\", \"solvable_tasks\", \"solvable_passed\",\n" +
			"\"criteria\": {...}}}, \"seconds\", \"workers\", \"isolation\", \"resumed\", \"results\": [{\"task\", \"tier\", \"exit\", \"error\",\n" +
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
			if workers < 0 {
				return usageErrorf("--workers %d: give a number of tasks to run at once, or 0 for one per CPU", workers)
			}
			if fi, err := os.Stat(solDir); err != nil || !fi.IsDir() {
				return notFoundf("--solution %s is not a directory: give the folder holding solution.py, an executable run, "+
					"or a Go main package", solDir)
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
			errw := cmd.ErrOrStderr()
			prog, err := openRVGradeProgress(solDir, tasks, tier, timeout, fresh)
			if err != nil {
				return err
			}
			defer prog.close()
			if len(prog.done) > 0 {
				fmt.Fprintf(errw, "rv grade: resuming an interrupted run of this solution: %d of %d tasks done\n", len(prog.done), len(tasks))
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opt := rvtrack.SolutionOptions{Workers: workers, TasksDir: dir, Limits: sandbox.Limits{WallTime: secondsDuration(timeout)},
				Done: prog.done, Record: prog.record}
			rep, err := rvtrack.RunSolution(ctx, tasks, sol, opt, func(done, total int, o rvtrack.TaskOutcome) {
				if !quiet {
					fmt.Fprintf(errw, "[%d/%d] %-18s %-6s %-10s passed=%-5v planets=%d/%d %.1fs\n", done, total, o.Task, o.Tier,
						o.Exit, o.Result.Passed, o.Result.NGuess, o.NTruth, o.Seconds)
				}
			})
			if rep == nil {
				return err
			}
			if err != nil {
				err = fmt.Errorf("rv grade stopped early: %w (%d of %d tasks finished and kept; run the same 'rv grade' "+
					"again to resume)", err, len(rep.Outcomes), len(tasks))
			} else if rerr := prog.finish(); rerr != nil {
				fmt.Fprintf(errw, "rv grade: %v\n", rerr)
			}
			if wantJSON(cmd) {
				if err != nil {
					return failWithResult(err, rep)
				}
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
			if ferr := w.Flush(); ferr != nil {
				return ferr
			}
			return err
		},
	}
	c.Flags().String("solution", "", "folder holding the solution (solution.py, an executable run, or a Go main package)")
	c.Flags().String("tier", "", "only this tier: easy, medium, hard or real")
	c.Flags().Int("workers", 0, "tasks run at once (default: number of CPUs)")
	c.Flags().Float64("timeout", 0, "wall-clock seconds per task, at most the tier's time budget (default: the tier's budget, 600/900/1500 s)")
	c.Flags().Bool("quiet", false, "no progress lines")
	c.Flags().BoolVar(&fresh, "fresh", false, "start over instead of resuming an interrupted run of the same solution")
	return c
}

// rvGradeProgress keeps the outcomes of an 'rv grade' run in <data directory>/rv/grade/KEY.jsonl, one line per
// finished task, written and synced as each task finishes, so that an interrupted or killed run loses nothing:
// the next run of the same solution (content hash) over the same tasks, tier filter and timeout resumes it.
// The file is removed when the run completes.
type rvGradeProgress struct {
	path string
	f    *os.File
	done []rvtrack.TaskOutcome
}

func openRVGradeProgress(solDir string, tasks []*stargazer.Task, tier string, timeout float64, fresh bool) (*rvGradeProgress, error) {
	home, err := data.Home()
	if err != nil {
		return nil, err
	}
	hash, _, err := workspace.HashTree(solDir)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "solution %s\ntier %s\ntimeout %g\n", hash, tier, timeout)
	ids := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		fmt.Fprintf(h, "task %s\n", t.TaskID)
		ids[t.TaskID] = true
	}
	p := &rvGradeProgress{path: filepath.Join(home, "rv", "grade", hex.EncodeToString(h.Sum(nil))[:24]+".jsonl")}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return nil, fmt.Errorf("rv grade: cannot keep progress: %w", err)
	}
	if fresh {
		if err := os.Remove(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	var keep bytes.Buffer
	if b, err := os.ReadFile(p.path); err == nil {
		seen := map[string]bool{}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var o rvtrack.TaskOutcome
			if json.Unmarshal(line, &o) != nil || !ids[o.Task] || seen[o.Task] {
				continue // a torn last line (a killed run) or a foreign one: that task runs again
			}
			seen[o.Task] = true
			p.done = append(p.done, o)
			keep.Write(line)
			keep.WriteByte('\n')
		}
	}
	if err := os.WriteFile(p.path+".tmp", keep.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("rv grade: cannot keep progress: %w", err)
	}
	if err := os.Rename(p.path+".tmp", p.path); err != nil {
		return nil, fmt.Errorf("rv grade: cannot keep progress: %w", err)
	}
	if p.f, err = os.OpenFile(p.path, os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, fmt.Errorf("rv grade: cannot keep progress: %w", err)
	}
	return p, nil
}

// record appends a finished task's outcome and syncs it to disk.
func (p *rvGradeProgress) record(o rvtrack.TaskOutcome) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if _, err := p.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return p.f.Sync()
}

// finish removes the progress file of a completed run: the next run starts afresh.
func (p *rvGradeProgress) finish() error {
	p.close()
	if err := os.Remove(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot remove the progress file of the finished run: %w", err)
	}
	return nil
}

func (p *rvGradeProgress) close() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}
