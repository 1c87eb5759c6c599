package quicklook

import (
	"math"
	"testing"

	"transitbench/engine/detrend"
)

// TestPrepareWindowOption checks PrepareOptions.WindowDays, the star view's choice of detrending window: the
// analysis is detrended with exactly that window (engine/detrend.Flatten's flux, whatever durations the star's
// own window would keep), NoDetrend still wins over it, and AnalyseWith searches the flux so detrended. A 10-hour,
// 1000 ppm box shows the window's effect: a half-day window eats much of the dip, a three-day one keeps it.
func TestPrepareWindowOption(t *testing.T) {
	c := yearCurve()
	const t0, durDays, depth = 300.0, 10.0 / 24, 1e-3
	in := func(x float64) bool { return math.Abs(x-t0) < durDays/2 }
	for i, x := range c.Time {
		if in(x) {
			c.Flux[i] *= 1 - depth
		}
	}
	dip := func(a *Analysis) float64 { // the mean depth of the box in the detrended flux
		var s float64
		var n int
		for i, x := range a.Time {
			if in(x) && !math.IsNaN(a.Flat[i]) {
				s, n = s+1-a.Flat[i], n+1
			}
		}
		return s / float64(n)
	}
	own := Prepare(c, nil, PrepareOptions{})
	narrow := Prepare(c, nil, PrepareOptions{WindowDays: 0.5})
	wide := Prepare(c, nil, PrepareOptions{WindowDays: 3, MaxDurationDays: 2}) // the window given wins over a duration to keep
	if narrow.WindowDays != 0.5 || wide.WindowDays != 3 || own.WindowDays != 1.5 {
		t.Fatalf("windows %g, %g, %g d; want 0.5, 3 and the star's 1.5", narrow.WindowDays, wide.WindowDays, own.WindowDays)
	}
	flat, _ := detrend.Flatten(c.Time, c.Flux, detrend.Options{WindowDays: 0.5})
	for i := range flat {
		if flat[i] != narrow.Flat[i] && !(math.IsNaN(flat[i]) && math.IsNaN(narrow.Flat[i])) {
			t.Fatalf("cadence %d: flux %g detrended with a 0.5 d window, want detrend.Flatten's %g", i, narrow.Flat[i], flat[i])
		}
	}
	// A biweight window of 0.5 d barely spans the 0.42 d box, so the trend follows the dip down; at 3 d the
	// dip is a seventh of the window and stays (within 10 % of the 1000 ppm injected).
	if d := dip(wide); math.Abs(d-depth) > 0.1*depth {
		t.Errorf("a 3 d window keeps a dip of %.0f ppm, want about 1000", d*1e6)
	}
	if dn, dw := dip(narrow), dip(wide); !(dn < 0.7*dw) {
		t.Errorf("a 0.5 d window keeps %.0f ppm of the dip, a 3 d one %.0f ppm: want the narrow one to eat into it", dn*1e6, dw*1e6)
	}
	if raw := Prepare(c, nil, PrepareOptions{NoDetrend: true, WindowDays: 2}); raw.WindowDays != 0 || raw.Flat[10] != c.Flux[10] {
		t.Errorf("NoDetrend with a window: window %g, flat %g for flux %g; want the flux as read", raw.WindowDays, raw.Flat[10], c.Flux[10])
	}
	a, err := AnalyseWith(c, nil, PrepareOptions{WindowDays: 3}, 1)
	if err != nil || a.WindowDays != 3 || len(a.Periods) == 0 || a.Flat[5000] != wide.Flat[5000] {
		t.Errorf("AnalyseWith a 3 d window: window %g, %d periods (%v), flat as Prepare's %v", a.WindowDays, len(a.Periods), err,
			a.Flat[5000] == wide.Flat[5000])
	}
}
