package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/stargazer"
	"transitbench/sandbox"
	"transitbench/workspace"
	"transitbench/workspace/report"
	"transitbench/workspace/rvtrack"
)

// rvGradeOptions are the inputs of 'rv grade'. Its --json output is rvtrack.SolutionReport: the per-tier
// summaries ("tiers"), "seconds", "workers", the sandbox's "isolation", the tasks taken over from an
// interrupted run ("resumed") and every task's outcome ("results"); a run stopped early prints it as the
// "result" of the error object.
type rvGradeOptions struct {
	rvCommon
	Solution string // --solution: the folder holding solution.py, an executable run, or a Go main package
	Tier     string // --tier: only this tier ("": all)
	Workers  int    // --workers: tasks at once (0: one per CPU)
	// Timeout is --timeout, the wall-clock seconds per task (at most the tier's budget); it counts only when
	// TimeoutSet (the flag was given), and must then be positive.
	Timeout    float64
	TimeoutSet bool
	Quiet      bool // --quiet: no progress lines on Stderr
	Fresh      bool // --fresh: start over instead of resuming
}

// newRVGradeCmd builds the command; runF, when not nil, replaces runRVGrade (tests check the options the flags
// produce with it).
func newRVGradeCmd(common *rvCommon, runF func(context.Context, rvGradeOptions, io.Writer) error) *cobra.Command {
	c, opts := rvSubcommand(&cobra.Command{Use: "grade --solution DIR", Args: cobra.NoArgs,
		Short: "Run an RV solution on every task in the sandbox and report pass rates per tier",
		Long: `Run a contestant's RV solution (solution.py, an executable run, or a Go main package in DIR) once per task,
in the same sandbox as the transit track. argv[1] is a read-only folder holding task.json, exactly what
'rv start TASK --json' prints (without "state"). The solution prints on stdout what 'rv submit --planets' accepts: a JSON list of
{"P_days", "K_ms" or "m_sin_i_mjup", "e", "omega_rad", "l_rad" or "M0_rad" or "t_peri_days"}, or
{"planets": [...], "jitter_ms": s}. Each answer is graded with the four-criterion gate; nothing is spent
from the submission budgets. A timeout, a crash or output that does not parse fails that task (its exit
reason is kept). The task folder is hidden from the solution.

Each task may run for its tier's time budget: easy 600 s, medium 900 s, hard and real 1500 s of wall-clock
time. --timeout S lowers that to S seconds for every task (it never raises it); use it for quick checks.

Each finished task is kept in the data directory as it finishes: a run stopped by Ctrl-C, a crash or a kill
is resumed by the next 'rv grade' of the same solution content over the same tasks, --tier and --timeout
("resuming ... N of M tasks done" on stderr); --fresh starts over. Exit status 1 when the run stopped early.

Tasks are graded under the original gate and, beside it, the strict and the calibrated ones (SPEC B3; see
'rv baseline --help'): the table's STRICT, CALIB and SOLV_O/S/C columns.

JSON: {"tiers": {TIER: {"tasks", "passed", "pass_rate", "solvable_tasks", "solvable_passed", "passed_strict",
"pass_rate_strict", "solvable_passed_strict", "passed_calibrated", "pass_rate_calibrated",
"solvable_passed_calibrated", "criteria": {...}}}, "seconds", "workers", "isolation", "resumed", "results": [{"task", "tier", "exit", "error",
"result", "periods_days", "seconds", ...}]}.`,
	}, runF, runRVGrade, func(o *rvGradeOptions, cmd *cobra.Command, _ []string) {
		o.rvCommon, o.TimeoutSet = common.at(cmd), cmd.Flags().Changed("timeout")
	}, os.Interrupt, syscall.SIGTERM)
	c.Flags().StringVar(&opts.Solution, "solution", "", "folder holding the solution (solution.py, an executable run, or a Go main package)")
	c.Flags().StringVar(&opts.Tier, "tier", "", "only this tier: easy, medium, hard or real")
	c.Flags().IntVar(&opts.Workers, "workers", 0, "tasks run at once (default: number of CPUs)")
	c.Flags().Float64Var(&opts.Timeout, "timeout", 0, "wall-clock seconds per task, at most the tier's time budget (default: the tier's budget, 600/900/1500 s)")
	c.Flags().BoolVar(&opts.Quiet, "quiet", false, "no progress lines")
	c.Flags().BoolVar(&opts.Fresh, "fresh", false, "start over instead of resuming an interrupted run of the same solution")
	return c
}

