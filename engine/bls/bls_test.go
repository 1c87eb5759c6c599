package bls

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// cadence is the Kepler long cadence, 29.4244 min, in days.
const cadence = 29.4244 / 1440

// keplerYear returns one year of Kepler-like cadence times from BKJD 169.75 with the gaps of
// /work/shared/bench/make_lc.py: 1.5 d quarterly rolls at days 93, 186, 279 and 0.9 d monthly downlinks
// every 31 d; spanDays shortens it (≈ 17.6 k points for 372 d).
func keplerYear(spanDays float64) []float64 {
	var t []float64
	for i := 0; ; i++ {
		x := float64(i) * cadence
		if x >= spanDays {
			break
		}
		gap := false
		for _, g := range []float64{93, 186, 279} {
			gap = gap || (x > g && x < g+1.5)
		}
		for g := 31.0; g < 372; g += 31 {
			gap = gap || (x > g && x < g+0.9)
		}
		if !gap {
			t = append(t, 169.75+x)
		}
	}
	return t
}

// boxLC returns flux 1 + white noise σ with box transits (period, t0, duration, depth), and constant errors σ.
func boxLC(t []float64, period, t0, duration, depth, sigma float64, seed uint64) (y, dy []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	y = make([]float64, len(t))
	dy = make([]float64, len(t))
	for i, x := range t {
		y[i] = 1 + sigma*rng.NormFloat64()
		ph := math.Mod(x-t0, period)
		if ph < 0 {
			ph += period
		}
		if ph < duration/2 || ph > period-duration/2 {
			y[i] -= depth
		}
		dy[i] = sigma
	}
	return y, dy
}

// phaseDiff returns the distance of t0 from the nearest of want + n·P.
func phaseDiff(t0, want, period float64) float64 {
	d := math.Mod(t0-want, period)
	if d < 0 {
		d += period
	}
	return math.Min(d, period-d)
}

