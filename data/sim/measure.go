package sim

import (
	"math"
	"slices"
	"strconv"

	"transitbench/engine/noise"
	"transitbench/engine/stat"
)

// meter measures noise on a star's planet-free flux the way SPEC A4 defines MES: the flux is detrended as
// engine/detrend.Flatten does with its defaults (biweightTrend: a running Tukey biweight location, split at gaps,
// with clipping) and σ_D is engine/noise's SigmaD of the detrended flux. It keeps the valid cadences only.
type meter struct {
	t, flat []float64 // valid cadences: time (BKJD days) and detrended relative flux (median ≈ 1)
	window  float64   // detrending window, days
	cad     float64   // the cadence as engine/noise finds it: the median spacing of t
	cache   map[float64]float64

	// scratch buffers
	model, work []float64
}

// gapDays splits the light curve into segments at gaps longer than this (days) for detrending.
const gapDays = 0.5

// newMeter detrends the valid cadences of flux with a biweight window of max(MinWindowDays, WindowDurations ×
// 12 h) (the longest duration measured is CDPP's 12 h).
func newMeter(cal *calendar, flux []float64, k *Knobs) *meter {
	var t, f []float64
	for i := range cal.time {
		if cal.valid(i) && !math.IsNaN(flux[i]) {
			t = append(t, cal.time[i])
			f = append(f, flux[i])
		}
	}
	return meterFrom(t, f, k)
}

// meterFrom returns the meter of valid cadences at times t (sorted) with flux f.
func meterFrom(t, f []float64, k *Knobs) *meter {
	m := &meter{t: t, cache: map[float64]float64{}}
	m.window = math.Max(k.Measure.MinWindowDays, k.Measure.WindowDurations*0.5)
	trend := biweightTrend(m.t, f, m.window)
	m.flat = make([]float64, len(f))
	for i := range f {
		m.flat[i] = f[i] / trend[i]
	}
	m.init()
	return m
}

// init measures the cadence and allocates the scratch buffers.
func (m *meter) init() {
	n := len(m.t)
	m.model = make([]float64, n)
	m.work = make([]float64, 4*n+1)
	if n > 1 {
		d := m.work[:n-1]
		for i := range d {
			d[i] = m.t[i+1] - m.t[i]
		}
		m.cad = stat.Median(d)
	}
}

// sigmaD returns σ_D of the meter's flux over windows of durationDays (engine/noise.SigmaDInto), cached.
func (m *meter) sigmaD(durationDays float64) float64 {
	if v, ok := m.cache[durationDays]; ok {
		return v
	}
	s := noise.SigmaDInto(m.work, m.t, m.flat, m.cad, durationDays)
	m.cache[durationDays] = s
	return s
}

// cdppTable returns CDPP at 3, 6 and 12 h in ppm (engine/noise.CDPP, σ_D(h) × 10⁶), rounded to 0.1 ppm, keyed
// as star.json wants.
func (m *meter) cdppTable() map[string]float64 {
	out := map[string]float64{}
	for _, h := range []float64{3, 6, 12} {
		out[strconv.FormatFloat(h, 'f', 1, 64)] = round(m.sigmaD(h/24)*1e6, 1)
	}
	return out
}

