package main

import (
	"math"
	"testing"
)

// TestScanBeyondSizedPeriod: the refinement of a candidate at the top of the coarse grid steps a little past
// the longest period the phase-bin scratch was sized for (a third of the span); scan must grow the scratch
// rather than slice past it, and still measure the planted box.
func TestScanBeyondSizedPeriod(t *testing.T) {
	const (
		cadence = 0.0204336 // Kepler long cadence, days
		span    = 372.0
		depth   = 2e-3
		dur     = 0.3
	)
	pmax := span / 3
	period := pmax * 1.003 // two refinement steps of the coarse grid past pmax
	var tt, y, dy []float64
	for i := 0; float64(i)*cadence <= span; i++ {
		ti := float64(i) * cadence
		f := 1.0
		if ph := math.Mod(ti-1+period/2, period) - period/2; math.Abs(ph) < dur/2 {
			f -= depth
		}
		tt, y, dy = append(tt, ti), append(y, f), append(dy, 1e-4)
	}
	s := newSeries(tt, y, dy, pmax)
	got := s.scan(period)
	if math.Abs(got.depth/depth-1) > 0.2 {
		t.Errorf("depth %.2e at P = %.3f d, want %.2e", got.depth, period, depth)
	}
}
