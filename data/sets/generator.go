package sets

import (
	"fmt"

	"transitbench/data"
	"transitbench/engine/lc"
)

// starSpec is what the simulator needs to make one star (sim.Spec).
type starSpec struct {
	Set                  string
	Index                int
	Seed                 uint64
	Category, Population string
	ID                   string
	MESQuantile          float64
}

// starResult is one simulated star (sim.Result).
type starResult struct {
	Curve  *lc.LightCurve
	Star   data.Star
	Answer data.Answer
}

// generator makes the stars of a simulated set. The simulator (simGenerator) is the only one outside tests;
// tests substitute small fast ones through Options.gen.
type generator interface {
	// version names the generator; it enters every star's seed and the manifest.
	version() string
	// generate makes one star, deterministically.
	generate(starSpec) (*starResult, error)
	// cadences returns the star's observing calendar alone (times in BKJD days and quality flags), cheaply; it
	// must match the times and flags of generate's light curve.
	cadences(starSpec) ([]float64, []int32)
}

// materialise makes one star and stamps its id on the star description and the answer; it checks that the
// generator made the category asked for, and turns a panic of the generator into an error.
func materialise(g generator, sp starSpec) (r *starResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("sets: the generator failed on star %s (set %s, index %d, seed %d): %v; report "+
				"it with these numbers", sp.ID, sp.Set, sp.Index, sp.Seed, p)
		}
	}()
	r, err = g.generate(sp)
	if err != nil {
		return nil, fmt.Errorf("sets: simulating star %s: %w", sp.ID, err)
	}
	if r == nil || r.Curve == nil {
		return nil, fmt.Errorf("sets: simulating star %s: the generator returned no light curve", sp.ID)
	}
	if err := r.Curve.Validate(); err != nil {
		return nil, fmt.Errorf("sets: simulating star %s: %w", sp.ID, err)
	}
	if r.Answer.Category != sp.Category {
		return nil, fmt.Errorf("sets: simulating star %s: asked for category %q, the generator made %q",
			sp.ID, sp.Category, r.Answer.Category)
	}
	r.Star.ID = sp.ID
	r.Answer.ID = sp.ID
	return r, nil
}

// validTimes returns the times of the cadences whose quality has no bit of lc.DefaultQualityMask set.
func validTimes(t []float64, q []int32) []float64 {
	out := make([]float64, 0, len(t))
	for i := range t {
		if q[i]&lc.DefaultQualityMask == 0 {
			out = append(out, t[i])
		}
	}
	return out
}
