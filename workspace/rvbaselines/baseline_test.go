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
