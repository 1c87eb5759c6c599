package rvbaselines

import (
	"context"
	"testing"

	"transitbench/data/stargazer"
	"transitbench/workspace/internal/taskfixture"
	"transitbench/workspace/rvtrack"
)

// TestBaselineHandful runs both pipelines on four published tasks through RunBaseline: three easy tasks that
// the classical pipeline solves in the full run (SPEC B4 quotes 95 % on Easy) and one real task, which it
// cannot solve (real tasks: 0 % for every published method). The full run is 'transitbench rv baseline'.
func TestBaselineHandful(t *testing.T) {
	var tasks []*stargazer.Task
	for _, id := range []string{"seed44_diff2", "seed503_diff2", "seed1108_diff2", "real_010"} {
		tasks = append(tasks, taskfixture.Load(t, id))
	}
	for name, solve := range map[string]Solver{"classical": ClassicalSolver, "search": SearchSolver} {
		done := 0
		rep := RunBaseline(context.Background(), tasks, solve, 2, func(int, int, rvtrack.TaskOutcome) { done++ })
		if done != 4 || len(rep.Outcomes) != 4 {
			t.Fatalf("%s: %d progress calls, %d outcomes, want 4", name, done, len(rep.Outcomes))
		}
		easy := rep.Tiers["easy"]
		if easy == nil || easy.Tasks != 3 || easy.Passed != 3 || easy.PassRate != 1 || easy.SolvableTasks != 3 {
			t.Errorf("%s: easy summary %+v, want 3/3 passed", name, easy)
		}
		real := rep.Tiers["real"]
		if real == nil || real.Tasks != 1 || real.Passed != 0 || real.SolvableTasks != 0 || real.PassedFair == nil {
			t.Errorf("%s: real summary %+v", name, real)
		}
	}
}

// TestBaselineResultIndependentOfCompany: a task's outcome is the same whether it runs alone or after other
// tasks (its solver's seed comes from its id, not its place in the list).
func TestBaselineResultIndependentOfCompany(t *testing.T) {
	hard := taskfixture.Load(t, "seed17_diff8")
	alone := RunBaseline(context.Background(), []*stargazer.Task{hard}, ClassicalSolver, 1, nil)
	others := []*stargazer.Task{taskfixture.Load(t, "seed44_diff2"), taskfixture.Load(t, "seed503_diff2"), hard}
	with := RunBaseline(context.Background(), others, ClassicalSolver, 2, nil)
	a, b := alone.Outcomes[0], with.Outcomes[2]
	if a.Task != b.Task || a.Result != b.Result || len(a.Periods) != len(b.Periods) {
		t.Fatalf("alone %+v\nwith others %+v", a, b)
	}
	for i := range a.Periods {
		if a.Periods[i] != b.Periods[i] {
			t.Errorf("period %d: %v alone, %v with others", i, a.Periods[i], b.Periods[i])
		}
	}
}
