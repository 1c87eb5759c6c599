package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"transitbench/data"
	"transitbench/data/sim"
)

// TestScanBeyondSizedPeriod: the refinement of a candidate at the top of the coarse grid steps a little past
// the longest period the phase-bin scratch was sized for (a third of the span); scan must grow the scratch
// rather than slice past it, and still measure the planted box.
func TestScanBeyondSizedPeriod(t *testing.T) {
	const (
		cadence = 0.0204336 // Kepler long cadence, days
		span    = 372.0
		depth   = 2e-3
		dur     = 0.3
	)
	pmax := span / 3
	period := pmax * 1.003 // two refinement steps of the coarse grid past pmax
	var tt, y, dy []float64
	for i := 0; float64(i)*cadence <= span; i++ {
		ti := float64(i) * cadence
		f := 1.0
		if ph := math.Mod(ti-1+period/2, period) - period/2; math.Abs(ph) < dur/2 {
			f -= depth
		}
		tt, y, dy = append(tt, ti), append(y, f), append(dy, 1e-4)
	}
	s := newSeries(tt, y, dy, pmax)
	got := s.scan(period)
	if math.Abs(got.depth/depth-1) > 0.2 {
		t.Errorf("depth %.2e at P = %.3f d, want %.2e", got.depth, period, depth)
	}
}

// BenchmarkStarterDevStar runs the starter's work on four simulated dev-like stars per op (an injected planet
// on a random star and on a false-alarm star, an untouched star and an eclipsing binary, each a full Kepler-like
// light curve from the repository's simulator): reading lightcurve.csv, the detrending and the BLS search.
// It reports the time per star besides the time per op.
func BenchmarkStarterDevStar(b *testing.B) {
	specs := []sim.Spec{
		{Seed: 11, Category: data.CategoryInjected, Population: data.PopulationRandom},
		{Seed: 12, Category: data.CategoryInjected, Population: data.PopulationFalseAlarm},
		{Seed: 13, Category: data.CategoryUntouched, Population: data.PopulationRandom},
		{Seed: 14, Category: data.CategoryEB},
	}
	dir := b.TempDir()
	var paths []string
	for i, spec := range specs {
		spec.Set, spec.Index, spec.ID = "bench", i, fmt.Sprintf("bench-%d", i)
		r, err := sim.Generate(spec, sim.DefaultKnobs())
		if err != nil {
			b.Fatal(err)
		}
		star := filepath.Join(dir, spec.ID)
		if err := data.WriteStarDir(star, r.Curve, &r.Star); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, filepath.Join(star, data.LightCurveFile))
	}
	for b.Loop() {
		for _, path := range paths {
			t, f, e, err := readLightCurve(path)
			if err != nil {
				b.Fatal(err)
			}
			bestPeak(t, f, e)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N*len(paths)), "sec/star")
}

// TestMedianMatchesSort: median selects the middle values instead of sorting, and must return exactly what the
// middle of the sorted values gives, for odd and even lengths, ties and already sorted input.
func TestMedianMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n < 300; n++ {
		for _, kind := range []string{"normal", "ties", "sorted", "reversed"} {
			x := make([]float64, n)
			for i := range x {
				switch kind {
				case "ties":
					x[i] = float64(rng.IntN(5))
				case "sorted":
					x[i] = float64(i) / 7
				case "reversed":
					x[i] = float64(n-i) / 7
				default:
					x[i] = rng.NormFloat64()
				}
			}
			before := slices.Clone(x)
			s := slices.Clone(x)
			slices.Sort(s)
			want := s[n/2]
			if n%2 == 0 {
				want = 0.5 * (s[n/2-1] + s[n/2])
			}
			if got := median(x); got != want {
				t.Fatalf("median of %d %s values: %v, want %v", n, kind, got, want)
			}
			if !slices.Equal(x, before) {
				t.Fatalf("median of %d %s values changed its input", n, kind)
			}
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of no values is not NaN")
	}
}
