package rvbaselines

import (
	"context"
	"testing"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/workspace/internal/taskfixture"
)

// TestRunInteractiveBudget: a solver that keeps submitting gets the tier's submissions and no more; the
// feedback beyond them grades nothing, and the outcome counts what was made.
func TestRunInteractiveBudget(t *testing.T) {
	task := taskfixture.Load(t, "seed44_diff2")
	graded, refused := 0, 0
	greedy := func(d *rv.Data, _ float64, _ uint64, submissions int, judge Judge) {
		for range submissions + 3 {
			if fb := judge(nil, 0); fb.Passed == nil {
				refused++
			} else {
				graded++
			}
		}
	}
	rep := RunInteractive(context.Background(), []*stargazer.Task{task}, greedy, 1, nil)
	want := task.Budget().Submissions
	if graded != want || refused != 3 || rep.Outcomes[0].Submissions != want {
		t.Errorf("graded %d, refused %d, outcome submissions %d; want %d graded, 3 refused", graded, refused, rep.Outcomes[0].Submissions, want)
	}
	if rep.Outcomes[0].Result.Passed || rep.Outcomes[0].Result.NGuess != 0 {
		t.Errorf("empty submissions graded as %+v", rep.Outcomes[0].Result)
	}
}

// TestExpertOnPublishedTiers runs the expert pipeline and the classical one over the published Easy, Medium
// and Hard tasks. The expert's first submission is the classical model, so it passes every task classical
// passes; it must also find the planet count on more Hard tasks and pass more of them, within the tier's
// submissions. (Full numbers: 'transitbench rv baseline expert'.)
func TestExpertOnPublishedTiers(t *testing.T) {
	all, _, err := stargazer.LoadDir(taskfixture.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []*stargazer.Task
	for _, task := range all {
		if task.Tier() != stargazer.TierReal {
			tasks = append(tasks, task)
		}
	}
	classical := RunBaseline(context.Background(), tasks, ClassicalSolver, 0, nil)
	expert := RunInteractive(context.Background(), tasks, ExpertSolver, 0, nil)
	byTask := map[string]bool{}
	for _, o := range expert.Outcomes {
		byTask[o.Task] = o.Result.Passed
		if o.Submissions < 1 || o.Submissions > stargazer.BudgetFor(o.Tier).Submissions {
			t.Errorf("%s: %d submissions, budget %d", o.Task, o.Submissions, stargazer.BudgetFor(o.Tier).Submissions)
		}
	}
	for _, o := range classical.Outcomes {
		if o.Result.Passed && !byTask[o.Task] {
			t.Errorf("%s: classical passes, expert does not", o.Task)
		}
	}
	for _, tier := range []string{stargazer.TierEasy, stargazer.TierMedium, stargazer.TierHard} {
		c, e := classical.Tiers[tier], expert.Tiers[tier]
		t.Logf("%s: classical %d/%d (count right %.0f %%), expert %d/%d (count right %.0f %%)", tier, c.Passed, c.Tasks,
			100*c.Criteria.OKCount, e.Passed, e.Tasks, 100*e.Criteria.OKCount)
	}
	c, e := classical.Tiers[stargazer.TierHard], expert.Tiers[stargazer.TierHard]
	if e.Passed <= c.Passed || e.Criteria.OKCount <= c.Criteria.OKCount {
		t.Errorf("hard: expert passes %d with the count right on %.0f %%, classical %d and %.0f %%", e.Passed,
			100*e.Criteria.OKCount, c.Passed, 100*c.Criteria.OKCount)
	}
}
