package fold

import "math"

// Phase returns, for each time, its distance in days from the nearest mid-transit time t0 + n·period:
// φ = (t − t0) − period·⌊(t − t0)/period + ½⌋, in [−period/2, period/2). NaN times give NaN.
func Phase(t []float64, period, t0 float64) []float64 {
	return PhaseInto(make([]float64, len(t)), t, period, t0)
}

// PhaseInto is Phase writing into dst, which must have the length of t; it returns dst.
func PhaseInto(dst, t []float64, period, t0 float64) []float64 {
	if len(dst) != len(t) {
		panic("fold: PhaseInto destination length differs from t")
	}
	half := period / 2
	for i, x := range t {
		d := x - t0
		p := d - period*math.Floor(d/period+0.5)
		// Rounding can land exactly on the upper edge or a hair below the lower one.
		if p >= half {
			p -= period
		} else if p < -half {
			p += period
		}
		dst[i] = p
	}
	return dst
}

// Epochs returns each time's transit number n = ⌊(t − t0)/period + ½⌋, the n of the nearest mid-transit time
// t0 + n·period; NaN times give math.MinInt. Odd and even transits are n odd and n even.
func Epochs(t []float64, period, t0 float64) []int {
	out := make([]int, len(t))
	for i, x := range t {
		e := math.Floor((x-t0)/period + 0.5)
		if math.IsNaN(e) {
			out[i] = math.MinInt
			continue
		}
		out[i] = int(e)
	}
	return out
}

// InTransit reports for each time whether it lies within ±duration/2 of a mid-transit time: |φ| < duration/2.
func InTransit(t []float64, period, t0, duration float64) []bool {
	out := make([]bool, len(t))
	for i, p := range Phase(t, period, t0) {
		out[i] = math.Abs(p) < duration/2
	}
	return out
}

// Bin averages y in n equal bins of x over [lo, hi): bin j covers [lo + j·w, lo + (j+1)·w), w = (hi − lo)/n,
// and its center is lo + (j + ½)·w. mean is the bin's mean of y, err its standard error s/√count (s the
// sample standard deviation), count the number of points; an empty bin has NaN mean and err, a bin of one
// point NaN err. Points with NaN x or y, or x outside [lo, hi), are skipped. Bin panics when n < 1,
// hi ≤ lo or x and y differ in length.
func Bin(x, y []float64, lo, hi float64, n int) (centers, mean, err []float64, count []int) {
	if n < 1 || !(hi > lo) || len(x) != len(y) {
		panic("fold: Bin needs n ≥ 1, hi > lo and x, y of equal length")
	}
	w := (hi - lo) / float64(n)
	centers = make([]float64, n)
	mean = make([]float64, n)
	err = make([]float64, n)
	count = make([]int, n)
	m2 := make([]float64, n) // running sum of squared deviations (Welford)
	for i, xi := range x {
		yi := y[i]
		if math.IsNaN(xi) || math.IsNaN(yi) || xi < lo || xi >= hi {
			continue
		}
		j := min(int((xi-lo)/w), n-1)
		count[j]++
		d := yi - mean[j]
		mean[j] += d / float64(count[j])
		m2[j] += d * (yi - mean[j])
	}
	for j := range n {
		centers[j] = lo + (float64(j)+0.5)*w
		switch {
		case count[j] == 0:
			mean[j], err[j] = math.NaN(), math.NaN()
		case count[j] == 1:
			err[j] = math.NaN()
		default:
			err[j] = math.Sqrt(m2[j]/float64(count[j]-1)) / math.Sqrt(float64(count[j]))
		}
	}
	return centers, mean, err, count
}
