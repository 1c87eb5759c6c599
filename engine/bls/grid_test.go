package bls

import (
	"math"
	"testing"
)

func TestDefaultGrid(t *testing.T) {
	tt := keplerYear(372)
	span := tt[len(tt)-1] - tt[0]
	g, err := DefaultGrid(tt, GridOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Periods) == 0 || len(g.DurLo) != len(g.Periods) || len(g.DurHi) != len(g.Periods) {
		t.Fatalf("grid with %d periods, %d/%d duration ranges", len(g.Periods), len(g.DurLo), len(g.DurHi))
	}
	if g.Periods[0] < DefaultPMinDays || g.Periods[len(g.Periods)-1] > span/3 {
		t.Errorf("periods %.4f … %.4f d, want within [0.5, span/3 = %.2f]", g.Periods[0], g.Periods[len(g.Periods)-1], span/3)
	}
	// Ofir's count for the Sun, oversampling 3: N = 3(x_max − x_min)/A with x = f^(1/3) and
	// A = (2π)^(2/3)/π · R☉/(G M☉)^(1/3) / (3·span) ≈ 1.53e-6 s^(−1/3) for a 372 d span, so N ≈ 47,000.
	if n := len(g.Periods); n < 44000 || n > 50000 {
		t.Errorf("%d periods, Ofir's formula gives about 47,000", n)
	}
	for p := 1; p < len(g.Periods); p++ {
		if g.Periods[p] <= g.Periods[p-1] {
			t.Fatalf("periods not ascending at %d", p)
		}
		// Uniform steps in f^(1/3).
		x0, x1, x2 := math.Cbrt(1/g.Periods[p-1]), math.Cbrt(1/g.Periods[p]), math.Cbrt(1/g.Periods[min(p+1, len(g.Periods)-1)])
		if p+1 < len(g.Periods) && math.Abs((x0-x1)/(x1-x2)-1) > 1e-6 {
			t.Fatalf("cube-root frequency steps differ at %d", p)
		}
	}
	for p, per := range g.Periods {
		lo, hi := g.DurLo[p], g.DurHi[p]
		if lo >= hi || g.Durations[hi-1] > 0.15*per {
			t.Fatalf("P = %.3f: durations %v, want a non-empty range up to 15 %% of P", per, g.Durations[lo:hi])
		}
		// The physical window [0.2, 3.3]·13 h·(P/1 yr)^(1/3) lies inside the range (up to the grid's ends).
		tp := 13.0 / 24 * math.Cbrt(per/365.25)
		if want := math.Max(0.2*tp, g.Durations[0]); g.Durations[lo] > want*1.0000001 {
			t.Fatalf("P = %.3f: shortest duration %.4f d above %.4f d", per, g.Durations[lo], want)
		}
		if want := math.Min(math.Min(3.3*tp, 0.15*per), g.Durations[len(g.Durations)-1]); g.Durations[hi-1] < want/DefaultDurStep {
			t.Fatalf("P = %.3f: longest duration %.4f d below %.4f d", per, g.Durations[hi-1], want)
		}
	}
	if g, err := DefaultGrid(tt[:50], GridOptions{}); err != nil || len(g.Periods) != 0 {
		t.Errorf("a one-day span gives %d periods, want none (0.5 d × 3 transits does not fit)", len(g.Periods))
	}
}

func TestLogPeriodGrid(t *testing.T) {
	p := LogPeriodGrid(0.5, 124, 20000)
	if len(p) != 20000 || p[0] != 0.5 || p[len(p)-1] != 124 {
		t.Fatalf("ends %v … %v (%d values)", p[0], p[len(p)-1], len(p))
	}
	// Constant ratio exp(ln(248)/19999) between neighbours.
	r := math.Exp(math.Log(248) / 19999)
	for i := 1; i < len(p); i++ {
		if math.Abs(p[i]/p[i-1]/r-1) > 1e-12 {
			t.Fatalf("ratio %v at %d, want %v", p[i]/p[i-1], i, r)
		}
	}
	d := LogDurations(0.5/24, 0.5, 1.25)
	if d[0] != 0.5/24 || d[len(d)-1] != 0.5 || len(d) != 16 {
		t.Errorf("LogDurations: %v", d)
	}
}
