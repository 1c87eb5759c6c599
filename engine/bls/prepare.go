package bls

import (
	"fmt"
	"math"

	"transitbench/engine/stat"
)

func prepare(t, y, dy []float64) (*prepared, error) {
	if len(t) == 0 && len(y) == 0 {
		return nil, ErrEmpty
	}
	if len(y) != len(t) || (dy != nil && len(dy) != len(t)) {
		return nil, fmt.Errorf("%w: len(t) = %d, len(y) = %d, len(dy) = %d", ErrLengthMismatch, len(t), len(y), len(dy))
	}
	keep := make([]int, 0, len(t))
	var ivarSum float64
	for i := range t {
		if !stat.Finite(t[i]) || !stat.Finite(y[i]) {
			continue
		}
		if dy != nil {
			if !stat.Finite(dy[i]) || !(dy[i] > 0) {
				continue
			}
			ivarSum += 1 / (dy[i] * dy[i])
		}
		keep = append(keep, i)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("%w (%d cadences given)", ErrAllNaN, len(t))
	}
	ivarScale := 1.0
	if dy != nil {
		ivarScale = ivarSum / float64(len(keep))
		k := keep[:0]
		for _, i := range keep {
			if 1/(dy[i]*dy[i])/ivarScale >= minWeight {
				k = append(k, i)
			}
		}
		keep = k
	}
	if len(keep) < MinPoints {
		return nil, fmt.Errorf("%w: %d usable cadences, need at least %d", ErrTooFewPoints, len(keep), MinPoints)
	}
	for k := 1; k < len(keep); k++ {
		a, b := t[keep[k-1]], t[keep[k]]
		if b < a {
			return nil, fmt.Errorf("%w: t[%d] = %v follows t[%d] = %v; sort the cadences by time", ErrUnsorted, keep[k], b, keep[k-1], a)
		}
		if b == a {
			return nil, fmt.Errorf("%w: t[%d] = t[%d] = %v; keep one cadence per time", ErrDuplicateTime, keep[k-1], keep[k], a)
		}
	}
	d := &prepared{
		tref:      t[keep[0]],
		pts:       make([]point, len(keep)),
		ivarScale: ivarScale,
	}
	w := make([]float64, len(keep))
	wy := make([]float64, len(keep))
	var sw, swy float64
	for k, i := range keep {
		d.pts[k].t = t[i] - d.tref
		w[k] = 1
		if dy != nil {
			w[k] = 1 / (dy[i] * dy[i]) / ivarScale
		}
		sw += w[k]
		swy += w[k] * y[i]
	}
	mean := swy / sw
	for k, i := range keep {
		wy[k] = w[k] * (y[i] - mean)
	}
	var sumW, sumWY int64
	d.wScale = quantise(w, func(k int, q int64) { d.pts[k].w = q; sumW += q })
	d.yScale = quantise(wy, func(k int, q int64) { d.pts[k].wy = q; sumWY += q })
	d.sumW, d.sumWY = float64(sumW), float64(sumWY)
	return d, nil
}

// quantise passes set the values x·scale rounded to integers and returns scale, the power of two that makes
// Σ|x|·scale at most 2⁶¹ (1 when every x is 0). Sums of the integers are then exact: any partial sum, and any
// sum of two partial sums, fits in an int64. Each value is off by at most ½ unit, 2⁻⁶² of Σ|x|: for N values
// of similar size, a relative error of about N·2⁻⁶² (4·10⁻¹⁵ for N = 17.6 k), below the rounding of the
// float64 sums that the fixed point replaces.
func quantise(x []float64, set func(k int, q int64)) (scale float64) {
	var sum float64
	for _, v := range x {
		sum += math.Abs(v)
	}
	scale = 1
	if sum > 0 {
		_, e := math.Frexp(sum) // sum < 2^e
		scale = math.Ldexp(1, 61-e)
	}
	for k, v := range x {
		set(k, int64(math.Round(v*scale)))
	}
	return scale
}

func checkGrid(g Grid, span float64) error {
	if len(g.Periods) == 0 || len(g.Durations) == 0 {
		return ErrEmptyGrid
	}
	for i, d := range g.Durations {
		if !stat.Finite(d) || !(d > 0) {
			return fmt.Errorf("%w: duration %v is not a positive number of days", ErrBadGrid, d)
		}
		if i > 0 && d <= g.Durations[i-1] {
			return fmt.Errorf("%w: durations must increase (%v follows %v)", ErrBadGrid, d, g.Durations[i-1])
		}
	}
	ranged := g.DurLo != nil || g.DurHi != nil
	if ranged && (len(g.DurLo) != len(g.Periods) || len(g.DurHi) != len(g.Periods)) {
		return fmt.Errorf("%w: DurLo and DurHi need one entry per period", ErrBadGrid)
	}
	pmax := 0.0
	for p, per := range g.Periods {
		if !stat.Finite(per) || !(per > 0) {
			return fmt.Errorf("%w: period %v is not a positive number of days", ErrBadGrid, per)
		}
		pmax = math.Max(pmax, per)
		dmax := g.Durations[len(g.Durations)-1]
		if ranged {
			lo, hi := g.DurLo[p], g.DurHi[p]
			if lo < 0 || hi > len(g.Durations) || lo >= hi {
				return fmt.Errorf("%w: duration range [%d, %d) of period %v is empty or out of bounds", ErrBadGrid, lo, hi, per)
			}
			dmax = g.Durations[hi-1]
		}
		if dmax >= per {
			return fmt.Errorf("%w: duration %v d is not shorter than period %v d; lower the durations or raise the periods", ErrBadGrid, dmax, per)
		}
	}
	if span < pmax {
		return fmt.Errorf("%w: data span %.4g d, longest period %.4g d; lower the maximum period", ErrSpanTooShort, span, pmax)
	}
	if w := GridWork(g); w > MaxGridWork {
		return fmt.Errorf("%w: %d periods, %d (period, duration) pairs, above the cap of %d (MaxGridWork); give fewer periods or durations",
			ErrGridTooLarge, len(g.Periods), w, MaxGridWork)
	}
	return nil
}
