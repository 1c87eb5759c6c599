package noise

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMedianMatchesSort compares the selection median with a sorted one on random data with many ties and on
// sorted input (the classic bad case for naive pivots), at sizes up to 20,000.
func TestMedianMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := range 2000 {
		n := 1 + rng.IntN(60)
		if iter%100 == 0 {
			n = 1 + rng.IntN(20000)
		}
		x := make([]float64, n)
		levels := 1 + rng.IntN(n+1) // few levels → many ties
		for i := range x {
			x[i] = float64(rng.IntN(levels)) + 0.25*float64(rng.IntN(2))
			if iter%3 == 0 {
				x[i] = rng.NormFloat64()
			}
		}
		if iter%7 == 0 {
			slices.Sort(x) // sorted input, the classic bad case for naive pivots
		}
		s := slices.Clone(x)
		slices.Sort(s)
		want := s[n/2]
		if n%2 == 0 {
			want = 0.5 * (s[n/2-1] + s[n/2])
		}
		if got := median(x); got != want {
			t.Fatalf("iteration %d, n %d: median %v, want %v", iter, n, got, want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}
