package sim

import "math"

// selectKth returns the k-th smallest element of x (0-based), reordering x: Hoare's quickselect with a
// median-of-three pivot, O(n) expected. It is exact, so a median found this way equals the sorted one.
func selectKth(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		// Order x[lo], x[mid], x[hi] and use the middle one as pivot.
		if x[mid] < x[lo] {
			x[mid], x[lo] = x[lo], x[mid]
		}
		if x[hi] < x[lo] {
			x[hi], x[lo] = x[lo], x[hi]
		}
		if x[hi] < x[mid] {
			x[hi], x[mid] = x[mid], x[hi]
		}
		p := x[mid]
		i, j := lo, hi
		for i <= j {
			for x[i] < p {
				i++
			}
			for x[j] > p {
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

// medianSelect returns the median of x (the mean of the two middle elements for even length), reordering x;
// NaN for an empty slice.
func medianSelect(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	upper := selectKth(x, n/2)
	if n%2 == 1 {
		return upper
	}
	// After selection every element left of n/2 is ≤ upper; the lower middle is their maximum.
	lower := x[0]
	for _, v := range x[1 : n/2] {
		lower = math.Max(lower, v)
	}
	return (lower + upper) / 2
}
