package bls

import (
	"math"
	"sort"
)

// Peak is one candidate signal of a periodogram.
type Peak struct {
	PeriodDays   float64
	T0Days       float64 // a mid-transit time, in [t_first, t_first + P)
	DurationDays float64
	Depth        float64 // flux units (fractional for relative flux)
	DepthErr     float64
	SNR          float64
	Power        float64 // the periodogram value (SNR or log likelihood, per Result.Objective)
	NTransits    int     // transits with at least one cadence inside the box
}

// Alias suppression in Peaks: a local maximum at P' is dropped when, for a stronger accepted peak at P, P' is
// within a relative tolerance of n·P or P/n for any whole n, or of (n/m)·P or (m/n)·P for 1 ≤ n ≤ MaxMultiple
// and 2 ≤ m ≤ MaxHarmonic. Folding a periodic transit at P' = (n/m)·P lines up one in m of its epochs, and at
// P' = P/n all transits, diluted n times; both make peaks wherever the true transits are strong. The
// tolerance is the larger of MinAliasTol and 1.5·D/T (D the stronger peak's duration, T the data span): a
// period error of D/T shifts the last transit by one duration relative to the first, the width of a BLS peak.
const (
	MaxHarmonic = 4
	MaxMultiple = 12
	MinAliasTol = 5e-4
)

// fractionRatios are the non-integer period ratios Peaks suppresses: n/m and m/n for n ≤ MaxMultiple,
// 2 ≤ m ≤ MaxHarmonic.
var fractionRatios = func() []float64 {
	var out []float64
	for n := 1; n <= MaxMultiple; n++ {
		for m := 2; m <= MaxHarmonic; m++ {
			if n%m != 0 {
				out = append(out, float64(n)/float64(m), float64(m)/float64(n))
			}
		}
	}
	return out
}()

// Peaks returns up to k distinct peaks of the periodogram, strongest first: local maxima of the power over
// period (ties keep the shorter period), with every maximum at the same period (within tolerance) as a
// stronger accepted peak or at an alias ratio of it (see MaxHarmonic) removed. Periods with no dipping box
// (power 0) are never peaks.
func (r *Result) Peaks(k int) []Peak {
	if k <= 0 || len(r.Periods) == 0 {
		return nil
	}
	order := make([]int, len(r.Periods))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.Periods[order[a]] < r.Periods[order[b]] })
	var maxima []int
	for j, i := range order {
		if !(r.Power[i] > 0) {
			continue
		}
		if j > 0 && r.Power[order[j-1]] >= r.Power[i] {
			continue
		}
		if j+1 < len(order) && r.Power[order[j+1]] > r.Power[i] {
			continue
		}
		maxima = append(maxima, i)
	}
	sort.SliceStable(maxima, func(a, b int) bool { return r.Power[maxima[a]] > r.Power[maxima[b]] })

	var out []Peak
	for _, i := range maxima {
		if len(out) == k {
			break
		}
		if r.isAlias(i, out) {
			continue
		}
		out = append(out, Peak{
			PeriodDays:   r.Periods[i],
			T0Days:       r.T0[i],
			DurationDays: r.Durations[i],
			Depth:        r.Depth[i],
			DepthErr:     r.DepthErr[i],
			SNR:          r.SNR[i],
			Power:        r.Power[i],
			NTransits:    countTransits(r.t, r.Periods[i], r.T0[i], r.Durations[i]),
		})
	}
	return out
}

// isAlias reports whether period index i is at an alias ratio of an accepted peak's period.
func (r *Result) isAlias(i int, accepted []Peak) bool {
	p := r.Periods[i]
	for _, a := range accepted {
		tol := math.Max(MinAliasTol, 1.5*a.DurationDays/r.SpanDays)
		near := func(ratio float64) bool { return ratio > 0 && math.Abs(p/(a.PeriodDays*ratio)-1) <= tol }
		if near(math.Round(p/a.PeriodDays)) || near(1/math.Round(a.PeriodDays/p)) {
			return true
		}
		for _, ratio := range fractionRatios {
			if near(ratio) {
				return true
			}
		}
	}
	return false
}

// countTransits returns the number of distinct transit epochs round((t − t0)/P) having a cadence of t
// (sorted) within ±duration/2 of their mid-transit time.
func countTransits(t []float64, period, t0, duration float64) int {
	n := 0
	last := math.MinInt
	for _, x := range t {
		e := math.Floor((x-t0)/period + 0.5)
		if math.Abs(x-t0-e*period) < duration/2 && int(e) != last {
			n++
			last = int(e)
		}
	}
	return n
}
