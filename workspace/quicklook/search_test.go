package quicklook

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"transitbench/data"
	"transitbench/engine/bls"
	"transitbench/engine/lc"
	"transitbench/engine/vet"
)

// yearCurve is a year of Kepler-cadence white noise (100 ppm) with a slow trend.
func yearCurve() *lc.LightCurve {
	r := rand.New(rand.NewPCG(5, 6))
	c := &lc.LightCurve{}
	for x := 170.0; x < 540; x += lc.CadenceDays {
		c.Time = append(c.Time, x)
		c.Flux = append(c.Flux, (1+0.001*math.Sin(x/15))*(1+100e-6*r.NormFloat64()))
		c.FluxErr = append(c.FluxErr, 100e-6)
		c.Quality = append(c.Quality, 0)
	}
	return c
}

// TestDetrendingKeepsTheLongestDuration: the search detrending's window is three times the longest duration
// searched for the star: 1.5 d for an unknown star (12 h), wider for the Sun over a year (1.4 × the 9 h central
// transit at a third of the span) and wider still, up to 3 d (1 d), for a subgiant; a search of longer explicit
// durations detrends again, a shorter one does not.
func TestDetrendingKeepsTheLongestDuration(t *testing.T) {
	c := yearCurve()
	unknown := Prepare(c, nil, PrepareOptions{})
	sun := Prepare(c, &data.Star{RadiusRsun: 1, MassMsun: 1}, PrepareOptions{})
	giant := Prepare(c, &data.Star{RadiusRsun: 2.6, MassMsun: 1.2}, PrepareOptions{})
	if unknown.WindowDays != 1.5 || !(sun.WindowDays > 1.5) || !(giant.WindowDays > sun.WindowDays) || giant.WindowDays > 3 {
		t.Fatalf("windows: unknown %.2f d, Sun %.2f d, subgiant %.2f d; want 1.5 d, then longer (at most 3 d)",
			unknown.WindowDays, sun.WindowDays, giant.WindowDays)
	}
	if raw := Prepare(c, nil, PrepareOptions{NoDetrend: true}); raw.WindowDays != 0 || raw.Flat[10] != c.Flux[10] {
		t.Errorf("not detrended: window %g, flat %g for flux %g", raw.WindowDays, raw.Flat[10], c.Flux[10])
	}
	if unknown.ForDuration(0.3) != unknown {
		t.Error("a 0.3 d search detrended again")
	}
	wide := unknown.ForDuration(0.9)
	if wide == unknown || math.Abs(wide.WindowDays-2.7) > 1e-12 || wide.Flat[5000] == unknown.Flat[5000] {
		t.Errorf("a 0.9 d search: window %.2f d", wide.WindowDays)
	}
	g, err := giant.MakeGrid(giant.Time, SearchOptions{PMinDays: 10, PMaxDays: 20})
	if err != nil || !(g.Durations[len(g.Durations)-1] > 0.5) {
		t.Errorf("the subgiant's grid reaches %.2f d (%v), want beyond 12 h", g.Durations[len(g.Durations)-1], err)
	}
}

// TestSearchOptionsGrid: no option is the quick-look search; any grid option asks for a grid, built as asked,
// and a grid above the cap is refused with its size before it is built.
func TestSearchOptionsGrid(t *testing.T) {
	if (SearchOptions{Workers: 2, Peaks: 3}).Grid() {
		t.Error("workers and peaks ask for a grid")
	}
	for _, o := range []SearchOptions{{PMinDays: 1}, {Periods: 10}, {Durations: []float64{0.1}}, {Objective: bls.Likelihood}, {DurMaxDays: 0.3}} {
		if !o.Grid() {
			t.Errorf("%+v is not a grid", o)
		}
	}
	a := Prepare(yearCurve(), nil, PrepareOptions{})
	g, err := a.MakeGrid(a.Time, SearchOptions{PMinDays: 1, PMaxDays: 20, Periods: 500, Durations: []float64{0.1, 0.2}})
	if err != nil || len(g.Periods) != 500 || len(g.Durations) != 2 || math.Abs(g.Periods[0]-1) > 1e-9 {
		t.Fatalf("grid of 500 periods × 2 durations: %d × %d, %v", len(g.Periods), len(g.Durations), err)
	}
	_, err = a.MakeGrid(a.Time, SearchOptions{Periods: 100_000_000})
	var big *GridTooLargeError
	if !errors.As(err, &big) || !errors.Is(err, bls.ErrGridTooLarge) {
		t.Errorf("10⁸ periods: %v", err)
	}
	res, err := a.BLS(SearchOptions{PMinDays: 2, PMaxDays: 10, Periods: 300, Durations: []float64{0.1}, Peaks: 2, Workers: 1})
	if err != nil || len(res.Peaks) != 2 || len(res.Measured) != 2 || res.NPeriods != 300 {
		t.Fatalf("a grid search: %+v, %v", res, err)
	}
	for i, pk := range res.Peaks {
		if m := res.Measured[i]; m.Ephemeris.PeriodDays != pk.PeriodDays || !(m.Ephemeris.DurationDays > 0) {
			t.Errorf("peak %d measured at %+v", i+1, m.Ephemeris)
		}
	}
}

// TestSameSignal: a found signal is the measured one when the periods agree within 1 % and a transit of each
// falls within a duration of the other's; a single event (SinglePeriodDays) is the signal whose transit it is.
func TestSameSignal(t *testing.T) {
	e := vet.Ephemeris{PeriodDays: 10, T0Days: 100, DurationDays: 0.2}
	for _, c := range []struct {
		o    vet.Ephemeris
		want bool
	}{
		{vet.Ephemeris{PeriodDays: 10.02, T0Days: 150.1, DurationDays: 0.2}, true},
		{vet.Ephemeris{PeriodDays: 10.5, T0Days: 100, DurationDays: 0.2}, false},
		{vet.Ephemeris{PeriodDays: 10, T0Days: 105, DurationDays: 0.2}, false},
		{vet.Ephemeris{PeriodDays: SinglePeriodDays, T0Days: 130.1, DurationDays: 0.2}, true},
		{vet.Ephemeris{PeriodDays: SinglePeriodDays, T0Days: 135, DurationDays: 0.2}, false},
	} {
		if got := Same(e, c.o); got != c.want {
			t.Errorf("Same(%+v, %+v) = %v", e, c.o, got)
		}
	}
}
