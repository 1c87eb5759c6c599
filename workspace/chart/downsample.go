package chart

import (
	"math"

	"transitbench/engine/stat"
)

// Column is what falls into one screen column of a plot: the smallest and largest finite y and how many
// points there were (N = 0: an empty column, Min and Max are NaN).
type Column struct {
	Min, Max float64
	N        int
}

// MinMax bins the points (x[i], y[i]) into len(dst) columns of equal width over [xlo, xhi] and records each
// column's minimum and maximum y. It is the honest way to draw 17,000 cadences in 100 columns: decimation
// (keeping every k-th point) can drop the few cadences of a transit, whereas a column's minimum always shows
// the deepest point in it. Points with a non-finite x or y, or x outside [xlo, xhi], are skipped; x = xhi
// falls in the last column. It returns dst. It panics if x and y differ in length.
func MinMax(dst []Column, x, y []float64, xlo, xhi float64) []Column {
	if len(x) != len(y) {
		panic("plot: MinMax: x and y differ in length")
	}
	for i := range dst {
		dst[i] = Column{Min: math.NaN(), Max: math.NaN()}
	}
	n := len(dst)
	if n == 0 || !(xhi > xlo) {
		return dst
	}
	scale := float64(n) / (xhi - xlo)
	for i, xi := range x {
		yi := y[i]
		if math.IsNaN(xi) || math.IsInf(xi, 0) || math.IsNaN(yi) || math.IsInf(yi, 0) || xi < xlo || xi > xhi {
			continue
		}
		c := int((xi - xlo) * scale)
		if c >= n {
			c = n - 1
		}
		col := &dst[c]
		if col.N == 0 {
			col.Min, col.Max = yi, yi
		} else {
			col.Min = math.Min(col.Min, yi)
			col.Max = math.Max(col.Max, yi)
		}
		col.N++
	}
	return dst
}

// Marks returns, for len(dst) columns over [xlo, xhi], whether any x[i] with mark[i] set falls in the column
// (the columns holding flagged cadences, say). Non-finite x are skipped. It returns dst.
func Marks(dst []bool, x []float64, mark []bool, xlo, xhi float64) []bool {
	for i := range dst {
		dst[i] = false
	}
	n := len(dst)
	if n == 0 || !(xhi > xlo) {
		return dst
	}
	scale := float64(n) / (xhi - xlo)
	for i, xi := range x {
		if !mark[i] || math.IsNaN(xi) || math.IsInf(xi, 0) || xi < xlo || xi > xhi {
			continue
		}
		c := int((xi - xlo) * scale)
		if c >= n {
			c = n - 1
		}
		dst[c] = true
	}
	return dst
}

// FlagShare returns, for len(dst) columns over [xlo, xhi], the share of the points falling in each column that
// have mark set (NaN for a column with no point). Non-finite x are skipped. It returns dst.
func FlagShare(dst []float64, x []float64, mark []bool, xlo, xhi float64) []float64 {
	n := len(dst)
	total := make([]int, n)
	marked := make([]int, n)
	if n > 0 && xhi > xlo {
		scale := float64(n) / (xhi - xlo)
		for i, xi := range x {
			if math.IsNaN(xi) || math.IsInf(xi, 0) || xi < xlo || xi > xhi {
				continue
			}
			c := min(int((xi-xlo)*scale), n-1)
			total[c]++
			if mark[i] {
				marked[c]++
			}
		}
	}
	for i := range dst {
		dst[i] = math.NaN()
		if total[i] > 0 {
			dst[i] = float64(marked[i]) / float64(total[i])
		}
	}
	return dst
}

// Extent returns the smallest and largest finite values of v, or NaN, NaN when there are none (stat.Extent).
func Extent(v []float64) (lo, hi float64) { return stat.Extent(v) }
