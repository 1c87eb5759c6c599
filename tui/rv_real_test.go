package tui

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"transitbench/data/stargazer"
	"transitbench/internal/testutil"
	"transitbench/workspace/rvtrack"
)

// publishedTasks reads the published RV tasks found from the test's working directory.
func publishedTasks(t *testing.T) []*stargazer.Task {
	t.Helper()
	dir, err := stargazer.LocateDir("")
	if err != nil {
		t.Fatalf("the published RV tasks are not found from here: %v", err)
	}
	tasks, _, err := stargazer.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

func TestRealBackendRVTasks(t *testing.T) {
	tasks := publishedTasks(t)
	home := t.TempDir()
	r := &Real{Home: home}
	ctx := context.Background()
	start := time.Now()
	list, err := r.RVTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("listed %d RV tasks in %v", len(list), time.Since(start).Round(time.Millisecond))
	if len(list) != len(tasks) {
		t.Fatalf("%d tasks listed, %d published", len(list), len(tasks))
	}
	tiers := map[string]int{}
	for _, m := range list {
		tiers[m.Tier]++
		if m.Left != m.Budget || m.Passed || m.Points < 10 || m.Instruments < 1 || !(m.SpanDays > 0) || !m.Deadline.IsZero() ||
			m.State.State != rvtrack.StateNotStarted {
			t.Errorf("row %+v", m)
		}
	}
	if tiers["easy"] != 20 || tiers["medium"] != 40 || tiers["hard"] != 40 || tiers["real"] != 20 {
		t.Errorf("tiers %v, want 20/40/40/20", tiers)
	}

	// An easy task: the view carries no truth, a fit from the truth passes the gate, and submissions are
	// recorded in the ledger of the data directory until the budget is spent.
	easy := tasks[0]
	if easy.Tier() != stargazer.TierEasy {
		t.Fatalf("first task %s is %s", easy.TaskID, easy.Tier())
	}
	// Loading a task not started without starting it is refused, and writes nothing.
	if _, err := r.LoadRVTask(ctx, easy.TaskID, false); !errors.Is(err, rvtrack.ErrNotStarted) {
		t.Errorf("loading a task not started: %v, want ErrNotStarted", err)
	}
	if _, err := os.Stat(rvtrack.LedgerPath(home)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("listing and loading without a start wrote the ledger: %v", err)
	}
	task, err := r.LoadRVTask(ctx, easy.TaskID, true)
	if err != nil {
		t.Fatal(err)
	}
	if task.View.TaskID != easy.TaskID || task.Data.Len() != len(easy.Observations.TimesDays) || task.Meta.Budget != 3 {
		t.Fatalf("loaded %s: %d points, budget %d", task.View.TaskID, task.Data.Len(), task.Meta.Budget)
	}
	// Starting the task started its clock: the Easy tier's 600 s run from now.
	if d := time.Until(task.Meta.Deadline); d > 600*time.Second || d < 500*time.Second {
		t.Errorf("deadline of the opened task is %v away, want about 600 s", d)
	}
	fit, err := r.FitRV(ctx, easy.TaskID, easy.TruthPlanets())
	if err != nil {
		t.Fatal(err)
	}
	a := rvtrack.Analyse(task.Data, task.MedianSigma, fit.Planets, fit.JitterMS, true)
	if !a.Metrics.OKRMS || !a.Metrics.OKDeltaBIC {
		t.Errorf("dry run of the fit from the truth: %+v", a.Metrics)
	}
	fb, err := r.SubmitRV(ctx, easy.TaskID, fit.Planets, fit.JitterMS)
	if err != nil {
		t.Fatal(err)
	}
	if fb.Passed == nil || !*fb.Passed || fb.SubmissionsLeft != 2 || fb.Submission != 1 || !fb.WithinBudget || !fb.TaskPassed {
		t.Errorf("feedback on the truth's fit: %+v", fb)
	}
	if _, err := os.Stat(rvtrack.LedgerPath(home)); err != nil {
		t.Errorf("no ledger: %v", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := r.SubmitRV(ctx, easy.TaskID, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.SubmitRV(ctx, easy.TaskID, fit.Planets, 0); !errors.Is(err, rvtrack.ErrBudgetSpent) {
		t.Errorf("a fourth submission on an easy task: %v", err)
	}
	// A fresh backend over the same data directory sees the spent budget and the pass.
	list, err = (&Real{Home: home}).RVTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if list[0].ID != easy.TaskID || list[0].Left != 0 || !list[0].Passed {
		t.Errorf("after three submissions the row is %+v", list[0])
	}
}

func TestRealBackendRVSearchAndRealTask(t *testing.T) {
	tasks := publishedTasks(t)
	r := &Real{Home: t.TempDir()}
	ctx := context.Background()
	easy := tasks[1]
	start := time.Now()
	fit, err := r.FitRV(ctx, easy.TaskID, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search on %s: %d planet(s) in %v", easy.TaskID, len(fit.Planets), time.Since(start).Round(time.Millisecond))
	task, err := r.LoadRVTask(ctx, easy.TaskID, true)
	if err != nil {
		t.Fatal(err)
	}
	if m := rvtrack.Analyse(task.Data, task.MedianSigma, fit.Planets, fit.JitterMS, true).Metrics; len(fit.Planets) == 0 || !m.OKDeltaBIC {
		t.Errorf("search on %s: %d planets, dry run %+v", easy.TaskID, len(fit.Planets), m)
	}
	// A real task: several instruments, absolute times; the analysis runs on its long span.
	var real *stargazer.Task
	for _, tk := range tasks {
		if tk.Tier() == stargazer.TierReal && len(tk.Data().Instruments) > 1 {
			real = tk
			break
		}
	}
	if real == nil {
		t.Fatal("no real task with several instruments")
	}
	rt, err := r.LoadRVTask(ctx, real.TaskID, true)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	a := rvtrack.Analyse(rt.Data, rt.MedianSigma, nil, 0, false)
	t.Logf("GLS of %s (%d points, %.0f d, %d frequencies) in %v", real.TaskID, rt.Data.Len(), rt.Data.Span(),
		len(a.Periods), time.Since(start).Round(time.Millisecond))
	if len(a.Eval.Offsets) != len(rt.Data.Instruments) || len(a.Peaks) == 0 {
		t.Errorf("real task analysis: %d offsets for %d instruments, %d peaks", len(a.Eval.Offsets), len(rt.Data.Instruments), len(a.Peaks))
	}
}

// TestRealBackendRVConcurrentSubmits: two backends on one data directory (as the terminal UI and a command-line
// submission would be) submit 8 times at once to an easy task (3 submissions): exactly 3 are recorded.
func TestRealBackendRVConcurrentSubmits(t *testing.T) {
	home := t.TempDir()
	backends := []*Real{{Home: home}, {Home: home}}
	ctx := context.Background()
	id := publishedTasks(t)[0].TaskID
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = backends[i%2].SubmitRV(ctx, id, nil, 0)
		})
	}
	wg.Wait()
	ok, spent := testutil.CountErrors(t, errs, rvtrack.ErrBudgetSpent)
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(home))
	if err != nil {
		t.Fatal(err)
	}
	if ok != 3 || spent != 5 || l.Used(id) != 3 {
		t.Errorf("%d recorded, %d refused, %d in the ledger; want 3, 5 and 3", ok, spent, l.Used(id))
	}
}
