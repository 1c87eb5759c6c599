package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMedianSelectMatchesSort checks that selection gives bit-identical medians to sorting, on random data
// with ties, for even and odd lengths.
func TestMedianSelectMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n := 1 + r.IntN(300)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(r.IntN(50)) + r.NormFloat64()*float64(trial%2) // ties on even trials
		}
		s := slices.Clone(x)
		slices.Sort(s)
		want := median(s)
		if got := medianSelect(slices.Clone(x)); got != want {
			t.Fatalf("trial %d (n=%d): medianSelect = %v, sorted median = %v", trial, n, got, want)
		}
		k := r.IntN(n)
		if got := selectKth(slices.Clone(x), k); got != s[k] {
			t.Fatalf("trial %d: selectKth(%d) = %v, want %v", trial, k, got, s[k])
		}
	}
}
