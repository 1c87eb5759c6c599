package sets

import "transitbench/data/sim"

// TrainPlanetKnobs is the train pool's one departure from the simulator's defaults: a share of its injected
// stars get a planet whose MES is drawn log-uniform in MES (sim.PlanetKnobs.HighMESShare, HighMES) instead of
// uniform in 4–20. Without it every signal above MES 20 in the pool is a binary or a false alarm, and a vetter
// trained on it learns that a strong signal is false, which real hot Jupiters (BLS SNR in the hundreds) are
// not. dev, A and B are untouched. It is recorded in the train pool's manifest (Set.TrainPlanet).
type TrainPlanetKnobs struct {
	Share float64   `json:"high_mes_share"`
	MES   sim.Range `json:"high_mes"`
}

// TrainPlanet is the train pool's TrainPlanetKnobs: half the injected stars at MES 20–2,000, log-uniform. The
// top decade is where real hot Jupiters lie (Rp/R★ ≈ 0.1, a 1 % depth over a year of Kepler data: MES in the
// hundreds to thousands); with the pool's strong planets stopping at MES 200 (Rp/R★ up to ≈ 0.08 on a quiet
// star), every deeper signal it held was a binary, and a vetter trained on it rejected Kepler-8 b and
// Kepler-77 b. Depths stay within Planet.MaxRpRs.
var TrainPlanet = TrainPlanetKnobs{Share: 0.5, MES: sim.Range{Lo: 20, Hi: 2000}}

// simGenerator makes stars with the simulator (data/sim) and its default knobs: a set is a function of the
// simulator's version, never of tuning done elsewhere. The train pool alone uses train (TrainPlanet).
type simGenerator struct{ knobs, train *sim.Knobs }

func newSimGenerator() generator {
	train := sim.DefaultKnobs()
	train.Planet.HighMESShare, train.Planet.HighMES = TrainPlanet.Share, TrainPlanet.MES
	return simGenerator{knobs: sim.DefaultKnobs(), train: train}
}

func (simGenerator) version() string { return sim.Version }

// knobsFor returns the knobs of set name's stars.
func (g simGenerator) knobsFor(set string) *sim.Knobs {
	if set == Train && g.train != nil {
		return g.train
	}
	return g.knobs
}

func (g simGenerator) generate(sp starSpec) (*starResult, error) {
	r, err := sim.Generate(sim.Spec(sp), g.knobsFor(sp.Set))
	if err != nil {
		return nil, err
	}
	return &starResult{Curve: r.Curve, Star: r.Star, Answer: r.Answer}, nil
}

func (g simGenerator) cadences(sp starSpec) ([]float64, []int32) {
	return sim.Cadences(sim.Spec(sp), g.knobsFor(sp.Set))
}
