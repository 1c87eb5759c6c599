package rv

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// uspActive is a series a ground-based spectrograph could take of an active star with an ultra-short-period
// planet: one point a night, near local midnight (±1 h), on 110 of 160 nights, quoted σ = 1.5 m/s, one
// instrument. The velocities are the Keplerian forward model of the planet plus a draw of the quasi-periodic
// rotation kernel (RotationGP, σ = activityMS at a 23 d rotation, the Stargazer generator's kernel shape) plus
// white noise of the quoted σ.
func uspActive(seed uint64, planet Planet, activityMS float64) *Data {
	r := rand.New(rand.NewPCG(seed, 23))
	var tt []float64
	for night := range 160 {
		if r.Float64() >= 110.0/160 {
			continue
		}
		// The star is up for about six hours around its meridian passage, which comes 3.94 min earlier each
		// night; a point is taken at a random time in that window, and on a quarter of the nights a second
		// one (as a campaign on an ultra-short-period planet schedules them, to tell its daily aliases apart).
		meridian := float64(night) + 0.5 + 0.2 - float64(night)*0.00273791
		for k := range 2 {
			if k == 0 || r.Float64() < 0.25 {
				tt = append(tt, meridian+0.25*(r.Float64()-0.5))
			}
		}
	}
	n := len(tt)
	sig := make([]float64, n)
	for i := range sig {
		sig[i] = 1.5
	}
	d, err := NewData(tt, make([]float64, n), sig, nil)
	if err != nil {
		panic(err)
	}
	// Activity plus white noise: L z with C = K_rot + diag(σ²) = L Lᵀ.
	w, err := NewWhitener(d, RotationGP{SigmaMS: activityMS, PeriodDays: 23, Q0: 5, DQ: 1, F: 0.5}, 0)
	if err != nil {
		panic(err)
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	y := make([]float64, n)
	ModelRV(y, tt, tt[0], []Planet{planet})
	for i := range n {
		for j := 0; j <= i; j++ {
			y[i] += w.l[i*n+j] * z[j]
		}
	}
	d.RVs = y
	return d
}

// TestHonestUSPWithActivity: a planet at 0.7365 d (K = 4 m/s, the period of 55 Cnc e) in 110 nights of an
// active star (rotation 23 d, σ = 3 m/s). With the period floor at 1.5 d the search can only report the planet's
// daily alias near 2.79 d; from 0.2 d it finds the planet itself on every seed, its aliases decided by the fit.
// The activity term is what keeps the rotation out of the planet list: without it the residual rotation
// signal is reported as planets between 10 and 50 d on most seeds, with it on at most one.
func TestHonestUSPWithActivity(t *testing.T) {
	planet := Planet{PeriodDays: 0.7365, KMS: 4, M0Rad: 1.3}
	rotationPlanets := func(ps []Planet) bool {
		return slices.ContainsFunc(ps, func(p Planet) bool { return p.PeriodDays > 10 && p.PeriodDays < 50 })
	}
	const seeds = 8
	withAct, withoutAct, activityTerms := 0, 0, 0
	for seed := range uint64(seeds) {
		d := uspActive(seed, planet, 3)
		h := Honest(d, HonestOptions{})
		found := slices.ContainsFunc(h.Planets, func(p Planet) bool {
			return math.Abs(p.PeriodDays/planet.PeriodDays-1) < 1e-3 && math.Abs(p.KMS/planet.KMS-1) < 0.25
		})
		if !found {
			t.Errorf("seed %d: planets %+v, want one at 0.7365 d with K ≈ 4 m/s; steps %+v", seed, h.Planets, h.Steps)
		}
		old := Honest(d, HonestOptions{MinPeriodDays: 1.5, NoActivity: true})
		if slices.ContainsFunc(old.Planets, func(p Planet) bool { return math.Abs(p.PeriodDays/planet.PeriodDays-1) < 0.01 }) {
			t.Errorf("seed %d: the 1.5 d floor found the planet: the case tests nothing", seed)
		}
		if h.Activity != nil {
			activityTerms++
		}
		if rotationPlanets(h.Planets) {
			withAct++
		}
		if rotationPlanets(Honest(d, HonestOptions{NoActivity: true}).Planets) {
			withoutAct++
		}
	}
	t.Logf("activity term on %d of %d seeds; rotation reported as planets on %d with it, %d without", activityTerms, seeds, withAct, withoutAct)
	if withAct > 1 || withoutAct < seeds/2 {
		t.Errorf("rotation reported as planets on %d seeds with the activity term and %d without; want ≤ 1 and ≥ %d", withAct, withoutAct, seeds/2)
	}
}

// TestActivityFitRecoversSignal: the activity term fitted at the true period to a noiseless signal of its own
// form (two knots, coefficients drifting) reproduces it, so the linear solve and the basis agree.
func TestActivityFitRecoversSignal(t *testing.T) {
	d := synth(3, 80, 100, 1, nil)
	truth := &Activity{PeriodDays: 17, Knots: []float64{slices.Min(d.Times), slices.Max(d.Times)}, Coef: []float64{3, -1, 0.5, 0.2, 1, 2, -0.5, 0.7}}
	y := truth.Model(nil, d.Times)
	sig := make([]float64, d.Len())
	for i := range sig {
		sig[i] = 1
	}
	// 80 points over 100 d with P = 17 d ask for four knots: the two-knot signal is one of its shapes.
	got := fitActivity(d, y, sig, 17)
	if got == nil {
		t.Fatal("no fit")
	}
	m := got.Model(nil, d.Times)
	for i := range y {
		if math.Abs(m[i]-y[i]) > 1e-6 {
			t.Fatalf("point %d: model %g, signal %g", i, m[i], y[i])
		}
	}
}

// TestHonestResonantPairIsNotActivity: a 2:1 pair of planets (61.1 d and 30.1 d, K 210 and 90 m/s, as GJ 876
// b and c) puts power at a period and its harmonic, which is what the activity term models. The honest search
// must report the two planets, not take them for stellar rotation.
func TestHonestResonantPairIsNotActivity(t *testing.T) {
	pair := []Planet{{PeriodDays: 61.1, KMS: 210, E: 0.03, OmegaRad: 0.3, M0Rad: 1}, {PeriodDays: 30.1, KMS: 90, E: 0.22, OmegaRad: 4.6, M0Rad: 2}}
	for seed := range uint64(3) {
		d := synthJitter(400+seed, 160, 1500, 3, 3, pair)
		h := Honest(d, HonestOptions{})
		if h.Activity != nil {
			t.Errorf("seed %d: activity term at %.2f d; steps %+v", seed, h.Activity.PeriodDays, h.Steps)
		}
		for _, w := range pair {
			if !slices.ContainsFunc(h.Planets, func(p Planet) bool { return math.Abs(p.PeriodDays/w.PeriodDays-1) < 0.01 }) {
				t.Errorf("seed %d: no planet at %.1f d in %+v", seed, w.PeriodDays, h.Planets)
			}
		}
	}
}
