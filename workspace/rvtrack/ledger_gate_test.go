package rvtrack

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/internal/taskfixture"
)

// TestEmptySubmissionHidesPlanetCount submits no planets to three Medium tasks with 1, 2 and 3 true planets
// through the ledger (what 'rv submit' and the terminal UI do). The original's match score would be −0.25,
// −0.5 and −0.75 (−0.25 × n_truth, SPEC B3); the feedback must be identical across the three once what the data
// alone determine (rms_ms, max_rms_ms, delta_bic_per_point and their verdicts ok_rms, ok_delta_bic, which a dry
// run also shows) and the task id are set aside, and the ledger file the contestant can read must not hold the
// score either.
func TestEmptySubmissionHidesPlanetCount(t *testing.T) {
	path := ledgerIn(t)
	clock := newClock()
	var first map[string]any
	for n, id := range map[int]string{1: "seed11_diff6", 2: "seed0_diff6", 3: "seed64_diff6"} {
		task := taskfixture.Load(t, id)
		if got := len(task.Config.Planets); got != n {
			t.Fatalf("%s has %d true planets, the test wants %d", id, got, n)
		}
		if r := rvgate.Evaluate(task, nil, 0); math.Abs(r.MatchScore-(-0.25*float64(n))) > 1e-12 {
			t.Fatalf("%s: the empty submission's raw match score is %g, want −0.25 × %d: the leak this test guards is not there",
				id, r.MatchScore, n)
		}
		var fb rvgate.Feedback
		if err := withClock(path, clock, func(l *Ledger) error {
			var err error
			fb, err = l.Submit(task, nil, 0, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(fb)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"task", "rms_ms", "max_rms_ms", "delta_bic_per_point", "ok_rms", "ok_delta_bic"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: feedback lacks %s: %s", id, k, b)
			}
			delete(m, k)
		}
		if first == nil {
			first = m
			continue
		}
		if !reflect.DeepEqual(m, first) {
			t.Errorf("feedback of the empty submission differs with the planet count (%d planets): %v, first task: %v", n, m, first)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "match_score") {
		t.Errorf("the ledger file holds match scores:\n%s", raw)
	}
	l, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	if recs := l.Tasks["seed0_diff6"]; len(recs) != 1 || recs[0].Submission == nil || len(recs[0].Submission.Planets) != 0 {
		t.Errorf("the ledger does not keep the (empty) submission itself: %+v", recs)
	}
}

// TestLedgerRecordKeepsSubmission: a maintainer recomputes a recorded submission's full gate result from the
// submission the ledger keeps, and gets what the gate gave when it was made.
func TestLedgerRecordKeepsSubmission(t *testing.T) {
	task := taskfixture.Load(t, "seed1108_diff2")
	path := ledgerIn(t)
	truth := task.TruthPlanets()
	if err := withClock(path, newClock(), func(l *Ledger) error { _, err := l.Submit(task, truth, 1.5, nil); return err }); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := l.Tasks[task.TaskID][0]
	planets, err := rec.Submission.Resolve(task.Config.Star.MStarSun, task.Observations.TimesDays[0])
	if err != nil {
		t.Fatal(err)
	}
	want, got := rvgate.Evaluate(task, truth, 1.5), rvgate.Evaluate(task, planets, rec.Submission.JitterMS)
	if math.Abs(got.MatchScore-want.MatchScore) > 1e-9 || got.Passed != want.Passed || got.Passed != rec.Passed {
		t.Errorf("recomputed gate %+v, at submission %+v (record passed %v)", got, want, rec.Passed)
	}
}

// TestLedgerRecordsThreeGates submits, through the ledger, the least-squares fit started at the truth of
// seed29_diff3 (its 26.97 d planet lands at 26.35 d, within the data's σ_P ≈ 0.45 d) and then the truth: the
// first fails the original and the strict gates and passes the calibrated one, the second passes all three; the
// records, the ledger read back and the per-tier summary say so.
func TestLedgerRecordsThreeGates(t *testing.T) {
	task := taskfixture.Load(t, "seed29_diff3")
	path := ledgerIn(t)
	fit, err := rv.Fit(task.Data(), task.TruthPlanets(), rv.FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fb rvgate.Feedback
	if err := withClock(path, newClock(), func(l *Ledger) error {
		fb, err = l.Submit(task, fit.Planets, fit.Jitter, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if *fb.Passed || *fb.PassedStrict || !*fb.PassedCalibrated {
		t.Errorf("fit from the truth: feedback passed %v strict %v calibrated %v, want false false true", *fb.Passed, *fb.PassedStrict, *fb.PassedCalibrated)
	}
	l, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	if o, s, c := l.PassedGates(task.TaskID); o || s || !c {
		t.Errorf("after the fit: passed gates %v %v %v, want false false true", o, s, c)
	}
	if err := withClock(path, newClock(), func(l *Ledger) error { _, err := l.Submit(task, task.TruthPlanets(), 0, nil); return err }); err != nil {
		t.Fatal(err)
	}
	if l, err = OpenLedger(path); err != nil {
		t.Fatal(err)
	}
	if o, s, c := l.PassedGates(task.TaskID); !o || !s || !c {
		t.Errorf("after the truth: passed gates %v %v %v, want all true", o, s, c)
	}
	outs := []TaskOutcome{
		{Task: task.TaskID, Tier: task.Tier(), Solvable: true, Result: rvgate.Evaluate(task, fit.Planets, fit.Jitter)},
		{Task: task.TaskID, Tier: task.Tier(), Solvable: true, Result: rvgate.Evaluate(task, task.TruthPlanets(), 0)},
		{Task: "unsolvable", Tier: task.Tier(), Result: rvgate.Evaluate(task, task.TruthPlanets(), 0)},
	}
	s := Summarize(outs)[task.Tier()]
	if s.Passed != 2 || s.SolvablePassed != 1 || s.PassedStrict != 2 || s.SolvablePassedStrict != 1 ||
		s.PassedCalibrated != 3 || s.SolvablePassedCalibrated != 2 || math.Abs(s.PassRateCalibrated-1) > 1e-12 {
		t.Errorf("summary %+v", *s)
	}
}
