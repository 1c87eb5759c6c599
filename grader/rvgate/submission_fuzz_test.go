package rvgate

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"transitbench/data/stargazer"
)

// FuzzParseSubmission checks the submission path on arbitrary bytes: ParseSubmission and Resolve (against a
// published synthetic task) either fail with ErrBadSubmission, or give planets with 0 < P, 0 < K, 0 ≤ e < 1 and
// finite angles within the bounds, and the gate's result on them then encodes as JSON (no ±Inf or NaN, which
// failed 'rv submit --json' for K = 1e160). Seeds: the truth of published tasks written as submissions, in
// each phase form, and the forms of the format.
func FuzzParseSubmission(f *testing.F) {
	task, err := stargazer.ReadFile(filepath.Join(sharedDir, "synthetic", "seed49_diff5.json"))
	if err != nil {
		f.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
	}
	for _, id := range []string{"synthetic/seed49_diff5", "synthetic/seed10_diff10", "real/real_020"} {
		t, err := stargazer.ReadFile(filepath.Join(sharedDir, id+".json"))
		if err != nil {
			f.Fatal(err)
		}
		b, _ := json.Marshal(FromPlanets(t.TruthPlanets(), 1.5))
		f.Add(b)
		b, _ = json.Marshal(t.Config.Planets) // the task file's own planet form (m_sin_i_mjup, l_rad, …)
		f.Add(b)
	}
	b, _ := os.ReadFile(filepath.Join(sharedDir, "synthetic", "seed49_diff5.json"))
	f.Add(b) // a whole task file: unknown fields
	f.Add([]byte(`[{"P_days": 10, "K_ms": 1e160, "e": 0.1, "omega_rad": 1, "M0_rad": 0}]`))
	f.Add([]byte(`{"planets": [{"P_days": 3.2, "m_sin_i_mjup": 0.5, "e": 0, "omega_rad": 0, "t_peri_days": 12}], "jitter_ms": 2}`))
	f.Add([]byte(`[]`))
	mStar, tRef := task.Config.Star.MStarSun, task.Observations.TimesDays[0]
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSubmission(b)
		if err != nil {
			if !errors.Is(err, ErrBadSubmission) {
				t.Fatalf("error %v does not wrap ErrBadSubmission", err)
			}
			return
		}
		ps, err := s.Resolve(mStar, tRef)
		if err != nil {
			if !errors.Is(err, ErrBadSubmission) {
				t.Fatalf("error %v does not wrap ErrBadSubmission", err)
			}
			return
		}
		if len(ps) != len(s.Planets) || len(ps) > MaxPlanets || !(s.JitterMS >= 0 && s.JitterMS <= MaxKMS) {
			t.Fatalf("%d planets from %d, jitter %g", len(ps), len(s.Planets), s.JitterMS)
		}
		for i, p := range ps {
			if !(p.PeriodDays > 0 && p.PeriodDays <= MaxPeriodDays) || !(p.KMS > 0 && p.KMS <= MaxKMS) || !(p.E >= 0 && p.E < 1) ||
				!(math.Abs(p.OmegaRad) <= MaxAngleRad) || math.IsNaN(p.M0Rad) || math.IsInf(p.M0Rad, 0) {
				t.Fatalf("planet %d accepted: %+v", i, p)
			}
		}
		res := Evaluate(task, ps, s.JitterMS)
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("the gate's result does not encode: %v (%+v)", err, res)
		}
	})
}