// runRVGrade runs the solution of opts.Solution on the tasks of opts.Tier in the sandbox, resuming an
// interrupted run of the same solution content over the same tasks, tier and timeout unless opts.Fresh, and
// prints the report. Cancelling ctx stops the run: the finished tasks are kept, reported, and the error says so.
func runRVGrade(ctx context.Context, opts rvGradeOptions, out io.Writer) error {
	solDir, workers, timeout := opts.Solution, opts.Workers, opts.Timeout
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
	if opts.TimeoutSet && !(timeout > 0) {
		return usageErrorf("--timeout must be a positive number of seconds")
	}
	tasks, dir, err := opts.gradableTasks(opts.Tier)
	if err != nil {
		return err
	}
	sol, err := sandbox.Detect(solDir)
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer sol.Close()
	errw := opts.stderr()
	prog, err := openRVGradeProgress(opts.Home, solDir, tasks, opts.Tier, timeout, opts.Fresh)
	if err != nil {
		return err
	}
	defer prog.close()
	if len(prog.done) > 0 {
		fmt.Fprintf(errw, "rv grade: resuming an interrupted run of this solution: %d of %d tasks done\n", len(prog.done), len(tasks))
	}
	opt := rvtrack.SolutionOptions{Workers: workers, TasksDir: dir, Limits: sandbox.Limits{WallTime: secondsDuration(timeout)},
		Done: prog.done, Record: prog.record}
	rep, err := rvtrack.RunSolution(ctx, tasks, sol, opt, func(done, total int, o rvtrack.TaskOutcome) {
		if !opts.Quiet {
			fmt.Fprintf(errw, "[%d/%d] %-18s %-6s %-10s passed=%-5v strict=%-5v calibrated=%-5v planets=%d/%d %.1fs\n", done, total,
				o.Task, o.Tier, o.Exit, o.Result.Passed, o.Result.PassedStrict, o.Result.PassedCalibrated, o.Result.NGuess, o.NTruth, o.Seconds)
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
	if opts.JSON {
		if err != nil {
			return failWithResult(err, rep)
		}
		return writeJSON(out, rep)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	writeTierTable(w, rep.Tiers)
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
}

// rvGradeProgress keeps the outcomes of an 'rv grade' run in <data directory>/rv/grade/KEY.jsonl, one line per
// finished task, written and synced as each task finishes, so that an interrupted or killed run loses nothing:
// the next run of the same solution (content hash) over the same tasks, tier filter and timeout resumes it.
// When the run completes the file moves to <data directory>/rv/runs/TIME-KEY.jsonl (report.RVRunsDir), where
// the results site reads the finished runs.
type rvGradeProgress struct {
	path string
	f    *os.File
	done []rvtrack.TaskOutcome
}

// openRVGradeProgress opens the progress file of a run in home ("": data.Home()), keeping the outcomes of an
// interrupted run of the same key unless fresh.
func openRVGradeProgress(home, solDir string, tasks []*stargazer.Task, tier string, timeout float64, fresh bool) (*rvGradeProgress, error) {
	if home == "" {
		var err error
		if home, err = data.Home(); err != nil {
			return nil, err
		}
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

// finish moves the progress file of a completed run among the finished runs: the next run starts afresh.
func (p *rvGradeProgress) finish() error {
	p.close()
	home := filepath.Dir(filepath.Dir(filepath.Dir(p.path)))
	dst := filepath.Join(report.RVRunsDir(home), time.Now().UTC().Format("20060102T150405Z")+"-"+filepath.Base(p.path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("cannot keep the finished run: %w", err)
	}
	if err := os.Rename(p.path, dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot keep the finished run: %w", err)
	}
	return nil
}

func (p *rvGradeProgress) close() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}
