package rvbaselines

import (
	"context"
	"math"
	"sync"
	"testing"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
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
// passes, and it must meet the strict match (every true planet matched) on at least as many tasks in every
// tier, within the tier's submissions. Every model it submits after the two evidence models (classical,
// honest) must be one the data support about as well: its EvidenceBIC within ExpertCloseBIC of the best of
// the models submitted and of the evidence models; a model chosen by the feedback alone (a count the data do
// not support) fails that. (Full numbers: 'transitbench rv baseline expert'.)
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
	type record struct {
		d      *rv.Data
		seed   uint64
		models [][]rv.Planet
	}
	var mu sync.Mutex
	records := map[*rv.Data]*record{}
	spy := func(d *rv.Data, mStar float64, seed uint64, submissions int, judge Judge) {
		r := &record{d: d, seed: seed}
		mu.Lock()
		records[d] = r
		mu.Unlock()
		ExpertSolver(d, mStar, seed, submissions, func(planets []rv.Planet, jit float64) rvgate.Feedback {
			r.models = append(r.models, planets)
			return judge(planets, jit)
		})
	}
	classical := RunBaseline(context.Background(), tasks, ClassicalSolver, 0, nil)
	expert := RunInteractive(context.Background(), tasks, spy, 0, nil)
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
	strict := func(rep *BaselineReport, tier string) (n int) {
		for _, o := range rep.Outcomes {
			if o.Tier == tier && o.Result.Passed && o.Result.OKMatchStrict {
				n++
			}
		}
		return n
	}
	for _, tier := range []string{stargazer.TierEasy, stargazer.TierMedium, stargazer.TierHard} {
		c, e := classical.Tiers[tier], expert.Tiers[tier]
		cs, es := strict(classical, tier), strict(expert, tier)
		t.Logf("%s: classical %d/%d (strict %d), expert %d/%d (strict %d)", tier, c.Passed, c.Tasks, cs, e.Passed, e.Tasks, es)
		if es < cs {
			t.Errorf("%s: expert meets the strict match on %d tasks, classical on %d", tier, es, cs)
		}
	}
	alternatives := 0
	for _, r := range records {
		ev := func(ps []rv.Planet) float64 { return rv.EvidenceBIC(r.d, ps) }
		classical := rv.Classical(r.d, rv.ClassicalOptions{Seed: r.seed, MaxFAP: ClassicalMaxFAP}).Planets
		honest := rv.Honest(r.d, rv.HonestOptions{}).Planets
		best := math.Min(ev(classical), ev(honest))
		for _, m := range r.models {
			best = math.Min(best, ev(m))
		}
		for i, m := range r.models {
			if sameModel(m, classical) || sameModel(m, honest) {
				continue
			}
			alternatives++
			if ev(m) > best+ExpertCloseBIC+1e-9 {
				t.Errorf("submission %d (%d planets) lies %.1f above the best supported model", i+1, len(m), ev(m)-best)
			}
		}
	}
	if alternatives == 0 {
		t.Errorf("no alternative model was submitted on any task: the rule was not exercised")
	}
	t.Logf("%d alternative models submitted", alternatives)
}
