package data

import (
	"math"
	"math/rand/v2"
	"testing"
)

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
