package detrend

import (
	"math"
	"sort"

	"transitbench/engine/stat"
)

// BiweightC is the tuning constant c of the biweight location, in units of the median absolute deviation
// (MAD): points further than c·MAD from the location get zero weight. 5 is wotan's default (Hippke et al. 2019).
const BiweightC = 5.0

// DefaultGapDays is the gap, in days, at which a light curve is split into independent segments (wotan's
// break_tolerance default). Kepler's monthly downlinks (≈ 1 d) and quarterly rolls split; single missing or
// flagged cadences (0.02 d) do not.
const DefaultGapDays = 0.5

// Convergence of the biweight iteration: stop when the location moves by less than biweightTol·MAD, or after
// biweightMaxIter steps. The iteration converges linearly, so the remaining error is of the order of the last
// step: 1e-3·MAD is a hundred times below the statistical error of a location from the ≈ 70 cadences of a
// 1.5 d window (1.25·σ/√70 ≈ 0.15·σ ≈ 0.22·MAD).
const (
	biweightTol     = 1e-3
	biweightMaxIter = 50
)

// Biweight returns the running Tukey biweight location of f over a window of windowDays days centred on each
// cadence: trend[i] = the location L solving Σ w_j (f_j − L) = 0 with w_j = (1 − u_j²)² for |u_j| < 1, else 0,
// u_j = (f_j − L)/(BiweightC·MAD), over the cadences j of the same segment with |t_j − t_i| ≤ windowDays/2.
// The iteration starts at the window median.
//
// Segments are split at gaps longer than DefaultGapDays and windows never cross a gap. Near a segment end the
// window shrinks symmetrically to stay centred on the cadence, down to a third of its width, and only within
// a sixth of the window from the end is it one-sided. A one-sided window follows a slope s with a bias of
// s·(width of the missing side)/2, so this cuts the edge bias of wotan's truncated windows (edge_cutoff = 0)
// by three; the price is a narrower window, which absorbs more of a long transit lying at a segment end.
// Cadences with NaN or
// infinite time or flux are skipped and get a NaN trend. Times need not be sorted; duplicates are allowed.
// t and f must have the same length (Biweight panics otherwise).
func Biweight(t, f []float64, windowDays float64) (trend []float64) {
	trend = make([]float64, len(t))
	var s scratch
	s.trend(trend, t, f, nil, windowDays, DefaultGapDays)
	return trend
}

// scratch holds the work buffers of the running filter, reused across the clipping iterations of Flatten.
type scratch struct {
	order  []int     // indices of cadences with finite time and flux, in time order
	window []float64 // flux values inside the current window, kept sorted
	// dirty, when not nil, restricts the next pass to the cadences marked true; the others keep their trend.
	dirty []bool
	// filled marks cadences whose trend was interpolated because their window held no contributor; they are
	// recomputed on every pass.
	filled []bool
	// clipped marks the cadences Flatten has already excluded, so that only new exclusions mark windows dirty.
	clipped []bool
	// mad holds, per cadence, the median absolute deviation of the flux in its window (NaN when none).
	mad []float64
}

// trend writes into dst the running biweight location of f. Only cadences with use[i] true (all finite ones
// when use is nil) contribute to windows; every cadence with finite time and flux gets a trend value. Cadences
// whose window holds no contributing cadence are filled by linear interpolation in time between the nearest
// filled neighbours of the same segment (or copied from the nearest one at a segment end).
func (s *scratch) trend(dst, t, f []float64, use []bool, windowDays, gapDays float64) {
	if len(t) != len(f) || len(dst) != len(t) {
		panic("detrend: t, f and trend differ in length")
	}
	s.order = s.order[:0]
	if len(s.filled) != len(t) {
		s.filled = make([]bool, len(t))
		s.mad = make([]float64, len(t))
	}
	sorted := true
	last := math.Inf(-1)
	for i := range t {
		if !stat.Finite(t[i]) || !stat.Finite(f[i]) {
			dst[i] = math.NaN()
			continue
		}
		if s.dirty == nil || s.dirty[i] || s.filled[i] {
			dst[i] = math.NaN()
		}
		if t[i] < last {
			sorted = false
		}
		last = t[i]
		s.order = append(s.order, i)
	}
	if !sorted {
		sort.SliceStable(s.order, func(a, b int) bool { return t[s.order[a]] < t[s.order[b]] })
	}
	half := windowDays / 2
	for a := 0; a < len(s.order); {
		b := a + 1
		for b < len(s.order) && t[s.order[b]]-t[s.order[b-1]] <= gapDays {
			b++
		}
		s.segment(dst, t, f, use, s.order[a:b], half)
		fillGaps(dst, t, s.order[a:b])
		a = b
	}
}

// edgeShrink is the smallest window kept near a segment edge, as a fraction of the full width (see Biweight).
const edgeShrink = 1.0 / 3

