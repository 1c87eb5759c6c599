package detrend

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSlideWindowMatchesInsertThenRemove checks the paired slide of a knot's window against inserting every
// entering value and then removing every leaving one, bit for bit, over random walks of window bounds (forward
// steps, jumps past the window's end, bounds that would move back) on flux drawn from a few levels, with +0
// and −0 among them on some walks, so that ties and the zero case canPair excludes are common.
func TestSlideWindowMatchesInsertThenRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for walk := range 400 {
		levels := []float64{0.5, 1, 1 + 1e-9, 1.25, 2}
		if walk%2 == 0 {
			levels = append(levels, 0, math.Copysign(0, -1))
		}
		f := make([]float64, 400)
		use := make([]bool, len(f))
		for i := range f {
			f[i] = levels[rng.IntN(len(levels))]
			use[i] = rng.IntN(8) != 0
		}
		var got, want []float64
		lo, hi := 0, 0
		wantLo, wantHi := 0, 0
		for newLo := 0; newLo < len(f); {
			newHi := min(len(f), newLo+rng.IntN(40))
			got, lo, hi = slideWindow(got, f, use, lo, hi, newLo, newHi)
			for ; wantHi < newHi; wantHi++ {
				if use[wantHi] {
					want = insertSorted(want, f[wantHi])
				}
			}
			for ; wantLo < newLo; wantLo++ {
				if use[wantLo] {
					want = removeSorted(want, f[wantLo])
				}
			}
			if lo != wantLo || hi != wantHi || len(got) != len(want) {
				t.Fatalf("walk %d: bounds [%d, %d) with %d values, want [%d, %d) with %d", walk, lo, hi, len(got),
					wantLo, wantHi, len(want))
			}
			for k := range got {
				if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
					t.Fatalf("walk %d, window [%d, %d): %v, want %v", walk, lo, hi, got, want)
				}
			}
			newLo += rng.IntN(12) - 2 // mostly forward, sometimes back
			newLo = max(newLo, 0)
		}
	}
}

// TestSearchSorted2MatchesSort checks the double branch-free bisection against sort.SearchFloat64s on sorted
// windows of every length up to 100 with ties, for values below, between, equal to and above the window's.
func TestSearchSorted2MatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for iter := range 5000 {
		x := make([]float64, iter%101)
		for i := range x {
			x[i] = float64(rng.IntN(40)) / 4
		}
		slices.Sort(x)
		vals := []float64{-1, 0, 0.125, float64(rng.IntN(40)) / 4, 10 * rng.Float64(), 9.75, 10, 11}
		for _, r := range vals {
			a := vals[rng.IntN(len(vals))]
			p, q := searchSorted2(x, r, a)
			if wp, wq := sort.SearchFloat64s(x, r), sort.SearchFloat64s(x, a); p != wp || q != wq {
				t.Fatalf("len %d: searchSorted2(%v, %v) = %d, %d; sort.SearchFloat64s %d, %d", len(x), r, a, p, q, wp, wq)
			}
		}
	}
}
