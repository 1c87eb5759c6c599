package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"transitbench/engine/stat"
)

// TestSortedWindowMatchesBiweightLocation checks the sliding window's median, MAD and biweight location
// against biweightLocation's selection-based ones on random windows with outliers: the MAD is identical and
// the location agrees to 1e-12 (the sums run in another order).
func TestSortedWindowMatchesBiweightLocation(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var w sortedWindow
	var dev []float64
	for trial := range 300 {
		n := 1 + r.IntN(120)
		x := make([]float64, n)
		w.reset()
		for i := range x {
			x[i] = 1 + 1e-4*r.NormFloat64()
			if r.IntN(10) == 0 {
				x[i] += 1e-3 * r.NormFloat64()
			}
			w.insert(x[i])
		}
		// Slide: remove a few and add a few.
		for range r.IntN(5) {
			j := r.IntN(len(x))
			w.remove(x[j])
			x = append(x[:j], x[j+1:]...)
			v := 1 + 1e-4*r.NormFloat64()
			x = append(x, v)
			w.insert(v)
		}
		if !slices.IsSorted(w.x) || len(w.x) != len(x) {
			t.Fatalf("trial %d: window not sorted or wrong size", trial)
		}
		loc, mad := w.biweight()
		wantLoc, wantMad := biweightLocation(slices.Clone(x), &dev)
		if mad != wantMad || math.Abs(loc-wantLoc) > 1e-12 {
			t.Fatalf("trial %d (n=%d): window gives (%v, %v), biweightLocation (%v, %v)", trial, len(x), loc, mad, wantLoc, wantMad)
		}
	}
}

// biweightLocation is the reference the sliding window is checked against: the biweight location and MAD of x
// (reordered) by selection.
func biweightLocation(x []float64, dev *[]float64) (loc, mad float64) {
	med := stat.Median(x)
	d := (*dev)[:0]
	for _, v := range x {
		d = append(d, math.Abs(v-med))
	}
	mad = stat.Median(d)
	*dev = d
	return biweightIterate(x, med, mad), mad
}
