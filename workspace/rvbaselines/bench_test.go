package rvbaselines

import (
	"context"
	"fmt"
	"testing"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/internal/taskfixture"
)

// BenchmarkSolverTier runs each pipeline over a whole tier of the published tasks on one core (one worker; the
// expert pipeline with the tier's submissions);
// one op is the whole tier, so ns/op divided by the tier's task count is the time per task. Run it once:
//
//	go test -run '^$' -bench 'SolverTier' -benchtime 1x ./workspace/rvbaselines
func BenchmarkSolverTier(b *testing.B) {
	tasks, _, err := stargazer.LoadDir(taskfixture.Dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"classical", "honest", "expert"} {
		solve := map[string]InteractiveSolver{"classical": OneShot(ClassicalSolver), "honest": OneShot(HonestSolver),
			"expert": ExpertSolver}[name]
		for _, tier := range []string{stargazer.TierEasy, stargazer.TierMedium, stargazer.TierHard, stargazer.TierReal} {
			var in []*stargazer.Task
			for _, t := range tasks {
				if t.Tier() == tier {
					in = append(in, t)
				}
			}
			b.Run(fmt.Sprintf("%s/%s-%dtasks", name, tier, len(in)), func(b *testing.B) {
				for range b.N {
					rep := RunInteractive(context.Background(), in, solve, 1, nil)
					b.ReportMetric(float64(rep.Tiers[tier].Passed), "passed")
					b.ReportMetric(rep.Seconds/float64(len(in)), "s/task")
				}
			})
		}
	}
}

// BenchmarkHardCeiling measures how far the Hard tier can be passed by estimation: for every published Hard
// task whose own truth passes the gate, it fits the truth's planets by least squares started at the truth
// itself (no search: the right planet count and the right basin are given) and grades the fit. The "passed"
// metric is how many of those fits pass; a search cannot do better on these tasks than a fit that starts at
// the answer, except by luck.
//
//	go test -run '^$' -bench 'HardCeiling' -benchtime 1x ./workspace/rvbaselines
func BenchmarkHardCeiling(b *testing.B) {
	tasks, _, err := stargazer.LoadDir(taskfixture.Dir)
	if err != nil {
		b.Fatal(err)
	}
	var hard []*stargazer.Task
	for _, t := range tasks {
		if t.Tier() == stargazer.TierHard && rvgate.CheckTruth(t).Solvable {
			hard = append(hard, t)
		}
	}
	variants := []struct {
		name string
		fo   rv.FitOptions
	}{
		{"least-squares", rv.FitOptions{}},
		{"kipping-prior", rv.FitOptions{Kipping: true}},
		{"e-shrinkage-0.3", rv.FitOptions{ESigma: 0.3}},
		{"kipping-prior+jitter", rv.FitOptions{Kipping: true, FitJitter: true}},
	}
	for _, v := range variants {
		b.Run(fmt.Sprintf("%s-%dsolvable", v.name, len(hard)), func(b *testing.B) {
			for range b.N {
				passed := 0
				for _, t := range hard {
					fit, err := rv.Fit(t.Data(), t.TruthPlanets(), v.fo)
					if err == nil && rvgate.Evaluate(t, fit.Planets, fit.Jitter).Passed {
						passed++
					}
				}
				b.ReportMetric(float64(passed), "passed")
			}
		})
	}
}