// segment computes the trend over one gap-free run of cadences (idx, in time order). The window of a cadence
// at distance e from the nearer end of the segment has half-width h = min(half, max(e, edgeShrink·half)):
// centred where the segment allows, one-sided only within edgeShrink·half of an end. Both window bounds move
// forward as the cadence does, so the window slides.
func (s *scratch) segment(dst, t, f []float64, use []bool, idx []int, half float64) {
	s.window = s.window[:0]
	first, last := t[idx[0]], t[idx[len(idx)-1]]
	lo, hi := 0, 0 // contributors idx[lo:hi] (those with use) are in the window
	for _, i := range idx {
		h := min(half, max(min(t[i]-first, last-t[i]), edgeShrink*half))
		for hi < len(idx) && t[idx[hi]] <= t[i]+h {
			if j := idx[hi]; use == nil || use[j] {
				s.window = insertSorted(s.window, f[j])
			}
			hi++
		}
		for lo < hi && t[idx[lo]] < t[i]-h {
			if j := idx[lo]; use == nil || use[j] {
				s.window = removeSorted(s.window, f[j])
			}
			lo++
		}
		if !math.IsNaN(dst[i]) {
			continue // not dirty: keeps the previous pass's value
		}
		s.filled[i] = len(s.window) == 0
		s.mad[i] = math.NaN()
		if !s.filled[i] {
			dst[i], s.mad[i] = biweightLocation(s.window)
		}
	}
}

// biweightLocation returns the Tukey biweight location of the sorted, non-empty sample x (see Biweight) and
// the sample's median absolute deviation from its median.
func biweightLocation(x []float64) (loc, mad float64) {
	med := stat.MedianSorted(x)
	mad = stat.MADSorted(x, med)
	if mad == 0 {
		return med, 0
	}
	loc = med
	inv := 1 / (BiweightC * mad)
	for it := 0; it < biweightMaxIter; it++ {
		var num, den float64
		for _, v := range x {
			d := v - loc
			u := d * inv
			if u2 := u * u; u2 < 1 {
				w := (1 - u2) * (1 - u2)
				num += w * d
				den += w
			}
		}
		if den == 0 {
			break
		}
		step := num / den
		loc += step
		if math.Abs(step) < biweightTol*mad {
			break
		}
	}
	return loc, mad
}

// insertSorted inserts v into the sorted slice x.
func insertSorted(x []float64, v float64) []float64 {
	k := sort.SearchFloat64s(x, v)
	x = append(x, 0)
	copy(x[k+1:], x[k:])
	x[k] = v
	return x
}

// removeSorted removes one occurrence of v from the sorted slice x (v must be present).
func removeSorted(x []float64, v float64) []float64 {
	k := sort.SearchFloat64s(x, v)
	copy(x[k:], x[k+1:])
	return x[:len(x)-1]
}

// replaceSorted removes one occurrence of r from the sorted slice x (r must be present) and inserts a, as
// removeSorted and insertSorted would, but shifts only the values between the two places.
func replaceSorted(x []float64, r, a float64) []float64 {
	p, q := searchSorted2(x, r, a) // x[p] == r, and q is a's place before r is removed
	switch {
	case q > p+1: // a goes above r's place: the values in between move down
		copy(x[p:q-1], x[p+1:q])
		x[q-1] = a
	case q < p: // a goes below: the values in between move up
		copy(x[q+1:p+1], x[q:p])
		x[q] = a
	default: // a takes r's place
		x[p] = a
	}
	return x
}

// searchSorted2 returns the first indices p and q with x[p] ≥ r and x[q] ≥ a (len(x) when there is none), as
// sort.SearchFloat64s would. It bisects for both at once, each step adding half·b2i(…), which compiles to a
// conditional move, not a branch: on noise a branch would be mispredicted half the time, and the two chains
// of dependent loads and moves overlap.
func searchSorted2(x []float64, r, a float64) (p, q int) {
	n := len(x)
	if n == 0 {
		return 0, 0
	}
	// Invariant: x[:p] < r and x[:q] < a, and the answers lie in [p, p+n] and [q, q+n].
	for n > 1 {
		half := n / 2
		p += half * b2i(x[p+half] < r)
		q += half * b2i(x[q+half] < a)
		n -= half
	}
	return p + b2i(x[p] < r), q + b2i(x[q] < a)
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fillGaps replaces NaN trend values of one segment (idx, in time order) by linear interpolation in time
// between the nearest finite neighbours, or by the nearest finite value at the segment's ends.
func fillGaps(dst, t []float64, idx []int) {
	prev := -1 // position in idx of the last finite trend value
	for k, i := range idx {
		if math.IsNaN(dst[i]) {
			continue
		}
		if prev != k-1 {
			for m := prev + 1; m < k; m++ {
				j := idx[m]
				if prev < 0 {
					dst[j] = dst[i]
					continue
				}
				p := idx[prev]
				w := (t[j] - t[p]) / (t[i] - t[p])
				if t[i] == t[p] {
					w = 0
				}
				dst[j] = dst[p] + w*(dst[i]-dst[p])
			}
		}
		prev = k
	}
	if prev >= 0 {
		for m := prev + 1; m < len(idx); m++ {
			dst[idx[m]] = dst[idx[prev]]
		}
	}
}
