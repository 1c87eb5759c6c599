package sim_test

import (
	"testing"

	"transitbench/data"
	"transitbench/data/sim"
)

// TestHighMESShare: with Planet.HighMESShare set (as the train pool sets it), about that share of injected
// planets get an MES drawn log-uniform in Planet.HighMES, the rest stay in Planet.MES; with the default 0 the
// same stars get exactly the planets they always had (the dev, A and B fingerprints depend on it).
func TestHighMESShare(t *testing.T) {
	def := sim.DefaultKnobs()
	high := sim.DefaultKnobs()
	high.Planet.HighMESShare, high.Planet.HighMES = 0.5, sim.Range{Lo: 20, Hi: 200}
	strong := 0
	const n = 12
	for i := range n {
		spec := sim.Spec{Set: "train", Index: i, Seed: uint64(1000 + i), Category: data.CategoryInjected,
			Population: data.PopulationRandom, ID: "t"}
		a, err := sim.Generate(spec, def)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Generate(spec, high)
		if err != nil {
			t.Fatal(err)
		}
		pa, pb := a.Answer.Planet, b.Answer.Planet
		if pa == nil || pb == nil {
			t.Fatalf("star %d: no planet injected", i)
		}
		if pa.MES < 3.9 || pa.MES > 20.5 {
			t.Errorf("star %d: default MES %.1f outside 4–20", i, pa.MES)
		}
		if pb.MES > 20.5 {
			strong++
			if pb.MES > 205 || pb.Depth <= pa.Depth {
				t.Errorf("star %d: high-MES planet MES %.1f depth %.5f (default MES %.1f depth %.5f)", i, pb.MES, pb.Depth, pa.MES, pa.Depth)
			}
		} else if *pb != *pa {
			t.Errorf("star %d: a star not drawn high got another planet: %+v vs %+v", i, *pb, *pa)
		}
	}
	if strong < 2 || strong > n-2 {
		t.Errorf("%d of %d planets drawn at high MES, want about half", strong, n)
	}
}
