// Command starter is TransitBench's starter solution: a box least squares (BLS) search that reports the
// strongest peak when its signal-to-noise ratio is at least 8 and its depth at most 3 %.
//
// Usage: starter STAR_DIR. It reads STAR_DIR/lightcurve.csv (time,flux,flux_err,quality) and prints
// `period_days,t0_days,score` rows on stdout. It depends on the Go standard library only, so the
// workspace builds it anywhere; improve it, or replace it with your own pipeline.
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Tunable choices of the starter.
const (
	qualityMask   = 1 | 2 | 4 | 8 | 32 | 256 | 16384 | 65536 | 1048576 // lightkurve's default bitmask
	windowDays    = 1.0                                                // running-median detrending window
	minPeriodDays = 0.5
	// The coarse search lets the midtime drift by up to two shortest durations over the span (oversampling
	// 0.5): a transit smeared that much still stands out in a wider box; the refinement (oversampling 4)
	// recovers its full depth.
	coarseOversampling = 0.5
	coarseBin          = 3 // cadences averaged for the coarse search
	refineCandidates   = 10
	snrThreshold       = 8.0
	maxDepth           = 0.03
)

// durations searched, in days (1 h to 9.6 h).
var durations = []float64{0.04, 0.06, 0.08, 0.12, 0.16, 0.22, 0.3, 0.4}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: starter STAR_DIR")
		os.Exit(2)
	}
	t, f, e, err := readLightCurve(filepath.Join(os.Args[1], "lightcurve.csv"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "starter:", err)
		os.Exit(1)
	}
	fmt.Println("period_days,t0_days,score")
	if len(t) < 100 {
		fmt.Fprintln(os.Stderr, "starter: too few valid cadences, no candidate")
		return
	}
	best, ok := bestPeak(t, f, e)
	if !ok {
		return
	}
	fmt.Fprintf(os.Stderr, "best peak: P=%.5f d t0=%.4f D=%.3f d depth=%.1f ppm snr=%.2f\n",
		best.period, best.t0, best.duration, best.depth*1e6, best.snr)
	if best.snr >= snrThreshold && best.depth <= maxDepth {
		fmt.Printf("%.6f,%.6f,%.3f\n", best.period, best.t0, best.snr)
	}
}

// bestPeak detrends the light curve, clips its upward outliers and returns the strongest BLS peak; ok is false
// when the search found no dip at all.
func bestPeak(t, f, e []float64) (best peak, ok bool) {
	flat := detrend(t, f, windowDays)
	clipHigh(flat, 5)
	return search(t, flat, e)
}

