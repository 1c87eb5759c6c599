package sim

import (
	"math"
	"slices"
	"testing"

	"transitbench/data"
	"transitbench/engine/detrend"
	"transitbench/engine/noise"
	"transitbench/engine/transit"
)

// TestInjectedMESMatchesDrawn checks SPEC A4 independently of the simulator's own meter: for injected stars
// of both populations, the MES engine/noise measures on the star's planet-free flux detrended by
// engine/detrend.Flatten (default window), with the answer's planet as the model, is within 5 % of the MES
// drawn for the star (the first draw of its "planet" stream).
func TestInjectedMESMatchesDrawn(t *testing.T) {
	k := DefaultKnobs()
	n := 16
	if testing.Short() {
		n = 4
	}
	var worst float64
	for i := range n {
		pop := data.PopulationRandom
		if i%2 == 1 {
			pop = data.PopulationFalseAlarm
		}
		spec := Spec{Set: "mes", Index: i, Seed: uint64(600 + i), Category: data.CategoryInjected, Population: pop, ID: "mes"}
		res, err := Generate(spec, k)
		if err != nil {
			t.Fatal(err)
		}
		drawn := uniform(stream(spec.Seed, "planet"), k.Planet.MES.Lo, k.Planet.MES.Hi)
		var ans data.Answer
		cal, st, _, base, _ := buildBase(spec, k, &ans)
		var tv, fv []float64
		for j := range cal.time {
			if cal.valid(j) {
				tv = append(tv, cal.time[j])
				fv = append(fv, base[j])
			}
		}
		flat, _ := detrend.Flatten(tv, fv, detrend.Options{})
		p := res.Answer.Planet
		u1, u2 := transit.LimbDarkening(st.teff, st.logg)
		params := transit.Params{PeriodDays: p.PeriodDays, T0Days: p.T0Days, RpRs: p.RpRs, B: p.B, U1: u1, U2: u2,
			ARs: transit.ARs(p.PeriodDays, st.mass, st.radius)}
		model := make([]float64, len(tv))
		params.Flux(model, tv)
		got := noise.MES(tv, flat, model, p.PeriodDays, p.T0Days, p.DurationDays)
		rel := math.Abs(got.MES/drawn - 1)
		worst = math.Max(worst, rel)
		t.Logf("star %d (%s): drawn MES %.2f, answer %.2f, engine %.2f (P %.2f d, T14 %.2f h, N %d)", i, pop, drawn, p.MES, got.MES,
			p.PeriodDays, 24*p.DurationDays, got.NTransits)
		if rel > 0.05 {
			t.Errorf("star %d: measured MES %.3f, drawn %.3f (%.1f %% off, want ≤ 5 %%)", i, got.MES, drawn, 100*rel)
		}
		if math.Abs(p.MES/drawn-1) > 0.05 {
			t.Errorf("star %d: answer MES %.3f, drawn %.3f", i, p.MES, drawn)
		}
	}
	t.Logf("largest relative difference %.2f %%", 100*worst)
}

// whiteMeter returns a meter on white noise of per-cadence σ on a star's calendar.
func whiteMeter(sigma float64) (*meter, *meter, *calendar) {
	k := DefaultKnobs()
	spec := Spec{Seed: 77, Category: data.CategoryEB}
	cal := newCalendar(spec, k)
	r := stream(1, "white")
	f := make([]float64, len(cal.time))
	for i := range f {
		f[i] = 1 + sigma*r.NormFloat64()
	}
	return newMeter(cal, f, k), newRawMeter(cal, f), cal
}

// TestGiveaways checks the EB giveaway rules of SPEC A4 on constructed binaries over white noise of
// 200 ppm per cadence (σ_D ≈ 57 ppm at 6 h).
func TestGiveaways(t *testing.T) {
	m, raw, _ := whiteMeter(2e-4)
	ek := &DefaultKnobs().EB
	base := ebModel{periodDays: 3.3, t0Days: m.t[0] + 1, pWidth: 0.04, sWidth: 0.04, sPhase: 0.5, shape: 2, dilution: 1}
	cases := []struct {
		name string
		edit func(e *ebModel)
		want []string
	}{
		// A 0.2 % primary with no secondary and no modulation looks like a planet: not counted.
		{"planet-like", func(e *ebModel) { e.pDepth = 0.002 }, nil},
		// √0.12 = 0.35 > 0.3: too deep for a planet.
		{"too deep", func(e *ebModel) { e.pDepth = 0.12 }, []string{GiveawayTooDeep}},
		// A 500 ppm secondary (mean 333 ppm over 3.2 h, σ_D ≈ 80 ppm, ≈ 100 events) has MES ≈ 40.
		{"secondary", func(e *ebModel) { e.pDepth = 0.01; e.sDepth = 0.0005 }, []string{GiveawaySecondary}},
		// A 20 ppm secondary has MES ≈ 1.7: not counted.
		{"weak secondary", func(e *ebModel) { e.pDepth = 0.01; e.sDepth = 0.00002 }, nil},
		// Twin eclipses at half phase: a search folds at P/2, odd and even depths equal.
		{"twins", func(e *ebModel) { e.pDepth = 0.004; e.sDepth = 0.004 }, []string{GiveawaySecondary}},
		// Unequal eclipses at half phase, 0.4 % and 0.25 %: odd/even differ by ≈ 1000 ppm / 11 ppm ≫ 5σ.
		{"odd/even", func(e *ebModel) { e.pDepth = 0.004; e.sDepth = 0.0025 }, []string{GiveawaySecondary, GiveawayOddEven}},
		// The same eclipses with the secondary at phase 0.3 (eccentric): the search does not fold them together.
		{"eccentric", func(e *ebModel) { e.pDepth = 0.004; e.sDepth = 0.0025; e.sPhase = 0.3 }, []string{GiveawaySecondary}},
		// 300 ppm ellipsoidal modulation at 1.65 d: SNR ≈ 300·√(M/2)/σ(0.41 d) ≫ 10.
		{"ellipsoidal", func(e *ebModel) { e.pDepth = 0.002; e.ell = 3e-4 }, []string{GiveawayEllipsoidal}},
		// 2 ppm modulation is buried (SNR < 1).
		{"weak ellipsoidal", func(e *ebModel) { e.pDepth = 0.002; e.ell = 2e-6 }, nil},
		// A diluted binary keeps its secondary: 3 % and 1 % eclipses diluted to 1 % leave a 100 ppm secondary.
		{"diluted", func(e *ebModel) { e.pDepth = 0.03; e.sDepth = 0.01; e.dilution = 0.01 }, []string{GiveawaySecondary}},
	}
	for _, c := range cases {
		e := base
		c.edit(&e)
		got := giveaways(&e, ek, m, raw)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: giveaways %v, want %v", c.name, got, c.want)
		}
	}
}
