package chart

import (
	"math"
	"strconv"
)

// Scale maps values in [Lo, Hi] linearly (or logarithmically, when Log is set) onto N pixels 0 … N−1.
// For a vertical axis set Flip, so that Hi lands on pixel 0 (the top row).
type Scale struct {
	Lo, Hi float64
	N      int
	Log    bool
	Flip   bool
}

// Pixel returns the pixel of v, which may lie outside 0 … N−1 when v is outside [Lo, Hi]; it returns −1 for
// NaN (and for v ≤ 0 on a log scale) and 0 when the scale is degenerate (Hi ≤ Lo or N < 1).
func (s Scale) Pixel(v float64) int {
	lo, hi := s.Lo, s.Hi
	if s.Log {
		if v <= 0 || lo <= 0 {
			return -1
		}
		v, lo, hi = math.Log(v), math.Log(lo), math.Log(hi)
	}
	if math.IsNaN(v) {
		return -1
	}
	if !(hi > lo) || s.N < 1 {
		return 0
	}
	f := (v - lo) / (hi - lo)
	p := int(math.Floor(f * float64(s.N)))
	if f == 1 {
		p = s.N - 1
	}
	if s.Flip {
		p = s.N - 1 - p
	}
	return p
}

// Value returns the value at the centre of pixel p, the inverse of Pixel.
func (s Scale) Value(p int) float64 {
	if s.Flip {
		p = s.N - 1 - p
	}
	f := (float64(p) + 0.5) / float64(max(s.N, 1))
	if s.Log {
		return math.Exp(math.Log(s.Lo) + f*(math.Log(s.Hi)-math.Log(s.Lo)))
	}
	return s.Lo + f*(s.Hi-s.Lo)
}

// NiceStep returns a round step (1, 2 or 5 times a power of ten) that divides [lo, hi] into about n intervals.
func NiceStep(lo, hi float64, n int) float64 {
	span := hi - lo
	if !(span > 0) || n < 1 {
		return 0
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// Ticks returns the multiples of NiceStep(lo, hi, n) inside [lo, hi], ascending.
func Ticks(lo, hi float64, n int) []float64 {
	step := NiceStep(lo, hi, n)
	if step == 0 {
		return nil
	}
	var out []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}

// LogTicks returns the values 1, 2, 5 × 10^k inside [lo, hi] (lo > 0), ascending; when fewer than two of
// them fit it returns lo and hi.
func LogTicks(lo, hi float64) []float64 {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var out []float64
	for k := math.Floor(math.Log10(lo)); math.Pow(10, k) <= hi; k++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, k)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				out = append(out, v)
			}
		}
	}
	if len(out) < 2 {
		return []float64{lo, hi}
	}
	return out
}

// FormatTick formats a tick value with as few digits as a step of size step needs (at least one significant
// digit of the step), without trailing zeros.
func FormatTick(v, step float64) string {
	if v == 0 {
		return "0"
	}
	digits := 0
	if step > 0 && step < 1 {
		digits = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}
