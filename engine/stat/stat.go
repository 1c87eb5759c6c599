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
// deviations: those below med, a_p = med − x[r−1−p], and those from med up, b_q = x[r+q] − med (r the first
// index with x[r] ≥ med), form two sequences already in increasing order. The deviation of rank m = ⌊n/2⌋ is
// found by bisecting on how many of the m smallest come from a, in O(log n) steps and without the
// unpredictable branch of a merge; for even n the rank m−1 one, averaged with it, is the larger of the two
// sequences' last elements below the split. The deviations are the same floating-point differences a merge
// or a sort would take, so this is the value MAD(x) gives, bit for bit.
func MADSorted(x []float64, med float64) float64 {
	n := len(x)
	r := sort.SearchFloat64s(x, med) // x[:r] < med ≤ x[r:]
	a := func(p int) float64 { return med - x[r-1-p] }
	b := func(q int) float64 { return x[r+q] - med }
	m := n / 2
	// The m smallest deviations are a_0 … a_{i−1} and b_0 … b_{m−i−1} for the smallest i in [lo, hi] with
	// a_i ≥ b_{m−i−1} (or i = hi): the test is monotone in i, as a_i rises and b_{m−i−1} falls with it.
	lo, hi := max(0, m-(n-r)), min(m, r)
	for lo < hi {
		i := int(uint(lo+hi) >> 1)
		if a(i) < b(m-i-1) {
			lo = i + 1
		} else {
			hi = i
		}
	}
	i, j := lo, m-lo // i deviations from a and j from b lie below rank m
	var cur float64  // rank m: the smaller of the next deviation of a and of b
	switch {
	case i == r:
		cur = b(j)
	case j == n-r:
		cur = a(i)
	default:
		cur = min(a(i), b(j))
	}
	if n%2 == 1 {
		return cur
	}
	var prev float64 // rank m−1: the larger of the last deviations taken from a and from b
	switch {
	case i == 0:
		prev = b(j - 1)
	case j == 0:
		prev = a(i - 1)
	default:
		prev = max(a(i-1), b(j-1))
	}
	return (prev + cur) / 2
}

// nth reorders x so that x[k] is the value a sort would put there, every x[:k] ≤ x[k] ≤ every x[k+1:], and
// returns it. It is a quickselect whose partition has no data-dependent branch (see partitionLess): on noise
// a branch per comparison is mispredicted half the time, which made Hoare's partition, with its two scans that
// stop at unpredictable places, take several times longer per value. The pivot is the median of the range's
// first, middle and last values. After 2·log₂ n rounds without finishing, which only adversarial orderings
// cause, it sorts what is left, so the worst case is O(n log n). x must not hold NaN.
//
// When x holds both −0 and +0 and the answer is zero, which of the two is returned depends on the algorithm:
// they compare equal, and no caller tells them apart.
func nth(x []float64, k int) float64 {
	lo, hi := 0, len(x) // x[:lo] ≤ x[lo:hi] ≤ x[hi:], and lo ≤ k < hi
	for budget := 2 * bits.Len(uint(len(x))); hi-lo > insertionMax; budget-- {
		if budget == 0 {
			slices.Sort(x[lo:hi])
			return x[k]
		}
		a, b, c := x[lo], x[lo+(hi-lo)/2], x[hi-1]
		pivot := max(min(a, b), min(max(a, b), c))
		s := lo + partitionLess(x[lo:hi], pivot)
		if s == lo {
			// Nothing is below the pivot: it is the smallest value. Set its copies apart, which also ends the
			// rounds that would make no progress on a range of equal values.
			e := lo + partitionNotGreater(x[lo:hi], pivot)
			if k < e {
				return pivot
			}
			lo = e
			continue
		}
		if k < s {
			hi = s
		} else {
			lo = s
		}
	}
	insertionSort(x[lo:hi])
	return x[k]
}

// insertionMax is the longest range nth leaves to insertion sort.
const insertionMax = 16

// partitionLess moves the values of x below pivot to its front, in place, and returns their number. Each
// step swaps x[i] with the first value not yet known to be below the pivot and advances that position by
// the comparison's outcome (Lomuto's scheme without its branch), so the processor never guesses.
func partitionLess(x []float64, pivot float64) int {
	s := 0
	for i, v := range x {
		x[i] = x[s]
		x[s] = v
		s += b2i(v < pivot)
	}
	return s
}

// partitionNotGreater is partitionLess for the values not above pivot.
func partitionNotGreater(x []float64, pivot float64) int {
	s := 0
	for i, v := range x {
		x[i] = x[s]
		x[s] = v
		s += b2i(!(pivot < v))
	}
	return s
}

// insertionSort sorts the short x.
func insertionSort(x []float64) {
	for i := 1; i < len(x); i++ {
		v := x[i]
		j := i
		for ; j > 0 && x[j-1] > v; j-- {
			x[j] = x[j-1]
		}
		x[j] = v
	}
}

// b2i is 1 for true and 0 for false; the compiler makes it a flag-to-register move, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
