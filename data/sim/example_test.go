package sim_test

import (
	"fmt"
	"math"

	"transitbench/data"
	"transitbench/data/sim"
	"transitbench/engine/lc"
)

// Generate makes one star; the builder of a data set derives Seed from (Version, set name, set seed, index).
func ExampleGenerate() {
	spec := sim.Spec{Set: "dev", Index: 42, Seed: 42, Category: data.CategoryInjected,
		Population: data.PopulationRandom, ID: "dev-0042"}
	r, err := sim.Generate(spec, sim.DefaultKnobs())
	if err != nil {
		fmt.Println(err)
		return
	}
	nan := 0
	for _, f := range r.Curve.Flux {
		if math.IsNaN(f) {
			nan++
		}
	}
	masked := 0
	for _, q := range r.Curve.Quality {
		if q&lc.DefaultQualityMask != 0 {
			masked++
		}
	}
	p := r.Answer.Planet
	fmt.Println(r.Answer.Category, r.Answer.Scored, nan == masked)
	fmt.Println(p.MES >= 4*0.95 && p.MES <= 20*1.05, p.NTransits >= 3)
	// Output:
	// injected true true
	// true true
}

// Cadences gives a star's calendar without simulating its flux: the matcher needs only the valid times.
func ExampleCadences() {
	spec := sim.Spec{Seed: 42, Category: data.CategoryUntouched, Population: data.PopulationRandom}
	times, quality := sim.Cadences(spec, sim.DefaultKnobs())
	valid := 0
	for _, q := range quality {
		if q&lc.DefaultQualityMask == 0 {
			valid++
		}
	}
	fmt.Println(len(times) == len(quality), valid > 16000 && valid < 17500)
	// Output: true true
}
