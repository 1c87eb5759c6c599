package rv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// synthJitter makes a two-instrument series (quoted σ = 1 m/s for both) from planets, with extra white jitter
// jitA and jitB on instruments A and B (offsets 10 and −5 m/s); every third point is B.
func synthJitter(seed uint64, n int, span, jitA, jitB float64, planets []Planet) *Data {
	return synthTwo(rand.New(rand.NewPCG(seed, 11)), n, span, planets, [2]float64{1, 1}, [2]float64{10, -5},
		[2]float64{math.Hypot(1, jitA), math.Hypot(1, jitB)})
}

func TestKippingPenaltyIsBetaPrior(t *testing.T) {
	lnBeta := func(e float64) float64 { return (KippingA-1)*math.Log(e) + (KippingB-1)*math.Log(1-e) }
	for _, pair := range [][2]float64{{0.05, 0.3}, {0.3, 0.95}, {0.1, 0.6}} {
		got := kippingPenalty(pair[1]) - kippingPenalty(pair[0])
		want := -2 * (lnBeta(pair[1]) - lnBeta(pair[0]))
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("penalty(%g) − penalty(%g) = %g, want −2 Δ ln Beta = %g", pair[1], pair[0], got, want)
		}
	}
	if p := kippingPenalty(0.95) - kippingPenalty(0); p < 13 || p > 14 {
		t.Errorf("e = 0.95 costs %g in χ² over a circle, want ≈ 13.4", p)
	}
	// The slope is the derivative of the penalty.
	for _, e := range []float64{0.05, 0.4, 0.9} {
		num := (kippingPenalty(e+1e-6) - kippingPenalty(e-1e-6)) / 2e-6
		if math.Abs(num-kippingSlope(e)) > 1e-4*math.Abs(num) {
			t.Errorf("slope at %g: %g, numeric %g", e, kippingSlope(e), num)
		}
	}
}

// TestEmpiricalFAP: on white noise neither false-alarm probability signals a detection; a sinusoid of
// amplitude 0.8 σ in 150 points is detected by both.
func TestEmpiricalFAP(t *testing.T) {
	for seed := range uint64(5) {
		noise := synthJitter(seed, 150, 500, 0, 0, nil)
		sig := synthJitter(seed, 150, 500, 0, 0, []Planet{{PeriodDays: 23.7, KMS: 0.8}})
		freq := FrequencyGrid(500, 1.5, 500, 10)
		band := freq[len(freq)-1] - freq[0]
		for _, c := range []struct {
			d      *Data
			detect bool
		}{{noise, false}, {sig, true}} {
			ev := c.d.Evaluate(nil, 0)
			p := GLS(nil, c.d.Times, ev.Residuals, c.d.Sigmas, freq)
			top := TopPeaks(freq, p, 1, 0.08)[0]
			fa, fe := FAP(top.Power, c.d.Len(), 500, band), EmpiricalFAP(p, 10)
			if c.detect && (fa > 1e-3 || fe > 1e-3) {
				t.Errorf("seed %d: signal at %.2f d: analytic FAP %.3g, empirical %.3g; want both < 0.001", seed, top.PeriodDays, fa, fe)
			}
			if !c.detect && (fa < 1e-3 || fe < 1e-3) {
				t.Errorf("seed %d: noise peak at %.2f d: analytic FAP %.3g, empirical %.3g; want both ≥ 0.001", seed, top.PeriodDays, fa, fe)
			}
		}
	}
}

// TestHonestRecoversPlanetAndJitters: one planet (K = 3 m/s) in two instruments whose extra jitters are
// 0.5 and 3 m/s; the search finds the planet alone, and per-instrument jitters and offsets near the truth.
func TestHonestRecoversPlanetAndJitters(t *testing.T) {
	truth := Planet{PeriodDays: 17.3, KMS: 3, E: 0.2, OmegaRad: 1, M0Rad: 2}
	d := synthJitter(4, 150, 600, 0.5, 3, []Planet{truth})
	res := Honest(d, HonestOptions{})
	if len(res.Planets) != 1 {
		t.Fatalf("%d planets %+v, want 1; steps %+v", len(res.Planets), res.Planets, res.Steps)
	}
	p := res.Planets[0]
	if math.Abs(p.PeriodDays/truth.PeriodDays-1) > 0.005 || math.Abs(p.KMS-truth.KMS) > 0.6 || p.E > 0.45 {
		t.Errorf("planet %+v, want near %+v", p, truth)
	}
	ja, jb := res.InstJitter[0], res.InstJitter[1]
	if d.Instruments[0] != "B" {
		t.Fatalf("instruments %v", d.Instruments)
	}
	ja, jb = jb, ja // d.Instruments is [B, A]: the first point is B
	if ja > 1.2 || jb < 2 || jb > 4.2 {
		t.Errorf("jitters A %.2f, B %.2f; want ≈ 0.5 and ≈ 3", ja, jb)
	}
	if math.Abs(res.Offsets[0]+5) > 1.2 || math.Abs(res.Offsets[1]-10) > 0.6 {
		t.Errorf("offsets %v, want −5 (B) and 10 (A)", res.Offsets)
	}
	last := res.Steps[len(res.Steps)-1]
	if last.Added || !res.Steps[0].Added || res.Steps[0].PeakFAP > 1e-6 {
		t.Errorf("steps %+v: want a planet then a stop", res.Steps)
	}
}

// TestHonestNoPlanetInNoise: series of pure noise with unequal jitters give no planet, and a single-jitter
// least-squares search would have been fooled less gracefully: no planet is the answer.
func TestHonestNoPlanetInNoise(t *testing.T) {
	for seed := range uint64(4) {
		d := synthJitter(100+seed, 60, 300, 1, 4, nil)
		res := Honest(d, HonestOptions{})
		if len(res.Planets) != 0 {
			t.Errorf("seed %d: %d planets %+v in noise; steps %+v", seed, len(res.Planets), res.Planets, res.Steps)
		}
		if len(res.Steps) != 1 || res.Steps[0].Reason != "no significant peak" {
			t.Errorf("seed %d: steps %+v", seed, res.Steps)
		}
	}
}

// TestHonestSparseTwoPlanets: 32 points over 120 days (quoted σ 1 m/s, jitters 1 and 2 m/s) of two planets near
// 20.9 d and 42.4 d with K = 5 m/s, the kind of series on which a least-squares search returned 2–3 d planets at
// e = 0.95 and K ≈ 80 m/s. Whatever the honest search reports must be physical: no orbit at e > 0.6, no K above
// twice the largest true one, no period outside the two true ones' within 3 %.
func TestHonestSparseTwoPlanets(t *testing.T) {
	truth := []Planet{{PeriodDays: 20.9, KMS: 5, E: 0.1, OmegaRad: 0.5, M0Rad: 1}, {PeriodDays: 42.4, KMS: 5, E: 0.05, OmegaRad: 2, M0Rad: 4}}
	for seed := range uint64(6) {
		d := synthJitter(200+seed, 32, 120, 1, 2, truth)
		res := Honest(d, HonestOptions{})
		for _, p := range res.Planets {
			near := math.Abs(p.PeriodDays/20.9-1) < 0.03 || math.Abs(p.PeriodDays/42.4-1) < 0.03
			if p.E > 0.6 || p.KMS > 10 || !near {
				t.Errorf("seed %d: reported %+v; steps %+v", seed, p, res.Steps)
			}
		}
		t.Logf("seed %d: %d planets", seed, len(res.Planets))
	}
}
