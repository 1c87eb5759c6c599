package vet

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEventsHaveData: a 600 ppm, 10 h event next to a gap, with the predicted mid-time inside the gap, is
// found at its own mid-time with data under it, at its depth and MES; a predicted transit wholly in a gap is
// left out.
func TestEventsHaveData(t *testing.T) {
	const cad = 0.0204336
	rng := rand.New(rand.NewPCG(3, 4))
	var tm, f []float64
	const sigma = 300e-6
	for x := 100.0; x < 300; x += cad {
		if (x > 150.5 && x < 151.4) || (x > 249.7 && x < 250.6) {
			continue // gaps: the first beside the event, the second over a whole predicted transit
		}
		y := 1 + sigma*rng.NormFloat64()
		if math.Abs(x-151.55) < 10.0/48 {
			y -= 600e-6
		}
		tm, f = append(tm, x), append(f, y)
	}
	// The period puts the transits at 151.25 (in the gap, 0.3 d before the event: the box a search would fit
	// across the gap's edge) and 250.15 (in the other gap).
	ev := Events(tm, f, Ephemeris{PeriodDays: 98.9, T0Days: 151.25, DurationDays: 10.0 / 24})
	if len(ev) != 1 {
		t.Fatalf("%d events, want 1: %+v", len(ev), ev)
	}
	e := ev[0]
	if math.Abs(e.T0Days-151.55) > 0.05 {
		t.Errorf("event at %.3f, want 151.55", e.T0Days)
	}
	if e.Cadences < int(math.Ceil(10.0/24/(2*cad))) {
		t.Errorf("%d cadences under the event", e.Cadences)
	}
	// σ_D for white noise: σ/√(D/cad) ≈ 300/√20.4 ≈ 66 ppm; the event's MES ≈ 600/66 ≈ 9.
	if math.Abs(e.Depth/600e-6-1) > 0.25 || e.MES < 6 || e.MES > 12 {
		t.Errorf("depth %.0f ppm, MES %.1f; want about 600 ppm and 9", e.Depth*1e6, e.MES)
	}
	if ev := Events(tm, f, Ephemeris{DurationDays: 0.4}); ev != nil {
		t.Errorf("events without a period: %+v", ev)
	}
}
