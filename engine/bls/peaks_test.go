package bls

import (
	"math"
	"sort"
	"testing"
)

func TestPeaksSuppressesAliases(t *testing.T) {
	// Half a Kepler year with two planets: A (P = 5 d, 1000 ppm, 0.2 d) and B (P = 3.7 d, 500 ppm, 0.15 d) in
	// 300 ppm noise. Expected SNRs: A ≈ (1000/300)·√(37 transits · 10 cadences) ≈ 64; its alias at 2P keeps
	// half the transits, ≈ 64/√2 ≈ 45; B ≈ (500/300)·√(50 · 7) ≈ 31. So the raw local maxima put A's
	// aliases above B, and Peaks must not.
	tt := keplerYear(186)
	y, dy := boxLC(tt, 5, 171.1, 0.2, 1000e-6, 300e-6, 3)
	yb, _ := boxLC(tt, 3.7, 170.4, 0.15, 500e-6, 0, 0)
	for i := range y {
		y[i] += yb[i] - 1
	}
	g := Grid{Periods: LogPeriodGrid(1, 30, 12000), Durations: []float64{0.08, 0.12, 0.16, 0.2, 0.25}}
	r, err := Search(tt, y, dy, g, SNR)
	if err != nil {
		t.Fatal(err)
	}
	pk := r.Peaks(5)
	for i, p := range pk {
		t.Logf("peak %d: P = %.4f d, SNR %.1f, depth %.0f ppm, %d transits", i, p.PeriodDays, p.SNR, p.Depth*1e6, p.NTransits)
	}
	if len(pk) < 2 || math.Abs(pk[0].PeriodDays/5-1) > 1e-3 || math.Abs(pk[1].PeriodDays/3.7-1) > 1e-3 {
		t.Fatalf("want A (5 d) then B (3.7 d) as the two strongest peaks")
	}
	for _, p := range pk[2:] {
		for _, base := range []float64{5, 3.7} {
			for n := 1.0; n <= 40; n++ {
				for m := 1.0; m <= MaxHarmonic; m++ {
					if m > 1 && n > MaxMultiple {
						continue
					}
					for _, r := range []float64{n / m, m / n} {
						if math.Abs(p.PeriodDays/(base*r)-1) < MinAliasTol {
							t.Errorf("peak at %.4f d is %.4g × %g d", p.PeriodDays, r, base)
						}
					}
				}
			}
		}
	}
	// The raw local maxima do rank an alias of A above B: the suppression is doing the work.
	var maxima []int
	for i := 1; i+1 < len(r.Power); i++ {
		if r.Power[i] > r.Power[i-1] && r.Power[i] >= r.Power[i+1] {
			maxima = append(maxima, i)
		}
	}
	sort.Slice(maxima, func(a, b int) bool { return r.Power[maxima[a]] > r.Power[maxima[b]] })
	aliasFirst := false
	for _, i := range maxima {
		if math.Abs(r.Periods[i]/3.7-1) < 1e-3 {
			break
		}
		if math.Abs(r.Periods[i]/10-1) < 1e-3 || math.Abs(r.Periods[i]/2.5-1) < 1e-3 {
			aliasFirst = true
		}
	}
	if !aliasFirst {
		t.Errorf("expected an alias of A (2.5 or 10 d) among the raw maxima above B")
	}
}

func TestIsAliasRatios(t *testing.T) {
	// A 372 d span and 0.1 d durations give the minimum tolerance, 5e-4 (1.5·0.1/372 = 4e-4 is smaller).
	r := &Result{SpanDays: 372}
	acc := []Peak{{PeriodDays: 2, T0Days: 100, DurationDays: 0.1}}
	cases := []struct {
		period, t0, duration float64
		alias                bool
	}{
		{2.0005, 100, 0.1, true},          // the same peak
		{26, 100.7, 0.1, true},            // 13·P: any whole multiple, whatever the phase
		{2.0 / 17, 100.05, 0.1, true},     // P/17: any whole fraction
		{5.0, 100.9, 0.1, true},           // 5/2
		{2 * 11.0 / 4, 100.3, 0.1, true},  // 11/4
		{2 * 4.0 / 7, 100.6, 0.1, true},   // 4/7
		{2 * 13.0 / 2, 103.02, 0.1, true}, // 13/2, transits shared: t0' − t0 = 3.02 ≈ 3·(P/2)
		{2 * 13.0 / 2, 103.5, 0.1, false}, // 13/2, t0' − t0 = 3.5: no shared transit
		{2 * 2.0 / 13, 100.33, 0.1, true}, // 2/13, t0' − t0 = 0.33 ≈ 1·(P'/2) = 0.3077 within 0.1
		{2.74, 100, 0.1, false},           // 1.37: no small ratio
		{2.003, 100, 0.1, false},          // 1.5e-3 off: outside the tolerance
		{2.003, 100, 1.0, true},           // … inside it for a 1-day box: 1.5·1/372 = 4e-3
	}
	for _, c := range cases {
		r.Periods, r.T0, r.Durations = []float64{c.period}, []float64{c.t0}, []float64{c.duration}
		if got := r.isAlias(0, acc); got != c.alias {
			t.Errorf("P' = %.5f, t0' = %.2f against P = 2, t0 = 100: alias %v, want %v", c.period, c.t0, got, c.alias)
		}
	}
}
