package rvtrack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"transitbench/data"
	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/sandbox"
)

// TaskFile is the name of the file a solution finds in its task directory (argv[1]): the task's View, exactly
// what 'transitbench rv start TASK --json' prints without its state (data, star mass, t_ref, tier, budget; never the truth).
const TaskFile = "task.json"

// SolutionOptions tune RunSolution.
type SolutionOptions struct {
	// Workers is the number of tasks run at once; 0 means the number of CPUs.
	Workers int
	// Limits are the per-task sandbox limits; zero fields take the defaults of SPEC A6 (4 GiB, …), except the
	// wall time: each task runs for at most its tier's time budget (TaskWallTime), and Limits.WallTime, when
	// positive, caps that.
	Limits sandbox.Limits
	// TasksDir is the folder the task files were read from. It holds the truth, so it is masked in the sandbox
	// (added to Limits.Mask); the solution sees only its own task.json.
	TasksDir string
	// AllowDegraded is passed to the runner. RV grading does not run hidden sets, so the runner never refuses;
	// the isolation level is recorded in the report either way.
	AllowDegraded bool
	// Done holds the outcomes of tasks finished by an earlier, interrupted run of the same solution over the
	// same tasks: those tasks are not run again and their outcomes join the report as they are.
	Done []TaskOutcome
	// Record, when not nil, is called with each task's outcome as it finishes (from one goroutine, before
	// progress), so the caller can keep it where a crash does not lose it; its error stops the run.
	Record func(TaskOutcome) error
}

// SolutionReport is the outcome of running a contestant's solution over tasks: the same per-tier summary as a
// baseline run plus every task's outcome with its exit reason, and the sandbox's isolation level.
type SolutionReport struct {
	Tiers     map[string]*TierSummary `json:"tiers"`
	Seconds   float64                 `json:"seconds"`
	Workers   int                     `json:"workers"`
	Isolation string                  `json:"isolation"`
	// Resumed counts the tasks taken over from an interrupted run (SolutionOptions.Done).
	Resumed  int           `json:"resumed"`
	Outcomes []TaskOutcome `json:"results"`
}

// RunSolution runs sol once per task in the sandbox, each run with a read-only directory holding TaskFile as
// argv[1] and at most TaskWallTime to finish, parses its stdout as a submission (rvgate.ParseSubmission: a list of
// planets or {"planets", "jitter_ms"}), and grades it with the gate. A task whose run did not exit 0 (timeout, crash, memory, output limit) or whose
// output does not parse or resolve gets no planets and fails every criterion; its exit reason and the error
// are recorded in its outcome. progress, when not nil, is called after each task from one goroutine.
// Cancelling ctx stops the run; finished tasks are reported and ctx.Err() is returned with the report.
// opt.Done resumes an interrupted run and opt.Record keeps each outcome as it finishes, so that a crash loses
// no finished task ('transitbench rv grade' keeps them in a file in the data directory).
// An error without a report means nothing could run (the solution did not build, the sandbox refused).
func RunSolution(ctx context.Context, tasks []*stargazer.Task, sol *sandbox.Solution, opt SolutionOptions,
	progress func(done, total int, o TaskOutcome)) (*SolutionReport, error) {
	byID := make(map[string]*stargazer.Task, len(tasks))
	order := make(map[string]int, len(tasks))
	jobs := make([]sandbox.Job, 0, len(tasks))
	done := map[string]TaskOutcome{}
	for _, o := range opt.Done {
		done[o.Task] = o
	}
	var kept []TaskOutcome
	for _, t := range tasks {
		if _, dup := byID[t.TaskID]; dup {
			return nil, fmt.Errorf("rv: task %s appears twice", t.TaskID)
		}
		byID[t.TaskID], order[t.TaskID] = t, len(order)
		if o, ok := done[t.TaskID]; ok {
			kept = append(kept, o)
			continue
		}
		jobs = append(jobs, sandbox.Job{StarID: t.TaskID, Prepare: func(dir string) error { return writeTaskDir(t, dir) },
			WallTime: TaskWallTime(t, opt.Limits.WallTime)})
	}
	limits := opt.Limits
	if opt.TasksDir != "" {
		limits.Mask = append(slices.Clone(limits.Mask), opt.TasksDir)
	}
	home, err := data.Home() // the sets and the ledger: masked from every task, and the sandbox's run root
	if err != nil {
		return nil, err
	}
	r := &sandbox.Runner{Workers: opt.Workers, Limits: limits, AllowDegraded: opt.AllowDegraded, Home: home}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	start := time.Now()
	results := make(chan sandbox.Result)
	errc := make(chan error, 1)
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() { errc <- r.Run(ctx, sol, jobs, results) }()
	rep := &SolutionReport{Workers: workers, Isolation: sandbox.Probe().String(), Resumed: len(kept), Outcomes: kept}
	var runErr error
	for running := true; running; {
		select {
		case res := <-results:
			if res.ExitReason == sandbox.ExitCancelled {
				continue
			}
			rep.Isolation = res.Isolation
			o := gradeRun(byID[res.StarID], res)
			if opt.Record != nil {
				if err := opt.Record(o); err != nil {
					stop(fmt.Errorf("rv: cannot keep the outcome of task %s: %w", o.Task, err))
					continue
				}
			}
			rep.Outcomes = append(rep.Outcomes, o)
			if progress != nil {
				progress(len(rep.Outcomes), len(tasks), o)
			}
		case runErr = <-errc:
			running = false
		}
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		runErr = cause
	}
	if runErr != nil && len(rep.Outcomes) == 0 && ctx.Err() == nil {
		return nil, runErr
	}
	slices.SortFunc(rep.Outcomes, func(a, b TaskOutcome) int { return order[a.Task] - order[b.Task] })
	rep.Tiers = Summarize(rep.Outcomes)
	rep.Seconds = time.Since(start).Seconds()
	return rep, runErr
}