// readLightCurve returns the valid cadences (finite flux, no default-mask quality bit) in time order.
func readLightCurve(path string) (t, f, e []float64, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	// The lines and their fields are substrings of the file read as one string: nothing is copied per line.
	rest := string(raw)
	n := strings.Count(rest, "\n") + 1
	t, f, e = make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for line := 0; rest != ""; line++ {
		var s string
		s, rest, _ = strings.Cut(rest, "\n")
		s = strings.TrimSuffix(s, "\r")
		if line == 0 && strings.HasPrefix(s, "time") {
			continue
		}
		ts, s, ok1 := strings.Cut(s, ",")
		fs, s, ok2 := strings.Cut(s, ",")
		es, s, ok3 := strings.Cut(s, ",")
		qs, _, _ := strings.Cut(s, ",")
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		ti, err1 := strconv.ParseFloat(ts, 64)
		fi, err2 := strconv.ParseFloat(fs, 64)
		ei, err3 := strconv.ParseFloat(es, 64)
		qi, err4 := strconv.ParseInt(qs, 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		if math.IsNaN(ti) || math.IsNaN(fi) || math.IsInf(fi, 0) || qi&qualityMask != 0 {
			continue
		}
		if !(ei > 0) || math.IsInf(ei, 0) {
			ei = math.NaN()
		}
		t, f, e = append(t, ti), append(f, fi), append(e, ei)
	}
	// Fill unknown errors with the robust point-to-point scatter.
	diffs := make([]float64, 0, len(f))
	for i := 1; i < len(f); i++ {
		diffs = append(diffs, math.Abs(f[i]-f[i-1]))
	}
	fill := 1.4826 * median(diffs) / math.Sqrt2
	for i := range e {
		if math.IsNaN(e[i]) {
			e[i] = fill
		}
	}
	return t, f, e, nil
}

// detrend divides the flux by its running median over a window of w days. The window's values are kept sorted
// as it slides, each cadence inserted as it enters and removed as it leaves, so each median is read off the
// middle instead of sorting the window again.
func detrend(t, f []float64, w float64) []float64 {
	out := make([]float64, len(f))
	lo, hi := 0, 0
	sorted := make([]float64, 0, 128) // f[lo:hi], sorted
	for i := range t {
		for hi < len(t) && t[hi] <= t[i]+w/2 {
			k, _ := slices.BinarySearch(sorted, f[hi])
			sorted = slices.Insert(sorted, k, f[hi])
			hi++
		}
		for t[lo] < t[i]-w/2 {
			k, _ := slices.BinarySearch(sorted, f[lo])
			sorted = slices.Delete(sorted, k, k+1)
			lo++
		}
		out[i] = f[i] / middle(sorted)
	}
	return out
}

// clipHigh replaces upward outliers beyond k robust σ by 1: transits are dips, so positive outliers are noise.
func clipHigh(y []float64, k float64) {
	dev := make([]float64, len(y))
	for i, v := range y {
		dev[i] = math.Abs(v - 1)
	}
	s := 1.4826 * median(dev)
	for i, v := range y {
		if v-1 > k*s {
			y[i] = 1
		}
	}
}

// median returns the median of x (NaN if x is empty), leaving x as it is. It selects the middle values rather
// than sorting them all.
func median(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	upper := selectNth(s, n/2)
	if n%2 == 1 {
		return upper
	}
	return 0.5 * (slices.Max(s[:n/2]) + upper) // s[:n/2] holds the n/2 smallest values
}

// selectNth reorders s so that s[k] is the value sorting would put there, with no larger value before it and no
// smaller one after it (Hoare's quickselect), and returns it.
func selectNth(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		pivot := s[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i, j = i+1, j-1
			}
		}
		// Now s[lo:j+1] ≤ pivot ≤ s[i:hi+1], and anything between equals the pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}

// middle returns the median of the sorted values s.
func middle(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return 0.5 * (s[n/2-1] + s[n/2])
}

// shortestDuration is the shortest transit duration searched at period p, in days: half the central-transit
// duration of an Earth-like orbit scaled to p (T ≈ 13 h · (P / 1 yr)^(1/3) for the Sun), and never under
// the shortest searched duration.
func shortestDuration(p float64) float64 {
	return math.Max(durations[0], 0.5*0.54*math.Cbrt(p/365.25))
}

type peak struct{ period, t0, duration, depth, snr float64 }

// series is a light curve prepared for folding: times from the first cadence, inverse-variance weights, and
// weighted flux about the weighted mean, so that a box's depth follows from two sums.
type series struct {
	t0    float64
	tt, w []float64
	wy    []float64
	sw    float64
	// Phase-bin scratch: the weight and the weighted flux of each bin.
	binW, binWY []float64
}

func newSeries(t, y, dy []float64, pmax float64) *series {
	s := &series{t0: t[0], tt: make([]float64, len(t)), w: make([]float64, len(t)), wy: make([]float64, len(t))}
	var swy float64
	for i := range t {
		s.w[i] = 1 / (dy[i] * dy[i])
		s.sw += s.w[i]
		swy += s.w[i] * y[i]
	}
	ymean := swy / s.sw
	for i := range t {
		s.wy[i] = s.w[i] * (y[i] - ymean)
		s.tt[i] = t[i] - t[0]
	}
	maxBins := int(math.Ceil(pmax/(shortestDuration(pmax)/4))) + 1
	s.binW, s.binWY = make([]float64, 2*maxBins), make([]float64, 2*maxBins)
	return s
}

// binCadences averages runs of up to n consecutive cadences (weights add, flux is weight-averaged), cutting the
// work of the coarse search n-fold; a run never spans a gap.
func binCadences(t, y, dy []float64, n int) (bt, by, bdy []float64) {
	for i := 0; i < len(t); {
		j := i + 1
		for j < len(t) && j-i < n && t[j]-t[j-1] < 1.5*0.0204336 {
			j++
		}
		var sw, swt, swy float64
		for k := i; k < j; k++ {
			w := 1 / (dy[k] * dy[k])
			sw, swt, swy = sw+w, swt+w*t[k], swy+w*y[k]
		}
		bt, by, bdy = append(bt, swt/sw), append(by, swy/sw), append(bdy, 1/math.Sqrt(sw))
		i = j
	}
	return bt, by, bdy
}

// scan returns the best box (snr objective) at period p.
//
// With W the total weight, w the weight and s = Σ w·(y − ȳ) the weighted flux of the cadences in a box, the
// depth is −s·W / (w·(W − w)) and its SNR² = s²·W / (w·(W − w)) (astropy's depth / depth_err), so boxes are
// ranked by s² / (w·(W − w)) among those with s < 0 (dips), and only the best is turned into depth and SNR.
func (s *series) scan(p float64) peak {
	dmin := shortestDuration(p)
	nb := int(math.Ceil(p / (dmin / 4)))
	bw, bwy := s.fold(p, nb)
	fnb := float64(nb)
	sw := s.sw
	var best peak
	var bestQ float64
	for _, d := range durations {
		if d > 0.25*p {
			break
		}
		if d < 0.7*dmin {
			continue
		}
		m := max(1, int(math.Round(d/(p/fnb))))
		var win, wyin float64
		for k := 0; k < m; k++ {
			win += bw[k]
			wyin += bwy[k]
		}
		bestJ := -1
		// Few boxes beat the best so far, so slide passes over the others with a test that needs no division,
		// s² > thr·w·(W − w), thr being bestQ lowered by far more than rounding can move either side: no box that
		// the exact test below would take is passed over, and that test alone decides.
		thr := bestQ * (1 - 1e-9)
		// The bins leaving and entering the box as it slides.
		outW, outWY, inW, inWY := bw[:nb], bwy[:nb], bw[m:m+nb], bwy[m:m+nb]
		for j := 0; j < nb; j++ {
			var n int
			n, win, wyin = slide(inW[j:], inWY[j:], outW[j:], outWY[j:], win, wyin, sw, thr)
			if j += n; j == nb {
				break
			}
			if wyin < 0 && win > 0 && win < sw {
				if q := wyin * wyin / (win * (sw - win)); q > bestQ {
					bestQ, bestJ = q, j
					thr = bestQ * (1 - 1e-9)
				}
			}
			win += inW[j] - outW[j]
			wyin += inWY[j] - outWY[j]
		}
		if bestJ >= 0 {
			win, wyin = 0, 0
			for k := bestJ; k < bestJ+m; k++ {
				win += bw[k]
				wyin += bwy[k]
			}
			depth := -wyin * sw / (win * (sw - win))
			best = peak{period: p, t0: s.t0 + (float64(bestJ)+float64(m)/2)*p/fnb, duration: d, depth: depth,
				snr: math.Sqrt(bestQ * sw)}
		}
	}
	return best
}

// fold bins the series at period p into nb phase bins: bw holds their weights and bwy their weighted fluxes,
// each followed by a copy of itself, so that a box may run past the last bin. Both are the series' scratch,
// valid until the next fold.
func (s *series) fold(p float64, nb int) (bw, bwy []float64) {
	if 2*nb > len(s.binW) { // a refinement step can pass a little beyond the period the scratch was sized for
		s.binW, s.binWY = make([]float64, 2*nb), make([]float64, 2*nb)
	}
	bw, bwy = s.binW[:2*nb], s.binWY[:2*nb]
	clear(bw[:nb])
	clear(bwy[:nb])
	// The bins of four cadences are found before any of them is added to, so that finding them need not wait
	// for the additions; each bin still receives its cadences in time order, so the sums are those of one
	// cadence at a time.
	scale, unb := 0x1p32/p, uint64(nb)
	tt := s.tt
	w, wy := s.w[:len(tt)], s.wy[:len(tt)] // one length for the three, so that the loop checks no index
	i := 0
	for ; i+4 <= len(tt); i += 4 {
		k0, k1 := phaseBin(tt[i], scale, unb), phaseBin(tt[i+1], scale, unb)
		k2, k3 := phaseBin(tt[i+2], scale, unb), phaseBin(tt[i+3], scale, unb)
		bw[k0] += w[i]
		bwy[k0] += wy[i]
		bw[k1] += w[i+1]
		bwy[k1] += wy[i+1]
		bw[k2] += w[i+2]
		bwy[k2] += wy[i+2]
		bw[k3] += w[i+3]
		bwy[k3] += wy[i+3]
	}
	for ; i < len(tt); i++ {
		k := phaseBin(tt[i], scale, unb)
		bw[k] += w[i]
		bwy[k] += wy[i]
	}
	copy(bw[nb:], bw[:nb])
	copy(bwy[nb:], bwy[:nb])
	return bw, bwy
}

// phaseBin returns the phase bin, of nb, of time x at the period whose 2³²/p is scale. The phase fraction is
// taken in 32-bit fixed point: u = ⌊x·2³²/p⌋ keeps its low 32 bits, the fraction times 2³², and the bin is
// (u·nb) >> 32, always below nb.
func phaseBin(x, scale float64, nb uint64) int {
	return int((uint64(uint32(int64(x*scale))) * nb) >> 32)
}

// slide moves the box one bin at a time, adding inW and inWY and taking off outW and outWY, while its sums
// win, wyin fail the test of a box that could beat thr. It returns the number of steps n taken and the sums
// there (n = len(outW) if no box passed the test). It is a loop of its own, with few values live, so that the
// compiler keeps them all in registers: most of the scan's time is spent here and in the fold above.
func slide(inW, inWY, outW, outWY []float64, win, wyin, sw, thr float64) (n int, _, _ float64) {
	inW, inWY, outWY = inW[:len(outW)], inWY[:len(outW)], outWY[:len(outW)]
	for n = range outW {
		if wyin*wyin > thr*(win*(sw-win)) {
			return n, win, wyin
		}
		win += inW[n] - outW[n]
		wyin += inWY[n] - outWY[n]
	}
	return len(outW), win, wyin
}

// step is the relative period step at p for a given oversampling: the midtime drifts by span·dP/P over the
// data, and that drift is kept under the shortest duration at p divided by the oversampling.
func step(p, span, oversampling float64) float64 {
	return shortestDuration(p) / (oversampling * span)
}

// search runs BLS with the snr objective (depth / its 1σ uncertainty, as astropy's BoxLeastSquares defines it)
// from minPeriodDays to a third of the span, coarse to fine: a coarse pass (coarseOversampling) over the light curve
// binned by coarseBin cadences finds the strongest candidate periods, and each is refined on the full light curve
// with oversampling 4 around it.
func search(t, y, dy []float64) (peak, bool) {
	span := t[len(t)-1] - t[0]
	pmax := span / 3
	bt, by, bdy := binCadences(t, y, dy, coarseBin)
	coarse := newSeries(bt, by, bdy, pmax)
	type trial struct{ p, snr float64 }
	var trials []trial
	for p := minPeriodDays; p <= pmax; p *= 1 + step(p, span, coarseOversampling) {
		trials = append(trials, trial{p, coarse.scan(p).snr})
	}
	// The strongest local maxima of the coarse periodogram, at least 0.5 % apart.
	var cands []trial
	for i := 1; i+1 < len(trials); i++ {
		if trials[i].snr >= trials[i-1].snr && trials[i].snr >= trials[i+1].snr {
			cands = append(cands, trials[i])
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].snr > cands[j].snr })
	var picked []trial
	for _, c := range cands {
		if len(picked) == refineCandidates {
			break
		}
		distinct := true
		for _, q := range picked {
			if math.Abs(c.p/q.p-1) < 0.005 {
				distinct = false
				break
			}
		}
		if distinct {
			picked = append(picked, c)
		}
	}
	fine := newSeries(t, y, dy, pmax)
	var best peak
	for _, c := range picked {
		s := step(c.p, span, coarseOversampling)
		for p := c.p * (1 - 2*s); p <= c.p*(1+2*s); p *= 1 + step(p, span, 4) {
			if r := fine.scan(p); r.snr > best.snr {
				best = r
			}
		}
	}
	if best.snr == 0 {
		return best, false
	}
	best.t0 = math.Mod(best.t0-t[0], best.period) + t[0]
	return best, true
}
