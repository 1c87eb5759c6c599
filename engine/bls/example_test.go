package bls_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"transitbench/engine/bls"
)

// A 60-day light curve at the Kepler cadence with a 2000 ppm, 0.12 d transit every 3.3 d in 300 ppm noise:
// the strongest peak of an explicit grid is the planted period.
func ExampleSearch() {
	rng := rand.New(rand.NewPCG(1, 1))
	var t, y, dy []float64
	for x := 0.0; x < 60; x += 29.4244 / 1440 {
		f := 1 + 300e-6*rng.NormFloat64()
		if math.Abs(math.Remainder(x-1.1, 3.3)) < 0.06 {
			f -= 2000e-6
		}
		t, y, dy = append(t, x), append(y, f), append(dy, 300e-6)
	}
	g := bls.Grid{Periods: bls.LogPeriodGrid(1, 20, 5000), Durations: []float64{0.05, 0.08, 0.12, 0.2}}
	r, err := bls.Search(t, y, dy, g, bls.SNR)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := r.Peaks(1)[0]
	fmt.Printf("P = %.2f d, t0 = %.2f d, depth = %.1f ppt, %d transits\n", p.PeriodDays, p.T0Days, p.Depth*1e3, p.NTransits)
	// Output: P = 3.30 d, t0 = 1.10 d, depth = 1.9 ppt, 18 transits
}
