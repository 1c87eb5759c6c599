package rv

import (
	"math"
	"testing"
)

// TestClassicalFindsTwoPlanets runs the classical pipeline on a synthetic two-planet series with K/σ = 8 and 5:
// it must find both periods and stop there (the BIC gain of a third planet on pure noise is far below 6 ln N).
func TestClassicalFindsTwoPlanets(t *testing.T) {
	truth := []Planet{{PeriodDays: 11.2, KMS: 8, E: 0.2, OmegaRad: 1.2, M0Rad: 0.4}, {PeriodDays: 73, KMS: 5, E: 0.1, OmegaRad: 4, M0Rad: 2}}
	d := synth(11, 80, 400, 1, truth)
	fit := Classical(d, ClassicalOptions{})
	if len(fit.Planets) != 2 {
		t.Fatalf("found %d planets (%v), want 2", len(fit.Planets), fit.Planets)
	}
	for _, w := range truth {
		ok := false
		for _, p := range fit.Planets {
			if math.Abs(p.PeriodDays/w.PeriodDays-1) < 0.01 {
				ok = true
			}
		}
		if !ok {
			t.Errorf("period %.2f not found in %v", w.PeriodDays, fit.Planets)
		}
	}
	if s := Search(d, SearchOptions{}); len(s.Planets) != 2 {
		t.Errorf("Search found %d planets, want 2", len(s.Planets))
	}
}

// TestClassicalOnNoise: on pure noise the pipeline must return no planet.
func TestClassicalOnNoise(t *testing.T) {
	d := synth(12, 60, 300, 1, nil)
	if fit := Classical(d, ClassicalOptions{}); len(fit.Planets) != 0 {
		t.Errorf("found %d planets in noise: %v", len(fit.Planets), fit.Planets)
	}
	if fit, _ := SearchGP(d, SearchOptions{}); len(fit.Planets) != 0 {
		t.Errorf("SearchGP found %d planets in noise", len(fit.Planets))
	}
}

