package rvbaselines

import (
	"context"
	"hash/fnv"
	"runtime"
	"time"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/internal/pool"
	"transitbench/workspace/rvtrack"
)

// Solver turns a task's observations into a planetary configuration and a jitter (m/s). It sees only what a
// contestant sees: the data and the star mass.
type Solver func(d *rv.Data, mStarSun float64, seed uint64) (planets []rv.Planet, jitterMS float64)

// BaselineReport is the outcome of running a solver over tasks.
type BaselineReport struct {
	Tiers    map[string]*rvtrack.TierSummary `json:"tiers"`
	Seconds  float64                         `json:"seconds"`
	Workers  int                             `json:"workers"`
	Outcomes []rvtrack.TaskOutcome           `json:"results,omitempty"`
}

// RunBaseline runs solve on every task with up to workers goroutines (0: GOMAXPROCS), grades each
// configuration with the gate and summarises per tier. progress, when not nil, is called after each task
// (from one goroutine at a time). A cancelled context stops handing out tasks; finished ones are kept.
func RunBaseline(ctx context.Context, tasks []*stargazer.Task, solve Solver, workers int, progress func(done, total int, o rvtrack.TaskOutcome)) *BaselineReport {
	return RunInteractive(ctx, tasks, OneShot(solve), workers, progress)
}

// RunInteractive runs solve on every task as RunBaseline does, giving it the task tier's submissions and time
// (stargazer.Budget: a submission after the tier's seconds, or beyond its count, is not graded) and answering
// each with the contestant's feedback (rvgate.FeedbackFor). A task's outcome
// is its first passing submission, or else its last; TaskOutcome.Submissions counts those made. A solver that
// submits nothing is graded as having submitted no planets.
func RunInteractive(ctx context.Context, tasks []*stargazer.Task, solve InteractiveSolver, workers int, progress func(done, total int, o rvtrack.TaskOutcome)) *BaselineReport {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	out := make([]rvtrack.TaskOutcome, len(tasks))
	ran := make([]bool, len(tasks))
	var after func(i, done int)
	if progress != nil {
		after = func(i, done int) { progress(done, len(tasks), out[i]) }
	}
	pool.Each(ctx, len(tasks), workers, func(i int) {
		out[i], ran[i] = solveTask(tasks[i], solve, taskSeed(tasks[i].TaskID)), true
	}, after)
	rep := &BaselineReport{Workers: workers}
	for i, o := range out {
		if ran[i] {
			rep.Outcomes = append(rep.Outcomes, o)
		}
	}
	rep.Tiers = rvtrack.Summarize(rep.Outcomes)
	rep.Seconds = time.Since(start).Seconds()
	return rep
}

// taskSeed is the seed a baseline's solver gets for a task: the FNV-1a hash of its id, so that a task's result
// does not depend on which other tasks run with it (a --tier filter, a generated folder) or in what order.
func taskSeed(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// solveTask runs solve on t within its tier's submissions and returns the outcome to report.
func solveTask(t *stargazer.Task, solve InteractiveSolver, seed uint64) rvtrack.TaskOutcome {
	t0 := time.Now()
	b := t.Budget()
	var graded []rv.Planet
	var res rvgate.Result
	made, done := 0, false
	judge := func(planets []rv.Planet, jit float64) rvgate.Feedback {
		st := rvgate.StatusAt(b, time.Since(t0), nil)
		if made >= b.Submissions || !st.WithinBudget {
			return rvgate.Feedback{Task: t.TaskID, SubmissionsLeft: b.Submissions - made, BudgetStatus: st, TaskPassed: done}
		}
		made++
		r := rvgate.Evaluate(t, planets, jit)
		if !done {
			graded, res, done = planets, r, r.Passed
		}
		return rvgate.FeedbackFor(t.TaskID, made, b.Submissions-made, r, st, done)
	}
	solve(t.Data(), t.Config.Star.MStarSun, seed, b.Submissions, judge)
	if made == 0 {
		graded, res = nil, rvgate.Evaluate(t, nil, 0)
	}
	o := rvtrack.TaskOutcome{Task: t.TaskID, Tier: t.Tier(), Solvable: rvgate.CheckTruth(t).Solvable, NTruth: len(t.Config.Planets),
		Result: res, Seconds: time.Since(t0).Seconds(), Submissions: made}
	for _, p := range graded {
		o.Periods = append(o.Periods, p.PeriodDays)
	}
	return o
}

// ClassicalSolver is the classical pipeline (rv.Classical: periods from 0.2 d, each peak's daily and yearly
// aliases fitted too, Kipping's eccentricity prior, a planet added when the BIC with a fitted jitter drops by
// 6 ln N and the residual periodogram's empirical false-alarm probability is below 1 %) with one more rule:
// the new planet's periodogram peak must have an analytic false-alarm probability below 5 % (MaxFAP). The
// evidence bar is never relaxed to reach the gate's ok_rms limit: on real data, whose scatter exceeds their
// quoted errors, that relaxation added planets up to the cap.
func ClassicalSolver(d *rv.Data, _ float64, seed uint64) ([]rv.Planet, float64) {
	fit := rv.Classical(d, rv.ClassicalOptions{Seed: seed, MaxFAP: ClassicalMaxFAP})
	return fit.Planets, 0
}

// ClassicalMaxFAP is the false-alarm probability the classical solvers ask of a planet added to a model that
// already meets the gate's truth-free criteria: the conventional 5 %, as rv.Search uses.
const ClassicalMaxFAP = 0.05

// ClassicalThoroughSolver is the classical pipeline with rv.ClassicalOptions.Thorough: alias and harmonic
// candidates, eccentric starts, joint refits and a final re-peel, under the same acceptance rules as
// ClassicalSolver.
func ClassicalThoroughSolver(d *rv.Data, _ float64, seed uint64) ([]rv.Planet, float64) {
	fit := rv.Classical(d, rv.ClassicalOptions{Seed: seed, Thorough: true, MaxFAP: ClassicalMaxFAP})
	return fit.Planets, 0
}

// SearchSolver runs rv.SearchGP, the classical pipeline with alias and harmonic candidates, eccentric
// starts, Kipping's eccentricity prior, a jitter-aware BIC and a false-alarm test on each new planet and a
// stellar-rotation Gaussian process when the residuals call for one. It submits the white jitter that
// maximises the likelihood of its model (at least the quoted errors on a sparse series).
func SearchSolver(d *rv.Data, _ float64, _ uint64) ([]rv.Planet, float64) {
	fit, _ := rv.SearchGP(d, rv.SearchOptions{})
	return fit.Planets, rv.BestJitter(d, fit.Planets)
}

// HonestSolver runs rv.Honest (per-instrument offsets and jitters, Kipping's eccentricity prior, a false-alarm
// test before each planet, a stellar-activity term when the residuals ask for one; "no planet" when nothing is
// significant) and submits the single jitter of
// greatest likelihood for its planets, as the gate takes one.
func HonestSolver(d *rv.Data, _ float64, _ uint64) ([]rv.Planet, float64) {
	res := rv.Honest(d, rv.HonestOptions{})
	return res.Planets, rv.BestJitter(d, res.Planets)
}