// TaskWallTime is how long a solution may run on task t: its tier's time budget (stargazer.Budget.Seconds:
// easy 600 s, medium 900 s, hard and real 1500 s), or limit when that is positive and shorter.
func TaskWallTime(t *stargazer.Task, limit time.Duration) time.Duration {
	d := time.Duration(t.Budget().Seconds) * time.Second
	if limit > 0 && limit < d {
		return limit
	}
	return d
}

// gradeRun turns one sandbox result into the task's outcome.
func gradeRun(t *stargazer.Task, res sandbox.Result) TaskOutcome {
	o := TaskOutcome{Task: t.TaskID, Tier: t.Tier(), Solvable: rvgate.CheckTruth(t).Solvable, NTruth: len(t.Config.Planets),
		Seconds: res.Runtime.Seconds(), Exit: res.ExitReason, ExitCode: res.ExitCode, StderrTail: res.StderrTail}
	if res.ExitReason != sandbox.ExitOK {
		o.Error = fmt.Sprintf("the solution ended with %s (exit code %d); see stderr_tail", res.ExitReason, res.ExitCode)
		o.Result = failedResult(t)
		return o
	}
	sub, err := rvgate.ParseSubmission(res.Stdout)
	if err == nil {
		ps, rerr := sub.Resolve(t.Config.Star.MStarSun, t.Observations.TimesDays[0])
		if rerr == nil {
			o.Result, o.Submission = rvgate.Evaluate(t, ps, sub.JitterMS), sub
			for _, p := range ps {
				o.Periods = append(o.Periods, p.PeriodDays)
			}
			return o
		}
		err = rerr
	}
	o.Exit = "bad_output"
	o.Error = err.Error()
	o.Result = failedResult(t)
	return o
}

// failedResult is the gate outcome of a task the solution gave no usable answer for: every criterion fails.
// The RMS and ΔBIC scalars are those of submitting no planets, so the numbers stay meaningful.
func failedResult(t *stargazer.Task) rvgate.Result {
	r := rvgate.Result{ModelMetrics: rvgate.Metrics(t.Data(), nil, 0, t.MedianSigma())}
	r.OKRMS, r.OKDeltaBIC = false, false
	if t.Real {
		fair, no := r.MaxRMSMS, false
		r.FairMaxRMSMS, r.OKRMSFair, r.PassedFair = &fair, &no, &no
	}
	return r
}

// writeTaskDir writes the contestant's view of t as TaskFile in dir.
func writeTaskDir(t *stargazer.Task, dir string) error {
	b, err := json.MarshalIndent(t.View(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, TaskFile), append(b, '\n'), 0o644)
}