func TestSearchRecoversInjectedBox(t *testing.T) {
	// The planted signal of make_lc.py: P = 12.3456 d, duration 0.15 d, depth 300 ppm in 300 ppm white noise,
	// about 30 transits of 7 cadences: expected SNR ≈ √(30·7) ≈ 14.
	tt := keplerYear(372)
	const period, t0, dur, depth, sigma = 12.3456, 172.96, 0.15, 300e-6, 300e-6
	y, dy := boxLC(tt, period, t0, dur, depth, sigma, 1)
	for _, obj := range []Objective{SNR, Likelihood} {
		g, err := DefaultGrid(tt, GridOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Search(tt, y, dy, g, obj)
		if err != nil {
			t.Fatal(err)
		}
		pk := r.Peaks(3)
		if len(pk) == 0 {
			t.Fatalf("%v: no peaks", obj)
		}
		p := pk[0]
		t.Logf("%v: %+v", obj, p)
		if math.Abs(p.PeriodDays/period-1) > 1e-3 {
			t.Errorf("%v: best period %.5f d, injected %.5f d", obj, p.PeriodDays, period)
		}
		if d := phaseDiff(p.T0Days, t0, period); d > dur/2 {
			t.Errorf("%v: t0 %.4f is %.4f d from the injected epoch, more than half a duration", obj, p.T0Days, d)
		}
		if math.Abs(p.Depth-depth) > 3*p.DepthErr {
			t.Errorf("%v: depth %.1f ± %.1f ppm, injected %.0f ppm", obj, p.Depth*1e6, p.DepthErr*1e6, depth*1e6)
		}
		if p.SNR < 10 {
			t.Errorf("%v: SNR %.1f, expected about 14", obj, p.SNR)
		}
		// 372 d / 12.3456 d ≈ 30.1: 30 or 31 epochs fall in the span, a few in gaps.
		if p.NTransits < 26 || p.NTransits > 31 {
			t.Errorf("%v: %d transits with data, expected 26–31", obj, p.NTransits)
		}
	}
}

func TestSearchGroupingAgrees(t *testing.T) {
	// Periods are folded four at a time when they have at most 2^foldBits phase bins, else one by one: a grid
	// mixing both (bins = ⌈P·5/0.01 d⌉ crosses 2^14 = 16384 at P ≈ 32.8 d) gives, period by period, the same
	// columns as searching each period alone.
	tt := keplerYear(120)
	y, dy := boxLC(tt, 7.3, 171, 0.1, 400e-6, 300e-6, 3)
	g := Grid{Periods: LogPeriodGrid(30, 36, 23), Durations: []float64{0.01, 0.1}}
	all, err := Search(tt, y, dy, g, SNR)
	if err != nil {
		t.Fatal(err)
	}
	for p, per := range g.Periods {
		one, err := Search(tt, y, dy, Grid{Periods: []float64{per}, Durations: g.Durations}, SNR)
		if err != nil {
			t.Fatal(err)
		}
		if one.Power[0] != all.Power[p] || one.T0[0] != all.T0[p] || one.Durations[0] != all.Durations[p] || one.Depth[0] != all.Depth[p] {
			t.Errorf("P = %.4f: alone (%v, %v, %v), in the grid (%v, %v, %v)", per,
				one.Power[0], one.T0[0], one.Durations[0], all.Power[p], all.T0[p], all.Durations[p])
		}
	}
}

func TestSearchErrors(t *testing.T) {
	tt := keplerYear(30)
	y, dy := boxLC(tt, 3, 170, 0.1, 1e-3, 1e-4, 2)
	g := Grid{Periods: LogPeriodGrid(1, 5, 50), Durations: []float64{0.05, 0.1}}
	nan := make([]float64, len(tt))
	for i := range nan {
		nan[i] = math.NaN()
	}
	unsorted := append([]float64(nil), tt...)
	unsorted[10], unsorted[11] = unsorted[11], unsorted[10]
	dup := append([]float64(nil), tt...)
	dup[11] = dup[10]
	cases := []struct {
		name     string
		t, y, dy []float64
		g        Grid
		want     error
	}{
		{"empty", nil, nil, nil, g, ErrEmpty},
		{"length mismatch", tt, y[:5], nil, g, ErrLengthMismatch},
		{"all NaN flux", tt, nan, dy, g, ErrAllNaN},
		{"all NaN errors", tt, y, nan, g, ErrAllNaN},
		{"single point", tt[:1], y[:1], dy[:1], g, ErrTooFewPoints},
		{"unsorted", unsorted, y, dy, g, ErrUnsorted},
		{"duplicate time", dup, y, dy, g, ErrDuplicateTime},
		{"no periods", tt, y, dy, Grid{Durations: []float64{0.1}}, ErrEmptyGrid},
		{"no durations", tt, y, dy, Grid{Periods: []float64{2}}, ErrEmptyGrid},
		{"negative period", tt, y, dy, Grid{Periods: []float64{-2}, Durations: []float64{0.1}}, ErrBadGrid},
		{"duration not below period", tt, y, dy, Grid{Periods: []float64{0.1, 2}, Durations: []float64{0.1}}, ErrBadGrid},
		{"durations descending", tt, y, dy, Grid{Periods: []float64{2}, Durations: []float64{0.2, 0.1}}, ErrBadGrid},
		{"span too short", tt, y, dy, Grid{Periods: []float64{2, 40}, Durations: []float64{0.1}}, ErrSpanTooShort},
	}
	for _, c := range cases {
		_, err := Search(c.t, c.y, c.dy, c.g, SNR)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := Search(tt, y, dy, g, Objective(7)); !errors.Is(err, ErrObjective) {
		t.Errorf("unknown objective: error %v, want ErrObjective", err)
	}
}

func TestSearchSkipsBadCadencesAndFlatData(t *testing.T) {
	tt := keplerYear(40)
	y, dy := boxLC(tt, 3.1, 171, 0.12, 2000e-6, 200e-6, 7)
	g := Grid{Periods: LogPeriodGrid(1, 10, 400), Durations: []float64{0.06, 0.12}}
	// NaN flux, NaN and zero errors and a huge error: each such cadence is left out, the rest still finds
	// the planted box.
	bad := 0
	for i := 0; i < len(tt); i += 50 {
		switch (i / 50) % 4 {
		case 0:
			y[i] = math.NaN()
		case 1:
			dy[i] = math.NaN()
		case 2:
			dy[i] = 0
		case 3:
			dy[i] = 1 // 5000 times the others: weight 4e-8 of the mean, below minWeight
		}
		bad++
	}
	r, err := Search(tt, y, dy, g, SNR)
	if err != nil {
		t.Fatal(err)
	}
	if r.NPoints != len(tt)-bad {
		t.Errorf("%d cadences used, want %d", r.NPoints, len(tt)-bad)
	}
	if p := r.Peaks(1); len(p) != 1 || math.Abs(p[0].PeriodDays/3.1-1) > 1e-3 {
		t.Errorf("peaks %+v, want the 3.1 d box", p)
	}
	// Constant flux: no box dips, so every power is 0 and there is no peak.
	flat := make([]float64, len(tt))
	for i := range flat {
		flat[i] = 1
	}
	r, err = Search(tt, flat, nil, g, Likelihood)
	if err != nil {
		t.Fatal(err)
	}
	for p := range r.Power {
		if r.Power[p] != 0 || !math.IsNaN(r.T0[p]) {
			t.Fatalf("constant flux: power %v, t0 %v at P = %v", r.Power[p], r.T0[p], r.Periods[p])
		}
	}
	if pk := r.Peaks(3); len(pk) != 0 {
		t.Errorf("constant flux gave peaks %+v", pk)
	}
}
