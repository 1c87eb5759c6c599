package stat

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedMedian is the reference median: sort, then the middle value or the mean of the two middle values.
func sortedMedian(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return 0.5 * (s[n/2-1] + s[n/2])
}

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
			slices.Sort(x)
		}
		want := sortedMedian(x)
		s := slices.Sorted(slices.Values(x))
		if got := MedianSorted(s); got != want {
			t.Fatalf("iteration %d, n %d: MedianSorted %v, want %v", iter, n, got, want)
		}
		if got := Median(x); got != want {
			t.Fatalf("iteration %d, n %d: Median %v, want %v", iter, n, got, want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

// TestMedianEven checks that an even-length median averages the two middle values.
func TestMedianEven(t *testing.T) {
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median(4,1,3,2) = %v, want 2.5", got)
	}
	if got := MedianSorted([]float64{1, 2, 3, 10}); got != 2.5 {
		t.Errorf("MedianSorted(1,2,3,10) = %v, want 2.5", got)
	}
}

// TestMADSortedMatchesMAD checks the bisection-based MAD of a sorted sample against the selection-based MAD, bit
// for bit, on samples with outliers and ties, odd and even sizes.
func TestMADSortedMatchesMAD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 3000 {
		n := 1 + rng.IntN(150)
		x := make([]float64, n)
		for i := range x {
			x[i] = 1 + 1e-4*rng.NormFloat64()
			switch rng.IntN(10) {
			case 0:
				x[i] += 1e-2 * rng.NormFloat64()
			case 1:
				x[i] = float64(rng.IntN(3)) // ties
			}
		}
		s := slices.Sorted(slices.Values(x))
		med := MedianSorted(s)
		got := MADSorted(s, med)
		want := MAD(slices.Clone(x))
		if got != want {
			t.Fatalf("iteration %d, n %d: MADSorted %v, MAD %v", iter, n, got, want)
		}
	}
	// Edge cases of the bisection: one or two values, constant samples, and the m smallest deviations all on
	// one side of the median.
	for _, x := range [][]float64{{5}, {1, 2}, {2, 2}, {3, 3, 3}, {1, 1, 1, 9}, {1, 9, 9, 9}, {1, 2, 3, 100, 101},
		{-100, -99, 0, 1, 2}, {0, 0, 1, 1}, {1, 2, 2, 2, 2, 3}} {
		med := MedianSorted(x)
		if got, want := MADSorted(x, med), MAD(slices.Clone(x)); got != want {
			t.Errorf("MADSorted(%v) = %v, MAD %v", x, got, want)
		}
	}
	// |x − 3| of 1, 2, 3, 4, 10 is 2, 1, 0, 1, 7: the median deviation is 1.
	if got := MAD([]float64{10, 1, 3, 2, 4}); got != 1 {
		t.Errorf("MAD(10,1,3,2,4) = %v, want 1", got)
	}
}

// TestMADToSigma checks the constant against 1/Φ⁻¹(3/4) = 1/(√2·erf⁻¹(1/2)).
func TestMADToSigma(t *testing.T) {
	want := 1 / (math.Sqrt2 * math.Erfinv(0.5))
	if math.Abs(MADToSigma-want) > 1e-15 {
		t.Errorf("MADToSigma = %v, 1/Φ⁻¹(3/4) = %v", MADToSigma, want)
	}
	if math.Abs(MADToSigma4-want) > 5e-5 {
		t.Errorf("MADToSigma4 = %v is not 1/Φ⁻¹(3/4) = %v to four decimals", MADToSigma4, want)
	}
}

func TestFinite(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want bool
	}{{0, true}, {-1e308, true}, {math.SmallestNonzeroFloat64, true}, {math.NaN(), false}, {math.Inf(1), false}, {math.Inf(-1), false}} {
		if got := Finite(c.x); got != c.want {
			t.Errorf("Finite(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestExtent(t *testing.T) {
	lo, hi := Extent([]float64{math.NaN(), 3, math.Inf(1), -2, 7.5, math.Inf(-1)})
	if lo != -2 || hi != 7.5 {
		t.Errorf("Extent = %v, %v; want -2, 7.5 (the finite values only)", lo, hi)
	}
	if lo, hi := Extent([]float64{math.NaN(), math.Inf(1)}); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("Extent of no finite value = %v, %v; want NaN, NaN", lo, hi)
	}
}

// TestNthMatchesSort checks that nth returns the value a sort puts at k and leaves x partitioned around it, on
// noise, on few distinct values (down to one, where every pivot is the smallest value), on sorted, reversed
// and organ-pipe orders, at sizes around the insertion-sort cut-off and up to 20,000.
func TestNthMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for iter := range 3000 {
		n := 1 + rng.IntN(3*insertionMax)
		if iter%50 == 0 {
			n = 1 + rng.IntN(20000)
		}
		x := make([]float64, n)
		levels := 1 + rng.IntN(4)
		for i := range x {
			switch iter % 5 {
			case 0, 1:
				x[i] = rng.NormFloat64()
			case 2:
				x[i] = float64(rng.IntN(levels))
			case 3:
				x[i] = float64(min(i, n-i)) // organ pipe
			case 4:
				x[i] = float64(i)
			}
		}
		if iter%7 == 0 {
			slices.Reverse(x)
		}
		k := rng.IntN(n)
		want := slices.Sorted(slices.Values(x))
		got := nth(x, k)
		if got != want[k] {
			t.Fatalf("iteration %d, n %d, k %d: nth %v, sort %v", iter, n, k, got, want[k])
		}
		if x[k] != got || slices.Max(x[:k+1]) != got || slices.Min(x[k:]) != got {
			t.Fatalf("iteration %d, n %d, k %d: x is not partitioned around x[k]", iter, n, k)
		}
		if !slices.Equal(slices.Sorted(slices.Values(x)), want) {
			t.Fatalf("iteration %d, n %d: nth changed the values", iter, n)
		}
	}
}
