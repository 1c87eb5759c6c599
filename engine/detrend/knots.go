package detrend

import (
	"math"
	"sort"

	"transitbench/engine/stat"
)

// FlattenKnots is Flatten on a coarse grid, for callers that detrend many light curves and can accept a trend
// that is piecewise linear between knots: the biweight location of Biweight (same windows, same edge rule,
// same segments) is computed only at knots spaced opt.WindowDays/knotsPerWindow apart in each segment, plus at
// the segment's last cadence, and interpolated linearly in time between them; so is each cadence's window MAD,
// which the clipping uses as Flatten does (|f − trend| > ClipSigma·1.4826·MAD, at most ClipIterations rounds).
// After a clipping round only the knots whose windows lost a cadence are computed again; a knot whose every
// cadence is clipped takes the location of all of them. With 16 knots per window σ_D of the flattened flux
// stays within ≈ 2 % of Flatten's on stars with sub-day variability, at a small fraction of the cost.
//
// t must be sorted and t and f finite: pass the valid cadences only. knotsPerWindow must be positive.
// FlattenKnots panics when t and f differ in length or knotsPerWindow is not positive.
func FlattenKnots(t, f []float64, opt Options, knotsPerWindow float64) (flat, trend []float64) {
	if len(t) != len(f) {
		panic("detrend: t and f differ in length")
	}
	if !(knotsPerWindow > 0) {
		panic("detrend: FlattenKnots needs a positive number of knots per window")
	}
	opt = opt.withDefaults()
	windowDays := opt.WindowDays
	knots := placeKnots(t, opt.GapDays, windowDays, knotsPerWindow)
	use := make([]bool, len(t))
	for i := range use {
		use[i] = true
	}
	var win []float64
	win = knotPass(knots, f, use, win, nil)
	trend = make([]float64, len(t))
	// Each cadence's window MAD is needed only until flat is computed, so it lives in flat's buffer.
	flat = make([]float64, len(t))
	mad := flat
	interpolateKnots(knots, t, opt.GapDays, trend, mad)
	dirty := make([]bool, len(knots))
	for range max(opt.ClipIterations, 0) {
		clipped := 0
		for i := range t {
			if use[i] && math.Abs(f[i]-trend[i]) > opt.ClipSigma*stat.MADToSigma4*mad[i] {
				use[i] = false
				clipped++
				// Knots whose windows hold cadence i: their times lie within windowDays/2 of t[i].
				j := sort.Search(len(knots), func(j int) bool { return knots[j].t >= t[i]-windowDays/2 })
				for ; j < len(knots) && knots[j].t <= t[i]+windowDays/2; j++ {
					dirty[j] = true
				}
			}
		}
		if clipped == 0 {
			break
		}
		win = knotPass(knots, f, use, win, dirty)
		clear(dirty)
		interpolateKnots(knots, t, opt.GapDays, trend, mad)
	}
	for i := range f {
		flat[i] = f[i] / trend[i]
	}
	return flat, trend
}

// placeKnots places knots every windowDays/knotsPerWindow along each segment of t (segments are split at gaps
// longer than gapDays), the last one on the segment's last cadence, each with the cadence range of its window.
func placeKnots(t []float64, gapDays, windowDays, knotsPerWindow float64) []knot {
	// Room for the knots of one segment spanning t, plus a few for segment ends, so that the slice is seldom
	// grown; the estimate is capped at one knot per cadence (and ignored when not a number).
	n := 64
	if len(t) > 0 {
		if est := (t[len(t)-1] - t[0]) * knotsPerWindow / windowDays; est >= 0 {
			n += int(min(est, float64(len(t))))
		}
	}
	knots := make([]knot, 0, n)
	for s := 0; s < len(t); {
		e := s + 1
		for e < len(t) && t[e]-t[e-1] <= gapDays {
			e++
		}
		first, last, half := t[s], t[e-1], windowDays/2
		lo, hi := s, s
		for x := first; ; x += windowDays / knotsPerWindow {
			if x > last {
				x = last
			}
			// The window rule of segment: centred, shrinking near the ends to no less than a third of the width
			// (half/3, not edgeShrink*half: the two can differ in the last bit, and the simulator's published sets were
			// built with half/3).
			h := math.Min(half, math.Max(math.Min(x-first, last-x), half/3))
			// The window is t[lo:hi], lo the first cadence with t ≥ x−h and hi the first with t > x+h (the
			// bisections sort.SearchFloat64s and sort.Search would make). Both are a few cadences from the
			// previous knot's, so they are found by stepping from there, backwards too: near the segment's ends
			// a window edge can move back.
			a, b := x-h, x+h
			for lo < e && t[lo] < a {
				lo++
			}
			for lo > s && t[lo-1] >= a {
				lo--
			}
			for hi < e && t[hi] <= b {
				hi++
			}
			for hi > s && t[hi-1] > b {
				hi--
			}
			knots = append(knots, knot{t: x, lo: lo, hi: hi, segEnd: x == last})
			if x == t[e-1] {
				break
			}
		}
		s = e
	}
	return knots
}