// median returns the median of sorted x.
func median(x []float64) float64 {
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// Clipping of the detrender, as engine/detrend.Flatten's defaults: cadences farther than clipSigma robust σ
// (1.4826 × the window's MAD) from the trend stop contributing to it, for at most clipRounds rounds.
const (
	clipSigma  = 3.0
	clipRounds = 3
)

// knotsPerWindow sets the detrender's knot spacing, windowDays/knotsPerWindow: 16 keeps σ_D within ≈ 2 % of
// the per-cadence trend's on stars with sub-day variability (8 gave 5 %, 73 — one knot per cadence — 1 %).
const knotsPerWindow = 16.0

// knot is one point of the detrender's coarse grid: its time, the cadence range [lo, hi) of its window and
// the biweight location and MAD of the flux there.
type knot struct {
	t        float64
	lo, hi   int
	loc, mad float64
	segEnd   bool // the last knot of its segment
}

// biweightTrend returns the trend of f (times t, sorted) as engine/detrend.Flatten computes it with its
// defaults, on a coarse grid: a running Tukey biweight location over windows of windowDays (centred, and
// shrinking symmetrically near a segment's ends to no less than a third of the width), split into segments at
// gaps longer than gapDays, with iterative clipping (clipSigma, clipRounds). For speed the location is computed
// at knots spaced windowDays/knotsPerWindow apart (and at each segment's ends) and interpolated linearly
// between them; after a clipping round only the knots whose windows lost a cadence are computed again.
func biweightTrend(t, f []float64, windowDays float64) []float64 {
	var knots []knot
	for s := 0; s < len(t); {
		e := s + 1
		for e < len(t) && t[e]-t[e-1] <= gapDays {
			e++
		}
		first, last, half := t[s], t[e-1], windowDays/2
		for x := first; ; x += windowDays / knotsPerWindow {
			if x > last {
				x = last
			}
			// Centred windows, shrinking near the segment's ends to no less than a third of the full width.
			h := math.Min(half, math.Max(math.Min(x-first, last-x), half/3))
			lo := s + lowerBound(t[s:e], x-h)
			hi := s + upperBound(t[s:e], x+h)
			knots = append(knots, knot{t: x, lo: lo, hi: hi, segEnd: x == last})
			if x == t[e-1] {
				break
			}
		}
		s = e
	}
	use := make([]bool, len(t))
	for i := range use {
		use[i] = true
	}
	// pass computes the knots (all of them, or only those marked in dirty) from the cadences in use. The
	// windows' bounds only move forward, so a sorted copy of the window is kept up to date by insertion and
	// removal, and the median and MAD come from it without selection.
	var win sortedWindow
	pass := func(dirty []bool) {
		win.reset()
		lo, hi, prev := 0, 0, -2
		for i := range knots {
			if dirty != nil && !dirty[i] {
				continue
			}
			k := &knots[i]
			if prev != i-1 { // not sliding from the previous knot: start the window afresh
				win.reset()
				lo, hi = k.lo, k.lo
			}
			prev = i
			for ; hi < k.hi; hi++ {
				if use[hi] {
					win.insert(f[hi])
				}
			}
			for ; lo < k.lo; lo++ {
				if use[lo] {
					win.remove(f[lo])
				}
			}
			if len(win.x) == 0 { // every cadence clipped: fall back to all of them
				var all sortedWindow
				for j := k.lo; j < k.hi; j++ {
					all.insert(f[j])
				}
				k.loc, k.mad = all.biweight()
				continue
			}
			k.loc, k.mad = win.biweight()
		}
	}
	pass(nil)
	trend := make([]float64, len(t))
	mad := make([]float64, len(t))
	interpolate := func() {
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
	interpolate()
	dirty := make([]bool, len(knots))
	for range clipRounds {
		clipped := 0
		for i := range t {
			if use[i] && math.Abs(f[i]-trend[i]) > clipSigma*stat.MADToSigma4*mad[i] {
				use[i] = false
				clipped++
				// Knots whose windows hold cadence i: their times lie within windowDays/2 of t[i].
				for j := lowerBoundKnot(knots, t[i]-windowDays/2); j < len(knots) && knots[j].t <= t[i]+windowDays/2; j++ {
					dirty[j] = true
				}
			}
		}
		if clipped == 0 {
			break
		}
		pass(dirty)
		clear(dirty)
		interpolate()
	}
	return trend
}

// upperBound returns the first index i with t[i] > x (len(t) when none).
func upperBound(t []float64, x float64) int {
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// sortedWindow is a multiset of flux values kept sorted, for a window that slides forward.
type sortedWindow struct{ x []float64 }

func (w *sortedWindow) reset() { w.x = w.x[:0] }

// insert adds v, keeping the order.
func (w *sortedWindow) insert(v float64) {
	i := upperBound(w.x, v)
	w.x = append(w.x, 0)
	copy(w.x[i+1:], w.x[i:])
	w.x[i] = v
}

// remove deletes one copy of v, which must be present.
func (w *sortedWindow) remove(v float64) {
	i := lowerBound(w.x, v)
	w.x = append(w.x[:i], w.x[i+1:]...)
}

// biweight returns the biweight location (biweightIterate) and the MAD of the window, using the order:
// the median is read off and the MAD is the median of the deviations, which a merge of the two sides of the
// median (both already in increasing order of deviation) yields without sorting.
func (w *sortedWindow) biweight() (loc, mad float64) {
	n := len(w.x)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	med := median(w.x)
	// Walk the deviations in increasing order: left side from the middle down, right side from the middle up.
	l, r := n/2-1, n/2
	var lowerMid, upperMid float64
	for k := 0; k <= n/2; k++ {
		var d float64
		if r >= n || (l >= 0 && med-w.x[l] <= w.x[r]-med) {
			d = med - w.x[l]
			l--
		} else {
			d = w.x[r] - med
			r++
		}
		if k == (n-1)/2 {
			lowerMid = d
		}
		if k == n/2 {
			upperMid = d
		}
	}
	mad = (lowerMid + upperMid) / 2
	return biweightIterate(w.x, med, mad), mad
}

// lowerBoundKnot returns the first knot with time ≥ x.
func lowerBoundKnot(knots []knot, x float64) int {
	lo, hi := 0, len(knots)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if knots[m].t < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// biweightIterate returns Tukey's biweight location of x, c = 5, as engine/detrend computes it: starting from
// the median med, loc ← loc + Σ wᵢ(xᵢ − loc) / Σ wᵢ with wᵢ = (1 − uᵢ²)² for |uᵢ| < 1, uᵢ = (xᵢ − loc)/(5·mad),
// until a step is below 10⁻³ mad (at most 50 steps); mad is the median absolute deviation about med.
func biweightIterate(x []float64, med, mad float64) float64 {
	loc := med
	if mad == 0 {
		return loc
	}
	for range 50 {
		var num, den float64
		for _, v := range x {
			u := (v - loc) / (5 * mad)
			if u*u < 1 {
				w := (1 - u*u) * (1 - u*u)
				num += w * (v - loc)
				den += w
			}
		}
		if den == 0 {
			return loc
		}
		step := num / den
		loc += step
		if math.Abs(step) < 1e-3*mad {
			break
		}
	}
	return loc
}

// newRawMeter is a meter on the undetrended flux: each quarter divided by its median. Its σ_D keeps
// the slow variability (spots, trends) a detrended meter removes.
func newRawMeter(cal *calendar, flux []float64) *meter {
	m := &meter{cache: map[float64]float64{}}
	var q []int8
	for i := range cal.time {
		if cal.valid(i) && !math.IsNaN(flux[i]) {
			m.t = append(m.t, cal.time[i])
			m.flat = append(m.flat, flux[i])
			q = append(q, cal.quarter[i])
		}
	}
	for s := 0; s < len(q); {
		e := s
		for e < len(q) && q[e] == q[s] {
			e++
		}
		med := median(slices.Sorted(slices.Values(m.flat[s:e])))
		for i := s; i < e; i++ {
			m.flat[i] /= med
		}
		s = e
	}
	m.init()
	return m
}
