package vet_test

import (
	"fmt"
	"math/rand/v2"

	"transitbench/engine/lc"
	"transitbench/engine/transit"
	"transitbench/engine/vet"
)

// An eclipsing binary folded at half its period: alternating eclipse depths give it away.
func ExampleCompute() {
	rng := rand.New(rand.NewPCG(2, 2))
	t := make([]float64, 17600)
	flat := make([]float64, len(t))
	for i := range t {
		t[i] = 131.5 + float64(i)*lc.CadenceDays
		flat[i] = 1 + 300e-6*rng.NormFloat64()
	}
	primary := transit.Params{PeriodDays: 6, T0Days: 133, RpRs: 0.12, ARs: 12, B: 0.2, U1: 0.4, U2: 0.26}
	secondary := primary
	secondary.T0Days, secondary.RpRs = 136, 0.09
	m := make([]float64, len(t))
	for _, p := range []transit.Params{primary, secondary} {
		p.Flux(m, t)
		for i := range flat {
			flat[i] *= m[i]
		}
	}
	f := vet.Compute(t, flat, 3, 133, primary.DurationDays(), &vet.Star{RadiusRsun: 1, MassMsun: 1})
	fmt.Printf("depth %.0f ppm, odd %.0f ppm, even %.0f ppm: %.0fσ apart\n",
		f.Depth*1e6, f.OddDepth*1e6, f.EvenDepth*1e6, f.OddEvenSigma)
	// Output: depth 10639 ppm, odd 9383 ppm, even 16648 ppm: 345σ apart
}
