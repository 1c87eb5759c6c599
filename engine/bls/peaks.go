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

// Alias suppression in Peaks. A local maximum at P' (mid-transit t0', duration D') is dropped when, for a
// stronger accepted peak at P (t0, D), P'/P is within a relative tolerance of n/m or m/n with m ≤ MaxHarmonic
// and
//   - m = 1 (any whole multiple or fraction of P), or
//   - n ≤ MaxMultiple, or
//   - the two ephemerides share transits: with n/m in lowest terms the transit times t0 + kP and t0' + jP'
//     differ by multiples of P/m (for P' > P; P'/m for P' < P), so t0' − t0 must lie within max(D, D') of
//     one.
//
// Folding a periodic transit at P' = (n/m)·P lines up one in m of its epochs, and at P' = P/n all of them,
// diluted n times; both make peaks wherever the true transits are strong. The tolerance is the larger of
// MinAliasTol and 1.5·max(D, D')/T (T the data span): a period error of D/T shifts the last transit by one
// duration relative to the first, the width of a BLS peak of a box of duration D.
const (
	MaxHarmonic = 4
	MaxMultiple = 12
	MinAliasTol = 5e-4
)

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

// isAlias reports whether period index i is an alias of an accepted peak (see MaxHarmonic).
func (r *Result) isAlias(i int, accepted []Peak) bool {
	p, t0, d := r.Periods[i], r.T0[i], r.Durations[i]
	for _, a := range accepted {
		dmax := math.Max(a.DurationDays, d)
		tol := math.Max(MinAliasTol, 1.5*dmax/r.SpanDays)
		ratio := p / a.PeriodDays
		for m := 1; m <= MaxHarmonic; m++ {
			// P' = (n/m)·P when P' ≥ P, P' = (m/n)·P otherwise.
			n := int(math.Round(float64(m) * math.Max(ratio, 1/ratio)))
			if n < 1 {
				continue
			}
			q := float64(n) / float64(m)
			if ratio < 1 {
				q = 1 / q
			}
			if math.Abs(ratio/q-1) > tol {
				continue
			}
			if m == 1 || n <= MaxMultiple {
				return true
			}
			g := gcd(n, m)
			unit := a.PeriodDays / float64(m/g) // P/m for P' > P
			if ratio < 1 {
				unit = p / float64(m/g) // P'/m for P' < P
			}
			if math.Abs(math.Remainder(t0-a.T0Days, unit)) <= dmax {
				return true
			}
		}
	}
	return false
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
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
