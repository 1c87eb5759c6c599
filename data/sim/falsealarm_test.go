package sim_test

import (
	"math"
	"testing"

	"transitbench/data"
	"transitbench/data/sim"
	"transitbench/engine/bls"
)

// TestFalseAlarmsAreTheStrongestBLSPeak checks that the false alarms are what a search picks up (SPEC A3): on
// untouched false-alarm stars, two of each kind, the strongest peak of a box search over the detrended light
// curve (engine/bls, SNR objective, the default grid at oversampling 1 to keep the test fast) is the planted
// signal on at least half of the stars. The peak is the planted signal when its period P' is within 1 % of
// n·P or P/n (n = 1…50, P the planted period) and one of its mid-times lies within its duration plus 0.1 d of a
// planted mid-time t0 + kP: it folds the planted events, or a subset of them.
func TestFalseAlarmsAreTheStrongestBLSPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("runs twelve box searches")
	}
	kinds := []string{sim.KindDesatGlitch, sim.KindSingleEvents, sim.KindSpotDips, sim.KindHarmonic, sim.KindGapRamps, sim.KindRollingBand}
	hits, total := 0, 0
	for ki, kind := range kinds {
		k := sim.DefaultKnobs()
		k.FalseAlarm.Kinds = []sim.KindWeight{{Kind: kind, Weight: 1}}
		for i := range 2 {
			spec := sim.Spec{Set: "fa", Index: i, Seed: uint64(500 + 10*ki + i), Category: data.CategoryUntouched,
				Population: data.PopulationFalseAlarm, ID: "fa"}
			r := generate(t, spec, k)
			fa := r.Answer.FalseAlarm
			if fa == nil || fa.Kind != kind || !(fa.PeriodDays > 0) {
				t.Fatalf("%s star: false alarm %+v", kind, fa)
			}
			tv, flat := residuals(r.Curve, nil, 0, 1e9)
			dy := make([]float64, len(tv))
			for j := range dy {
				dy[j] = r.Curve.FluxErr[0]
			}
			g, err := bls.DefaultGrid(tv, bls.GridOptions{Oversample: 1})
			if err != nil {
				t.Fatal(err)
			}
			g.Workers = 2
			res, err := bls.Search(tv, flat, dy, g, bls.SNR)
			if err != nil {
				t.Fatal(err)
			}
			peaks := res.Peaks(1)
			if len(peaks) == 0 {
				t.Errorf("%s star %d: no BLS peak", kind, i)
				continue
			}
			pk := peaks[0]
			hit := folds(pk, fa.PeriodDays, fa.T0Days)
			total++
			if hit {
				hits++
			}
			t.Logf("%-13s star %d: planted P %.4f d, strongest BLS peak P %.4f d SNR %.1f (hit %v)", kind, i, fa.PeriodDays, pk.PeriodDays, pk.SNR, hit)
		}
	}
	if 2*hits < total {
		t.Errorf("the planted signal is the strongest BLS peak on %d of %d false-alarm stars, want at least half", hits, total)
	}
}

// folds reports whether the BLS peak folds the planted signal of period p and mid-time t0 (see the test).
func folds(pk bls.Peak, p, t0 float64) bool {
	for n := 1.0; n <= 50; n++ {
		for _, q := range []float64{n * p, p / n} {
			if math.Abs(pk.PeriodDays/q-1) > 0.01 {
				continue
			}
			// Distance from the peak's mid-time to the nearest planted mid-time.
			dt := pk.T0Days - t0
			dt -= p * math.Floor(dt/p+0.5)
			if math.Abs(dt) <= pk.DurationDays+0.1 {
				return true
			}
		}
	}
	return false
}
