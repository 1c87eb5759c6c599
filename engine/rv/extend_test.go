package rv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// twoPlanetSeries is 80 uneven epochs over 400 days of a 41.3 d, K 12 m/s planet and a 9.7 d, K 4 m/s one on
// a 2 m/s white-noise floor (seeded), in two instruments with different offsets.
func twoPlanetSeries(t *testing.T) (*Data, []Planet) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	truth := []Planet{{PeriodDays: 41.3, KMS: 12, E: 0.1, OmegaRad: 1, M0Rad: 2}, {PeriodDays: 9.7, KMS: 4, M0Rad: 0.5}}
	n := 80
	ts, ys, ss := make([]float64, n), make([]float64, n), make([]float64, n)
	inst := make([]string, n)
	for i := range n {
		ts[i] = 2455000 + 400*float64(i)/float64(n) + 2*rng.Float64()
		ss[i] = 2
		inst[i] = "A"
		if i%3 == 0 {
			inst[i] = "B"
		}
	}
	ModelRV(ys, ts, ts[0], truth)
	for i := range ys {
		ys[i] += 2 * rng.NormFloat64()
		if inst[i] == "B" {
			ys[i] += 30
		}
	}
	d, err := NewData(ts, ys, ss, inst)
	if err != nil {
		t.Fatal(err)
	}
	return d, truth
}

func TestExtendFindsBothPlanets(t *testing.T) {
	d, truth := twoPlanetSeries(t)
	f := Extend(d, NullFit(d), 2, ExtendOptions{Fit: FitOptions{ESigma: 0.3}})
	if len(f.Planets) != 2 {
		t.Fatalf("Extend to 2 planets returned %d", len(f.Planets))
	}
	for _, tp := range truth {
		found := false
		for _, p := range f.Planets {
			if math.Abs(p.PeriodDays/tp.PeriodDays-1) < 0.01 && math.Abs(p.KMS/tp.KMS-1) < 0.25 {
				found = true
			}
		}
		if !found {
			t.Errorf("planet P %.1f d K %.1f m/s not recovered: %+v", tp.PeriodDays, tp.KMS, f.Planets)
		}
	}
	// Extending further adds a third planet whatever its evidence; the start is left as it was.
	g := Extend(d, f, 3, ExtendOptions{Fit: FitOptions{ESigma: 0.3}})
	if len(g.Planets) != 3 || len(f.Planets) != 2 {
		t.Errorf("Extend to 3: %d planets (start now %d)", len(g.Planets), len(f.Planets))
	}
	if g.Chi2 > f.Chi2 {
		t.Errorf("a third planet raised χ² from %.1f to %.1f", f.Chi2, g.Chi2)
	}
	// An alternative for the last planet is a different model of the same size, fitting no better.
	alt := Extend(d, NullFit(d), 2, ExtendOptions{Fit: FitOptions{ESigma: 0.3}, Alternative: 1})
	if len(alt.Planets) != 2 || alt.Chi2 < f.Chi2-1e-6 {
		t.Errorf("alternative: %d planets, χ² %.1f vs best %.1f", len(alt.Planets), alt.Chi2, f.Chi2)
	}
}

func TestDropWeakest(t *testing.T) {
	d, _ := twoPlanetSeries(t)
	f := Extend(d, NullFit(d), 2, ExtendOptions{Fit: FitOptions{ESigma: 0.3}})
	g := DropWeakest(d, f, FitOptions{ESigma: 0.3})
	if len(g.Planets) != 1 || math.Abs(g.Planets[0].PeriodDays/41.3-1) > 0.01 {
		t.Errorf("DropWeakest kept %+v, want the 41.3 d planet", g.Planets)
	}
	if z := DropWeakest(d, g, FitOptions{}); len(z.Planets) != 0 || z.BIC != NullFit(d).BIC {
		t.Errorf("dropping the last planet gave %+v", z.Planets)
	}
}

// TestAliasAlternativesReachTheTruePeriod: a nightly series of a 0.7365 d planet fitted at its daily alias
// (1/P′ = 1/P − 1/0.99727 d: 2.79 d, a local optimum) offers, among its alias alternatives, the true period
// with a lower EvidenceBIC; every alternative keeps the model's size.
func TestAliasAlternativesReachTheTruePeriod(t *testing.T) {
	planet := Planet{PeriodDays: 0.7365, KMS: 4, M0Rad: 1.3}
	d := uspActive(2, planet, 0)
	alias := 1 / (1/planet.PeriodDays - 1/0.99727)
	fo := FitOptions{Kipping: true, MinPeriodDays: MinSearchPeriodDays, MaxPeriodDays: 300}
	wrong, err := Fit(d, []Planet{circularPlanet(d, d.Evaluate(nil, 0).Residuals, alias)}, fo)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(wrong.Planets[0].PeriodDays/alias-1) > 0.01 {
		t.Fatalf("the start left the alias (%.4f d): nothing to test", wrong.Planets[0].PeriodDays)
	}
	found := false
	for _, a := range AliasAlternatives(d, wrong, fo) {
		if len(a.Planets) != 1 {
			t.Fatalf("alternative with %d planets", len(a.Planets))
		}
		if math.Abs(a.Planets[0].PeriodDays/planet.PeriodDays-1) < 1e-3 {
			found = true
			if !(EvidenceBIC(d, a.Planets) < EvidenceBIC(d, wrong.Planets)) {
				t.Errorf("true period's EvidenceBIC %.1f, alias's %.1f", EvidenceBIC(d, a.Planets), EvidenceBIC(d, wrong.Planets))
			}
		}
	}
	if !found {
		t.Errorf("no alternative at the true period %.4f d", planet.PeriodDays)
	}
}
