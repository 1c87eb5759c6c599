package stat

import (
	"math"
	"math/bits"
	"slices"
	"sort"
)

// MADToSigma converts a median absolute deviation to the standard deviation of a normal distribution,
// 1/Φ⁻¹(3/4) = 1.482602218505602. It is untyped so that products with other constants fold exactly.
const MADToSigma = 1.482602218505602

// MADToSigma4 is MADToSigma rounded to four decimals, 1.4826, the value wotan and the reference pipelines
// use. The detrender's clipping and the pipelines' noise estimates are defined with it; changing it to
// MADToSigma would move their results in the last digits.
const MADToSigma4 = 1.4826

// Finite reports whether x is neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Median returns the median of x, the mean of the two middle values when len(x) is even, reordering x; O(n)
// on average (quickselect). It is NaN for an empty slice. x must not hold NaN.
func Median(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	hi := nth(x, n/2)
	if n%2 == 1 {
		return hi
	}
	// After nth, x[:n/2] holds the n/2 smallest values; the largest of them is the lower middle.
	return (slices.Max(x[:n/2]) + hi) / 2
}

// MedianSorted returns the median of the sorted, non-empty x: x[n/2] for odd n, else (x[n/2−1] + x[n/2])/2.
func MedianSorted(x []float64) float64 {
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// MAD returns the median absolute deviation of x from its median, median(|xᵢ − median(x)|), reordering x and
// overwriting it with the deviations. It is NaN for an empty slice.
func MAD(x []float64) float64 {
	med := Median(x)
	for i := range x {
		x[i] = math.Abs(x[i] - med)
	}
	return Median(x)
}

// MADSorted returns median(|xᵢ − med|) for the sorted, non-empty x and its median med, without sorting the
// deviations: those below and above med form two sequences already in increasing order, merged from med
// outwards up to the middle rank. It is the value MAD(x) gives, bit for bit.
func MADSorted(x []float64, med float64) float64 {
	n := len(x)
	r := sort.SearchFloat64s(x, med) // x[:r] < med ≤ x[r:]
	lo, hi := r-1, r
	// Deviations of rank 0 … n/2 in increasing order; the median is rank (n−1)/2 and, for even n, n/2.
	var prev, cur float64
	for k := 0; k <= n/2; k++ {
		prev = cur
		if hi >= n || (lo >= 0 && med-x[lo] <= x[hi]-med) {
			cur = med - x[lo]
			lo--
		} else {
			cur = x[hi] - med
			hi++
		}
	}
	if n%2 == 1 {
		return cur
	}
	return (prev + cur) / 2
}

// nth reorders x so that x[k] is the value a sort would put there, every x[:k] ≤ x[k] ≤ every x[k+1:], and
// returns it (Hoare's selection with a median-of-three pivot). After 2·log₂ n rounds without finishing, which
// only adversarial orderings cause, it sorts what is left, so the worst case is O(n log n). x must not hold NaN.
func nth(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for budget := 2 * bits.Len(uint(len(x))); hi > lo; budget-- {
		if budget == 0 {
			slices.Sort(x[lo : hi+1])
			return x[k]
		}
		mid := lo + (hi-lo)/2
		if x[mid] < x[lo] {
			x[mid], x[lo] = x[lo], x[mid]
		}
		if x[hi] < x[lo] {
			x[hi], x[lo] = x[lo], x[hi]
		}
		if x[hi] < x[mid] {
			x[hi], x[mid] = x[mid], x[hi]
		}
		pivot := x[mid]
		i, j := lo, hi
		for i <= j {
			for x[i] < pivot {
				i++
			}
			for x[j] > pivot {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}

// Extent returns the smallest and largest finite values of v, or NaN, NaN when there are none.
func Extent(v []float64) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	for _, x := range v {
		if !Finite(x) {
			continue
		}
		if math.IsNaN(lo) || x < lo {
			lo = x
		}
		if math.IsNaN(hi) || x > hi {
			hi = x
		}
	}
	return lo, hi
}
