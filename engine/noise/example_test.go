package noise_test

import (
	"fmt"
	"math/rand/v2"

	"transitbench/engine/lc"
	"transitbench/engine/noise"
	"transitbench/engine/transit"
)

// A simulator sets the planet's size so that the measured MES hits a target: MES is linear in the model's mean
// in-transit depth, so measure σ_D and N once, then scale.
func ExampleMES() {
	rng := rand.New(rand.NewPCG(1, 1))
	t := make([]float64, 17600)
	flat := make([]float64, len(t))
	for i := range t {
		t[i] = 131.5 + float64(i)*lc.CadenceDays
		flat[i] = 1 + 200e-6*rng.NormFloat64() // 200 ppm white noise
	}
	p := transit.Params{PeriodDays: 12.3, T0Days: 140, RpRs: 0.02, ARs: transit.ARs(12.3, 1, 1), B: 0.4, U1: 0.4, U2: 0.26}
	model := make([]float64, len(t))
	p.Flux(model, t)
	s := noise.MES(t, flat, model, p.PeriodDays, p.T0Days, p.DurationDays())
	fmt.Printf("N %d, σ_D %.0f ppm, mean depth %.0f ppm, MES %.1f\n", s.NTransits, s.SigmaD*1e6, s.MeanDepth*1e6, s.MES)
	fmt.Printf("mean depth for MES 10: %.0f ppm\n", noise.RequiredMeanDepth(10, s.SigmaD, s.NTransits)*1e6)
	// Output:
	// N 29, σ_D 70 ppm, mean depth 402 ppm, MES 31.1
	// mean depth for MES 10: 129 ppm
}