// knotPass computes the knots (all of them, or only those marked in dirty) from the cadences in use. The
// windows' bounds only move forward, so a sorted copy of the window is kept up to date by insertion and
// removal, and the median and MAD come from it without selection. win is a buffer for that copy; knotPass
// returns it for the next pass.
func knotPass(knots []knot, f []float64, use []bool, win []float64, dirty []bool) []float64 {
	win = win[:0]
	lo, hi, prev := 0, 0, -2
	for i := range knots {
		if dirty != nil && !dirty[i] {
			continue
		}
		k := &knots[i]
		if prev != i-1 { // not sliding from the previous knot: start the window afresh
			win = win[:0]
			lo, hi = k.lo, k.lo
		}
		prev = i
		win, lo, hi = slideWindow(win, f, use, lo, hi, k.lo, k.hi)
		if len(win) == 0 { // every cadence clipped (or none in the window): fall back to all of them
			var all []float64
			for j := k.lo; j < k.hi; j++ {
				all = insertSorted(all, f[j])
			}
			k.loc, k.mad = knotLocation(all)
			continue
		}
		k.loc, k.mad = knotLocation(win)
	}
	return win
}

// slideWindow moves the sorted window win from the cadences in use among [lo, hi) to those among [newLo,
// newHi), bounds that only move forward (a bound that would move back stays), and returns it with the new
// bounds. The result is the slice that inserting every entering value with insertSorted and then removing
// every leaving one with removeSorted gives, bit for bit. When canPair allows, each leaving value is paired
// with an entering one, which takes its place (replaceSorted): one shift of the values between the two places
// instead of two shifts of half the window each.
func slideWindow(win, f []float64, use []bool, lo, hi, newLo, newHi int) ([]float64, int, int) {
	if canPair(f, use, lo, newLo, hi, newHi) {
		for {
			for lo < newLo && !use[lo] {
				lo++
			}
			for hi < newHi && !use[hi] {
				hi++
			}
			if lo == newLo || hi == newHi {
				break
			}
			win = replaceSorted(win, f[lo], f[hi])
			lo++
			hi++
		}
	}
	for ; hi < newHi; hi++ {
		if use[hi] {
			win = insertSorted(win, f[hi])
		}
	}
	for ; lo < newLo; lo++ {
		if use[lo] {
			win = removeSorted(win, f[lo])
		}
	}
	return win, lo, hi
}

// canPair reports whether sliding the window from cadences [lo, hi) to [newLo, newHi) may pair removals with
// insertions (replaceSorted) instead of inserting every entering value and then removing every leaving one:
// the window then comes out the same, bit for bit, when every leaving cadence is in the window (newLo ≤ hi)
// and no value that enters or leaves is zero. Sorted windows with the same values are the same slice, except
// for the order of +0 and −0, which compare equal; that order depends on the order of the operations.
func canPair(f []float64, use []bool, lo, newLo, hi, newHi int) bool {
	if newLo > hi || lo >= newLo || hi >= newHi {
		return false
	}
	for j := lo; j < newLo; j++ {
		if use[j] && f[j] == 0 {
			return false
		}
	}
	for j := hi; j < newHi; j++ {
		if use[j] && f[j] == 0 {
			return false
		}
	}
	return true
}

// interpolateKnots sets trend and mad at every cadence of t by linear interpolation between the knots of its
// segment (segments are split at gaps longer than gapDays).
func interpolateKnots(knots []knot, t []float64, gapDays float64, trend, mad []float64) {
	k := 0
	for i, ti := range t {
		for !knots[k].segEnd && knots[k+1].t < ti {
			k++
		}
		if knots[k].segEnd { // a segment's last knot (or a segment of one knot)
			trend[i], mad[i] = knots[k].loc, knots[k].mad
			if i+1 < len(t) && t[i+1]-ti > gapDays {
				k++
			}
			continue
		}
		a, b := knots[k], knots[k+1]
		w := (ti - a.t) / (b.t - a.t)
		trend[i] = a.loc + w*(b.loc-a.loc)
		mad[i] = a.mad + w*(b.mad-a.mad)
		if i+1 < len(t) && t[i+1]-ti > gapDays {
			for !knots[k].segEnd {
				k++
			}
			k++
		}
	}
}

// knot is one point of FlattenKnots' grid: its time, the cadence range [lo, hi) of its window, the biweight
// location and MAD of the flux there, and whether it is its segment's last knot.
type knot struct {
	t        float64
	lo, hi   int
	loc, mad float64
	segEnd   bool
}

// knotLocation is biweightLocation, NaN for an empty window.
func knotLocation(x []float64) (loc, mad float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	return biweightLocation(x)
}
