package data

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

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

func TestRobustScatterGaussian(t *testing.T) {
	// For white Gaussian noise of σ = 1e-4 the estimator returns σ within its sampling error: the MAD of
	// n = 100,000 differences has a relative standard error ≈ 1.17/√n ≈ 0.4 %, so 2 % is a loose bound.
	rng := rand.New(rand.NewPCG(7, 8))
	f := make([]float64, 100000)
	for i := range f {
		f[i] = 1 + 1e-4*rng.NormFloat64() + 1e-3*float64(i)/float64(len(f)) // plus a slow trend it must ignore
		if i%500 == 0 {
			f[i] = math.NaN()
		}
	}
	if s := RobustScatter(f); math.Abs(s/1e-4-1) > 0.02 {
		t.Errorf("scatter %v, want 1e-4 within 2 %%", s)
	}
	if !math.IsNaN(RobustScatter([]float64{1, math.NaN()})) {
		t.Error("scatter of a single finite value is not NaN")
	}
}
