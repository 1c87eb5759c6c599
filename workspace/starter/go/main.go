// Command starter is TransitBench's starter solution: a box least squares (BLS) search that reports the
// strongest peak when its signal-to-noise ratio is at least 8 and its depth at most 3 %.
//
// Usage: starter STAR_DIR. It reads STAR_DIR/lightcurve.csv (time,flux,flux_err,quality) and prints
// `period_days,t0_days,score` rows on stdout. It depends on the Go standard library only, so the
// workspace builds it anywhere; improve it, or replace it with your own pipeline.
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Tunable choices of the starter.
const (
	qualityMask   = 1 | 2 | 4 | 8 | 32 | 256 | 16384 | 65536 | 1048576 // lightkurve's default bitmask
	windowDays    = 1.0                                                // running-median detrending window
	minPeriodDays = 0.5
	oversample    = 2.0 // period-grid oversampling: midtime drift over the span ≤ duration / oversample
	snrThreshold  = 8.0
	maxDepth      = 0.03
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
	flat := detrend(t, f, windowDays)
	clipHigh(flat, 5)
	best, ok := search(t, flat, e)
	if !ok {
		return
	}
	fmt.Fprintf(os.Stderr, "best peak: P=%.5f d t0=%.4f D=%.3f d depth=%.1f ppm snr=%.2f\n",
		best.period, best.t0, best.duration, best.depth*1e6, best.snr)
	if best.snr >= snrThreshold && best.depth <= maxDepth {
		fmt.Printf("%.6f,%.6f,%.3f\n", best.period, best.t0, best.snr)
	}
}

// readLightCurve returns the valid cadences (finite flux, no default-mask quality bit) in time order.
func readLightCurve(path string) (t, f, e []float64, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 0; sc.Scan(); line++ {
		s := sc.Text()
		if line == 0 && strings.HasPrefix(s, "time") {
			continue
		}
		p := strings.Split(s, ",")
		if len(p) < 4 {
			continue
		}
		ti, err1 := strconv.ParseFloat(p[0], 64)
		fi, err2 := strconv.ParseFloat(p[1], 64)
		ei, err3 := strconv.ParseFloat(p[2], 64)
		qi, err4 := strconv.ParseInt(p[3], 10, 64)
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
	if err := sc.Err(); err != nil {
		return nil, nil, nil, err
	}
	// Fill unknown errors with the robust point-to-point scatter.
	var diffs []float64
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

// detrend divides the flux by its running median over a window of w days.
func detrend(t, f []float64, w float64) []float64 {
	out := make([]float64, len(f))
	lo, hi := 0, 0
	buf := make([]float64, 0, 128)
	for i := range t {
		for t[lo] < t[i]-w/2 {
			lo++
		}
		for hi < len(t) && t[hi] <= t[i]+w/2 {
			hi++
		}
		buf = append(buf[:0], f[lo:hi]...)
		out[i] = f[i] / median(buf)
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

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
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

// search runs BLS with the snr objective (depth / its 1σ uncertainty, as astropy's BoxLeastSquares defines it)
// over a log-period grid from minPeriodDays to a third of the span.
func search(t, y, dy []float64) (peak, bool) {
	span := t[len(t)-1] - t[0]
	pmax := span / 3
	// Weighted sums for the box-depth estimate.
	w := make([]float64, len(t))
	var sw, swy float64
	for i := range t {
		w[i] = 1 / (dy[i] * dy[i])
		sw += w[i]
		swy += w[i] * y[i]
	}
	ymean := swy / sw
	// Per-cadence weighted, mean-subtracted flux and times from the first cadence, for the folding loop.
	wy := make([]float64, len(y))
	tt := make([]float64, len(t))
	for i := range y {
		wy[i] = w[i] * (y[i] - ymean)
		tt[i] = t[i] - t[0]
	}
	maxBins := int(math.Ceil(pmax/(shortestDuration(pmax)/4))) + 1
	bw := make([]float64, 2*maxBins)
	by := make([]float64, 2*maxBins)
	var best peak
	for p := minPeriodDays; p <= pmax; {
		dmin := shortestDuration(p)
		nb := int(math.Ceil(p / (dmin / 4)))
		for i := 0; i < nb; i++ {
			bw[i], by[i] = 0, 0
		}
		t0 := t[0]
		inv := 1 / p
		fnb := float64(nb)
		for i, x := range tt {
			ph := x * inv
			k := int((ph - float64(int(ph))) * fnb)
			if k >= nb {
				k = nb - 1
			}
			bw[k] += w[i]
			by[k] += wy[i]
		}
		copy(bw[nb:2*nb], bw[:nb])
		copy(by[nb:2*nb], by[:nb])
		for _, d := range durations {
			if d > 0.25*p {
				break
			}
			if d < 0.7*dmin {
				continue
			}
			m := int(math.Round(d / (p / float64(nb))))
			if m < 1 {
				m = 1
			}
			var win, wyin float64
			for k := 0; k < m; k++ {
				win += bw[k]
				wyin += by[k]
			}
			for s := 0; s < nb; s++ {
				if win > 0 && win < sw {
					// In-transit mean minus out-of-transit mean, relative to the overall weighted mean.
					yin := wyin / win
					yout := -wyin / (sw - win)
					depth := yout - yin
					if depth > 0 {
						snr := depth * math.Sqrt(win*(sw-win)/sw)
						if snr > best.snr {
							best = peak{period: p, t0: t0 + (float64(s)+float64(m)/2)*p/float64(nb), duration: d, depth: depth, snr: snr}
						}
					}
				}
				win += bw[s+m] - bw[s]
				wyin += by[s+m] - by[s]
			}
		}
		// Next period: the midtime drifts by span·dP/P over the year; keep it under the shortest duration
		// that fits this period, divided by the oversampling.
		p *= 1 + dmin/(oversample*span)
	}
	if best.snr == 0 {
		return best, false
	}
	best.t0 = math.Mod(best.t0-t[0], best.period) + t[0]
	return best, true
}
