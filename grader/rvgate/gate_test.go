package rvgate

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/internal/testutil"
)

// sharedDir is the published task folder, beside the repository (never copied into it).
const sharedDir = "../../../shared/data/stargazer"

func load(t *testing.T, id string) *stargazer.Task {
	t.Helper()
	task, err := stargazer.ReadFile(testutil.StargazerTaskPath(sharedDir, id))
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestGateRealTruthReference compares the gate's RMS and ΔBIC/N of the published solutions of real tasks with
// an independent computation in plain Python from the task files (Kepler's equation by bisection, true anomaly
// by atan2, γ per instrument as the 1/σ²-weighted mean, lnL and BIC written out): the expected values below are
// its output.
func TestGateRealTruthReference(t *testing.T) {
	ref := []struct {
		id            string
		rms, dbic     float64
		okRMS, okDBIC bool
	}{
		{"real_010", 8.62519795185181, 1889.9168012221296, false, true},
		{"real_018", 3.057975807572417, 8.157983712200508, false, true},
		{"real_007", 70.35642006242634, -578.3458227005746, false, false},
		{"real_013", 2.5049433999045565, -3.3180969558782833, false, false},
	}
	for _, c := range ref {
		task := load(t, c.id)
		r := CheckTruth(task)
		if math.Abs(r.RMSMS/c.rms-1) > 1e-9 || math.Abs(r.DeltaBICPerPoint/c.dbic-1) > 1e-9 {
			t.Errorf("%s: rms %.12g ΔBIC/N %.12g, reference %.12g %.12g", c.id, r.RMSMS, r.DeltaBICPerPoint, c.rms, c.dbic)
		}
		if r.OKRMS != c.okRMS || r.OKDeltaBIC != c.okDBIC || !r.OKMatch || !r.OKCount || r.MatchScore != 1 {
			t.Errorf("%s: verdicts %+v", c.id, r)
		}
		// The fair criterion lifts the RMS threshold to the truth's own RMS, which the truth then meets.
		if r.OKRMSFair == nil || !*r.OKRMSFair || *r.PassedFair != c.okDBIC {
			t.Errorf("%s: fair criterion %v %v, want ok_rms_fair and passed_fair = ok_delta_bic", c.id, r.OKRMSFair, r.PassedFair)
		}
	}
}

// slowModel is an independent forward model: bisection for Kepler's equation, ν = 2 atan2(√(1+e) sin(E/2),
// √(1−e) cos(E/2)), K from m sin i written out, M0 = l − Ω − ω.
func slowModel(task *stargazer.Task) []float64 {
	o := task.Observations
	out := make([]float64, len(o.TimesDays))
	ms := task.Config.Star.MStarSun
	for _, p := range task.Config.Planets {
		k := 28.4329 * p.MSinIMJup * math.Pow(ms, -2.0/3) * math.Cbrt(365.25/p.PDays) / math.Sqrt(1-p.E*p.E)
		for i, tt := range o.TimesDays {
			M := math.Mod(p.LRad-p.OmegaNodeRad-p.OmegaRad+2*math.Pi*(tt-o.TimesDays[0])/p.PDays, 2*math.Pi)
			if M < 0 {
				M += 2 * math.Pi
			}
			lo, hi := 0.0, 2*math.Pi
			for range 200 {
				mid := (lo + hi) / 2
				if mid-p.E*math.Sin(mid) < M {
					lo = mid
				} else {
					hi = mid
				}
			}
			E := (lo + hi) / 2
			nu := 2 * math.Atan2(math.Sqrt(1+p.E)*math.Sin(E/2), math.Sqrt(1-p.E)*math.Cos(E/2))
			out[i] += k * (math.Cos(nu+p.OmegaRad) + p.E*math.Cos(p.OmegaRad))
		}
	}
	return out
}

// TestGateSyntheticTruthIndependent recomputes RMS and ΔBIC/N of the converted truth of several synthetic
// tasks with slowModel and plain sums (one instrument: γ = the plain mean, since every σ is equal).
func TestGateSyntheticTruthIndependent(t *testing.T) {
	for _, id := range []string{"seed13_diff10", "seed20_diff3", "seed11_diff6", "seed1108_diff2", "seed93_diff9"} {
		task := load(t, id)
		o := task.Observations
		n := float64(len(o.TimesDays))
		m := slowModel(task)
		s := o.SigmasMS[0]
		stats := func(model []float64) (rms, lnL float64) {
			mean := 0.0
			for i := range o.RVsMS {
				mean += o.RVsMS[i] - model[i]
			}
			mean /= n
			for i := range o.RVsMS {
				r := o.RVsMS[i] - model[i] - mean
				rms += r * r
				lnL -= 0.5 * (r*r/(s*s) + math.Log(2*math.Pi*s*s))
			}
			return math.Sqrt(rms / n), lnL
		}
		rms, lnL := stats(m)
		_, lnL0 := stats(make([]float64, len(m)))
		k := float64(5*len(task.Config.Planets) + 1)
		dbic := ((-2*lnL0 + math.Log(n)) - (-2*lnL + k*math.Log(n))) / n
		r := CheckTruth(task)
		if math.Abs(r.RMSMS/rms-1) > 1e-9 || math.Abs(r.DeltaBICPerPoint-dbic) > 1e-9*math.Max(1, math.Abs(dbic)) {
			t.Errorf("%s: gate rms %.12g ΔBIC/N %.12g, independent %.12g %.12g", id, r.RMSMS, r.DeltaBICPerPoint, rms, dbic)
		}
		if r.OKRMS != (rms <= 1.5*s) || r.OKDeltaBIC != (dbic > 0) {
			t.Errorf("%s: verdicts %v %v disagree with rms %.4g (limit %.4g) and ΔBIC/N %.4g", id, r.OKRMS, r.OKDeltaBIC, rms, 1.5*s, dbic)
		}
	}
}

// TestTruthCheckCounts runs the truth of all 120 published tasks through the gate. SPEC B3 quotes, from an
// independent computation: Easy 20/20, Medium 35/40, Hard 20/40, Real 0/20, every real task failing ok_rms and
// half of them ok_delta_bic. Hard gives 21/40 here: the conversion integrates the stored configuration as an
// N-body system, and seed10_diff10 (planets at 296 and 300 days beside a 1.2 M_J one at 127 days) carries
// mutual perturbations of up to 22 m/s that a non-interacting Keplerian stand-in leaves in the converted data,
// where they push the truth's RMS from 2.8 to 8.8 m/s, past the 3.2 m/s limit.
func TestTruthCheckCounts(t *testing.T) {
	tasks, _, err := stargazer.LoadDir(sharedDir)
	if err != nil {
		t.Fatal(err)
	}
	pass, total := map[string]int{}, map[string]int{}
	realRMS, realDBIC := 0, 0
	for _, task := range tasks {
		c := CheckTruth(task)
		total[c.Tier]++
		if c.Solvable {
			pass[c.Tier]++
		}
		if task.Real {
			if !c.OKRMS {
				realRMS++
			}
			if !c.OKDeltaBIC {
				realDBIC++
			}
		}
		if !c.OKMatch || c.MatchScore != 1 || !c.OKCount {
			t.Errorf("%s: the truth does not match itself: %+v", task.TaskID, c.Result)
		}
	}
	want := map[string][2]int{"easy": {20, 20}, "medium": {35, 40}, "hard": {21, 40}, "real": {0, 20}}
	for tier, w := range want {
		if pass[tier] != w[0] || total[tier] != w[1] {
			t.Errorf("%s: truth passes %d/%d, want %d/%d", tier, pass[tier], total[tier], w[0], w[1])
		}
	}
	if realRMS != 20 || realDBIC != 10 {
		t.Errorf("real tasks failing ok_rms %d (want 20), ok_delta_bic %d (want 10)", realRMS, realDBIC)
	}
}

func TestMatchScores(t *testing.T) {
	task := load(t, "seed1108_diff2")
	d := task.Data()
	truth := task.TruthPlanets()
	if s, st := Match(d, truth, truth); s != 1 || st != 1 {
		t.Errorf("truth against itself: %g %g, want 1 1", s, st)
	}
	// A planet twice the period away: d ≥ ln 2 from the period term alone.
	off := append([]rv.Planet(nil), truth...)
	off[0].PeriodDays *= 2
	if dist := Distance(d, truth[0], off[0]); dist < math.Ln2 {
		t.Errorf("distance to a doubled period %g < ln 2", dist)
	}
	// An extra spurious planet: S = 1 − 0.25 (the pairs still match perfectly); strict the same.
	extra := append(append([]rv.Planet(nil), truth...), rv.Planet{PeriodDays: 3.3, KMS: 1, M0Rad: 1})
	if s, st := Match(d, truth, extra); math.Abs(s-0.75) > 1e-12 || math.Abs(st-0.75) > 1e-12 {
		t.Errorf("with an extra planet: %g %g, want 0.75 0.75", s, st)
	}
	// Nothing submitted: −0.25 per missing planet.
	if s, _ := Match(d, truth, nil); s != -0.25*float64(len(truth)) {
		t.Errorf("empty submission scored %g", s)
	}
}

// TestMatchStrictOnMultiPlanet: submitting only the best of several planets keeps S at its single pair's
// score minus the count penalty, while S_strict divides by n_truth.
func TestMatchStrictOnMultiPlanet(t *testing.T) {
	task := load(t, "seed13_diff10") // three planets
	d := task.Data()
	truth := task.TruthPlanets()
	s, st := Match(d, truth, truth[:1])
	if math.Abs(s-(1-0.5)) > 1e-12 || math.Abs(st-(1.0/3-0.5)) > 1e-12 {
		t.Errorf("one of three: S %g (want 0.5), strict %g (want −1/6)", s, st)
	}
}

// TestFeedbackCarriesNoTruth marshals feedback for poor and perfect submissions and checks that no truth
// parameter (P, K, m sin i, e, ω, l, M0 of any true planet) appears among its numbers.
func TestFeedbackCarriesNoTruth(t *testing.T) {
	for _, id := range []string{"seed13_diff10", "seed1108_diff2", "real_018"} {
		task := load(t, id)
		truth := task.TruthPlanets()
		var secrets []float64
		for i, p := range truth {
			tp := task.Config.Planets[i]
			secrets = append(secrets, p.PeriodDays, p.KMS, p.E, p.OmegaRad, p.M0Rad, tp.MSinIMJup, tp.LRad)
		}
		guess := append([]rv.Planet(nil), truth...)
		guess[0].PeriodDays *= 1.01
		for _, sub := range [][]rv.Planet{truth, guess, truth[:1]} {
			tokens := 12_345
			fb := FeedbackFor(task.TaskID, 1, 2, Evaluate(task, sub, 0), StatusAt(task.Budget(), 42*time.Second, &tokens), false)
			b, err := json.Marshal(fb)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			json.Unmarshal(b, &m)
			for key, v := range m {
				x, ok := v.(float64)
				if !ok || x == 0 || x == 1 {
					continue
				}
				for _, s := range secrets {
					if math.Abs(x-s) <= 1e-9*math.Abs(s) {
						t.Errorf("%s: feedback field %s = %s equals a truth parameter", id, key, strconv.FormatFloat(x, 'g', -1, 64))
					}
				}
			}
			for _, banned := range []string{"P_days", "K_ms", "m_sin_i", "truth", "unmatched", "omega", "l_rad"} {
				if strings.Contains(string(b), banned) {
					t.Errorf("%s: feedback mentions %q: %s", id, banned, b)
				}
			}
		}
	}
}

func TestSubmissionResolve(t *testing.T) {
	in := `[{"P_days": 10, "K_ms": 5, "e": 0.2, "omega_rad": 1, "l_rad": 3},
	        {"P_days": 365.25, "m_sin_i_mjup": 1, "e": 0, "omega_rad": 0, "t_peri_days": 100}]`
	s, err := ParseSubmission([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.Resolve(1, 100)
	if err != nil {
		t.Fatal(err)
	}
	// M0 = l − ω = 2; the second planet passes periastron at t_ref so M0 = 0 and K = 28.4329 m/s.
	if math.Abs(ps[0].M0Rad-2) > 1e-12 || ps[1].M0Rad != 0 || math.Abs(ps[1].KMS-28.4329) > 1e-12 {
		t.Errorf("resolved %+v", ps)
	}
	for _, bad := range []string{
		`[{"P_days": 10, "K_ms": 5, "e": 1.0, "omega_rad": 1, "l_rad": 3}]`,
		`[{"P_days": -1, "K_ms": 5, "e": 0, "omega_rad": 1, "l_rad": 3}]`,
		`[{"P_days": 10, "e": 0, "omega_rad": 1, "l_rad": 3}]`,
		`[{"P_days": 10, "K_ms": 5, "e": 0, "omega_rad": 1}]`,
		`[{"P_days": 10, "K_ms": 5, "e": 0, "omega_rad": 1, "l_rad": 3, "M0_rad": 1}]`,
		`[{"P_days": 10, "K_ms": 5, "e": 0, "omega": 1, "l_rad": 3}]`,
		`{"planets": [], "jitter_ms": -1}`,
	} {
		s, err := ParseSubmission([]byte(bad))
		if err == nil {
			_, err = s.Resolve(1, 0)
		}
		if !errors.Is(err, ErrBadSubmission) {
			t.Errorf("%s: accepted (err %v)", bad, err)
		}
	}
	// e = 0.95 is accepted (the original clipped at 0.8).
	s, _ = ParseSubmission([]byte(`{"planets": [{"P_days": 10, "K_ms": 5, "e": 0.95, "omega_rad": 1, "M0_rad": 3}], "jitter_ms": 1.5}`))
	if ps, err := s.Resolve(1, 0); err != nil || ps[0].E != 0.95 || s.JitterMS != 1.5 {
		t.Errorf("e = 0.95 with jitter: %v %v", ps, err)
	}
}