// TestWhitenerDiagonal: with a vanishing GP the whitener must reproduce the diagonal weighting — whitened
// residuals (y − γ)/σ with γ the weighted mean per instrument, and the same log-likelihood as Evaluate.
func TestWhitenerDiagonal(t *testing.T) {
	d := synth(13, 40, 200, 2, []Planet{{PeriodDays: 9, KMS: 4, M0Rad: 1}})
	w, err := NewWhitener(d, RotationGP{SigmaMS: 0, PeriodDays: 20, Q0: 1, DQ: 0.3, F: 0.5}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := append([]float64(nil), d.RVs...)
	w.whiten(r)
	ev := d.Evaluate(nil, 0)
	for i := range r {
		if want := ev.Residuals[i] / d.Sigmas[i]; math.Abs(r[i]-want) > 1e-9 {
			t.Fatalf("point %d: whitened %g, want %g", i, r[i], want)
		}
	}
	if math.Abs(w.LnL(r)-ev.LnL) > 1e-9 {
		t.Errorf("lnL %g, want %g", w.LnL(r), ev.LnL)
	}
	// The rotation kernel's variance at lag 0 is σ².
	if k := (RotationGP{SigmaMS: 1.7, PeriodDays: 20, Q0: 1, DQ: 0.3, F: 0.5}).Kernel(0); math.Abs(k-1.7*1.7) > 1e-12 {
		t.Errorf("Kernel(0) = %g, want 2.89", k)
	}
}

func BenchmarkClassical(b *testing.B) {
	truth := []Planet{{11.2, 8, 0.2, 1.2, 0.4}, {73, 5, 0.1, 4, 2}}
	d := synth(11, 80, 400, 1, truth)
	for b.Loop() {
		Classical(d, ClassicalOptions{})
	}
}

// TestRepeelMovesPlanetOffAlias: a two-planet model whose inner planet sits on the yearly alias of its true
// period (1/P′ = 1/P − 1/365.25, a local optimum of the least squares) is moved back to the true period by
// repeel, with a lower BIC; the outer planet stays.
func TestRepeelMovesPlanetOffAlias(t *testing.T) {
	truth := []Planet{{PeriodDays: 11.2, KMS: 8, E: 0.1, OmegaRad: 1.2, M0Rad: 0.4}, {PeriodDays: 73, KMS: 6, E: 0.1, OmegaRad: 4, M0Rad: 2}}
	d := synth(21, 70, 700, 1.5, truth)
	alias := 1 / (1/truth[0].PeriodDays - 1/365.25)
	opt := ClassicalOptions{}
	opt.defaults(d)
	fo := FitOptions{MinPeriodDays: opt.MinPeriodDays, MaxPeriodDays: opt.MaxPeriodDays}
	k, m0 := CircularStart(d, d.Evaluate(nil, 0).Residuals, alias)
	wrong, err := Fit(d, []Planet{{PeriodDays: alias, KMS: k, M0Rad: m0}, truth[1]}, fo)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(wrong.Planets[0].PeriodDays/truth[0].PeriodDays-1) < 0.01 {
		t.Fatalf("the start converged to the true period (%.3f d): no alias to leave", wrong.Planets[0].PeriodDays)
	}
	freq := FrequencyGrid(d.Span(), opt.MinPeriodDays, opt.MaxPeriodDays, opt.SamplesPerPeak)
	fixed := repeel(d, wrong, freq, opt, fo)
	if !(fixed.BIC < wrong.BIC) {
		t.Fatalf("repeel kept BIC %.1f (was %.1f)", fixed.BIC, wrong.BIC)
	}
	for i, w := range truth {
		if got := fixed.Planets[i].PeriodDays; math.Abs(got/w.PeriodDays-1) > 0.01 {
			t.Errorf("planet %d at %.3f d after repeel, true %.3f d", i, got, w.PeriodDays)
		}
	}
}

// TestClassicalRMSLimit: a planet with K = 0.75σ on 60 points lowers the BIC by about 8, well short of
// 6 ln N ≈ 24.6, so the strict search returns the offsets-only model (which fails ok_delta_bic whatever the
// truth); with RMSLimitFactor the empty model takes the planet, and the search stops there because the residual
// RMS is within 1.5σ. On data the strict search fits within both limits, the option changes nothing.
func TestClassicalRMSLimit(t *testing.T) {
	d := synth(1, 60, 200, 1, []Planet{{PeriodDays: 17.3, KMS: 0.75, M0Rad: 1}})
	if fit := Classical(d, ClassicalOptions{}); len(fit.Planets) != 0 {
		t.Fatalf("strict search kept %d planets, want 0", len(fit.Planets))
	}
	fit := Classical(d, ClassicalOptions{RMSLimitFactor: 1.5})
	if len(fit.Planets) != 1 || math.Abs(fit.Planets[0].PeriodDays/17.3-1) > 0.02 {
		t.Fatalf("relaxed search kept %v, want one planet near 17.3 d", fit.Planets)
	}
	if gain := NullFit(d).BIC - fit.BIC; gain <= 0 || gain >= 6*math.Log(60) {
		t.Errorf("BIC gain %.1f, want between 0 and 6 ln N", gain)
	}

	truth := []Planet{{PeriodDays: 11.2, KMS: 8, E: 0.2, OmegaRad: 1.2, M0Rad: 0.4}, {PeriodDays: 73, KMS: 5, E: 0.1, OmegaRad: 4, M0Rad: 2}}
	d = synth(11, 80, 400, 1, truth)
	a, b := Classical(d, ClassicalOptions{}), Classical(d, ClassicalOptions{RMSLimitFactor: 1.5})
	if len(a.Planets) != len(b.Planets) || a.BIC != b.BIC {
		t.Errorf("relaxed search changed a model within the limits: %v vs %v", a.Planets, b.Planets)
	}
}

// TestClassicalMaxFAP: a strong planet (K = 8σ) and a weak one (K = 1.2σ, a BIC gain far above 6 ln N on 150
// points, and residuals within 1.5σ once the strong one is fitted). Both periodogram peaks are far beyond any
// noise level, so MaxFAP = 0.05 keeps both. With an impossible level (1e-300) only the strong planet is kept,
// and only because the empty model, which the gate rejects whatever the truth, is exempt under
// RMSLimitFactor; without RMSLimitFactor the level applies to the first planet too.
func TestClassicalMaxFAP(t *testing.T) {
	truth := []Planet{{PeriodDays: 11.2, KMS: 8, E: 0.2, OmegaRad: 1.2, M0Rad: 0.4}, {PeriodDays: 73, KMS: 1.2, E: 0.1, OmegaRad: 4, M0Rad: 2}}
	d := synth(11, 150, 400, 1, truth)
	if fit := Classical(d, ClassicalOptions{MaxFAP: 0.05, RMSLimitFactor: 1.5}); len(fit.Planets) != 2 {
		t.Errorf("MaxFAP 0.05: %v, want 2 planets", fit.Planets)
	}
	fit := Classical(d, ClassicalOptions{MaxFAP: 1e-300, RMSLimitFactor: 1.5})
	if len(fit.Planets) != 1 || math.Abs(fit.Planets[0].PeriodDays/11.2-1) > 0.01 {
		t.Errorf("MaxFAP 1e-300 with RMSLimitFactor: %v, want the 11.2 d planet alone", fit.Planets)
	}
	if fit := Classical(d, ClassicalOptions{MaxFAP: 1e-300}); len(fit.Planets) != 0 {
		t.Errorf("MaxFAP 1e-300: %d planets, want 0", len(fit.Planets))
	}
}
