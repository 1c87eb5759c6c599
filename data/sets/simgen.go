package sets

import "transitbench/data/sim"

// simGenerator makes stars with the simulator (data/sim) and its default knobs: a set is a function of the
// simulator's version, never of tuning done elsewhere.
type simGenerator struct{ knobs *sim.Knobs }

func newSimGenerator() generator { return simGenerator{knobs: sim.DefaultKnobs()} }

func (simGenerator) version() string { return sim.Version }

func (g simGenerator) generate(sp starSpec) (*starResult, error) {
	r, err := sim.Generate(sim.Spec(sp), g.knobs)
	if err != nil {
		return nil, err
	}
	return &starResult{Curve: r.Curve, Star: r.Star, Answer: r.Answer}, nil
}

func (g simGenerator) cadences(sp starSpec) ([]float64, []int32) {
	return sim.Cadences(sim.Spec(sp), g.knobs)
}
