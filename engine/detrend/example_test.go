package detrend_test

import (
	"fmt"
	"math"

	"transitbench/engine/detrend"
)

// A 2 % spot modulation with a 12-day period is removed, while a 1 % dip lasting 0.2 d survives flattening
// with the window that protects durations up to 0.25 d. The largest residual, 641 ppm, is at the very start
// of the data, where the window is one-sided on the steepest part of the modulation.
func ExampleFlatten() {
	var t, f []float64
	for x := 0.0; x < 30; x += 29.4244 / 1440 {
		v := 1 + 0.02*math.Sin(2*math.Pi*x/12)
		if math.Abs(x-15) < 0.1 {
			v -= 0.01
		}
		t, f = append(t, x), append(f, v)
	}
	flat, _ := detrend.Flatten(t, f, detrend.Options{WindowDays: detrend.WindowFor(0.25)})
	var in, out, n float64
	for i, v := range flat {
		if math.Abs(t[i]-15) < 0.08 {
			in += v
			n++
		} else if math.Abs(t[i]-15) > 0.2 {
			out = math.Max(out, math.Abs(v-1))
		}
	}
	fmt.Printf("in transit %.4f, largest deviation elsewhere %.0f ppm\n", in/n, out*1e6)
	// Output: in transit 0.9903, largest deviation elsewhere 641 ppm
}
