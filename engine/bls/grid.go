package bls

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// MaxGridWork bounds the work of a grid: the number of (period, duration) pairs a search tries,
// Σ_p (DurHi[p] − DurLo[p]), or len(Periods)·len(Durations) without ranges. The default grid of a whole Kepler
// mission (DV tables, Q1–Q17, 1,460 d span) is 196,717 periods and 2.28·10⁶ pairs; 5·10⁶ leaves room for twice
// that (a longer span, a lower pmin, a finer oversampling) and bounds what a grid holds (≤ 5·10⁶ periods: the
// grid's three slices and Search's result slices stay below 0.5 GB). Beyond it the input is almost always
// wrong (times in seconds give 10⁴ times the periods) or the range needs narrowing.
const MaxGridWork = 5_000_000

// ErrGridTooLarge is returned when a grid would try more than MaxGridWork (period, duration) pairs.
var ErrGridTooLarge = errors.New("bls: period grid too large")

// GridWork returns the number of (period, duration) pairs g tries.
func GridWork(g Grid) int {
	if g.DurLo == nil || g.DurHi == nil || len(g.DurLo) != len(g.Periods) || len(g.DurHi) != len(g.Periods) {
		return len(g.Periods) * len(g.Durations)
	}
	w := 0
	for p := range g.Periods {
		w += max(g.DurHi[p]-g.DurLo[p], 0)
	}
	return w
}

// Grid is what Search tries: every period with every duration it allows, at phase steps set by
// PhaseOversample.
type Grid struct {
	// Periods are the trial periods in days, each > 0 and longer than every duration tried at it. Any order;
	// the periodogram follows it.
	Periods []float64
	// Durations are the trial box durations (full width) in days, ascending, each > 0.
	Durations []float64
	// DurLo and DurHi, when not nil (both, with len(Periods) entries), restrict period p to the durations
	// Durations[DurLo[p]:DurHi[p]] (a non-empty range). Nil tries every duration at every period, as astropy
	// does.
	DurLo, DurHi []int
	// PhaseOversample is the number of phase bins per shortest duration tried at a period (0 means
	// DefaultPhaseOversample). The bin width is b = P/⌈P·PhaseOversample/d_min⌉ ≤ d_min/PhaseOversample;
	// a duration d is tried at every start bin when d < 2·d_min, and in steps of ⌊d/d_min⌋ bins otherwise, so
	// every duration is stepped in phase by at most d/PhaseOversample. Durations are rounded to whole bins.
	PhaseOversample int
	// Workers is the number of goroutines sharing the periods (0 or 1: the calling goroutine only).
	Workers int
}

// DefaultPhaseOversample is the default number of phase bins per shortest duration. A box misplaced by up to
// half a phase step, d/(2·5), keeps at least 90 % of a transit's signal.
const DefaultPhaseOversample = 5

// GridOptions configures DefaultGrid. The zero value gives the documented defaults.
type GridOptions struct {
	// PMinDays is the shortest period (0 means 0.5 d); PMaxDays the longest (0 means span/MinTransits).
	PMinDays, PMaxDays float64
	// MinTransits is the number of transits a period must fit into the data span (0 means 3).
	MinTransits int
	// Oversample is Ofir's frequency oversampling factor (0 means 3).
	Oversample float64
	// RStarRsun and MStarMsun set the stellar radius and mass of Ofir's sampling (0 means 1, the Sun).
	RStarRsun, MStarMsun float64
	// DurMinDays and DurMaxDays bound the durations (0 means 0.5 h and 12 h); DurStep is the ratio of
	// consecutive durations (0 means 1.25, which keeps a transit's depth SNR within 6 % of a matched box:
	// a box off by a factor √1.25 in duration keeps (1.25)^(−1/4) = 95 % of the SNR).
	DurMinDays, DurMaxDays, DurStep float64
}

// Defaults of GridOptions.
const (
	DefaultPMinDays    = 0.5
	DefaultMinTransits = 3
	DefaultOversample  = 3.0
	DefaultDurMinDays  = 0.5 / 24
	DefaultDurMaxDays  = 12.0 / 24
	DefaultDurStep     = 1.25
)

// Physical duration bounds of DefaultGrid, in units of T☉(P) = 13 h · (P/365.25 d)^(1/3), the central
// transit duration of a planet across the Sun (T14 ∝ P^(1/3) ρ★^(−1/3) for a circular orbit):
//   - durationFactorLo = 0.2: impact parameter 0.9 (√(1−b²) = 0.44) across a star ten times denser than the
//     Sun (10^(−1/3) = 0.46, a mid M dwarf);
//   - durationFactorHi = 3.3: a central transit across a star of 0.05 solar densities (0.05^(−1/3) = 2.7,
//     a subgiant), with Rp/R★ = 0.2 lengthening it by 1.2;
//   - maxDutyCycle = 0.15: no duration beyond 15 % of the period (a Sun-like star at P = 0.5 d gives 12 %).
const (
	durationFactorLo = 0.2
	durationFactorHi = 3.3
	maxDutyCycle     = 0.15
	tSunDays         = 13.0 / 24
	yearDays         = 365.25
)

// Physical constants for Ofir's sampling (SI, IAU 2015 nominal values).
const (
	gSI       = 6.674e-11    // m³ kg⁻¹ s⁻²
	rSunM     = 6.957e8      // m
	gmSunSI   = 1.3271244e20 // m³ s⁻²
	secPerDay = 86400.0
)

func (o GridOptions) withDefaults(spanDays float64) GridOptions {
	if o.MinTransits <= 0 {
		o.MinTransits = DefaultMinTransits
	}
	if o.PMinDays <= 0 {
		o.PMinDays = DefaultPMinDays
	}
	if o.PMaxDays <= 0 {
		o.PMaxDays = spanDays / float64(o.MinTransits)
	}
	if o.Oversample <= 0 {
		o.Oversample = DefaultOversample
	}
	if o.RStarRsun <= 0 {
		o.RStarRsun = 1
	}
	if o.MStarMsun <= 0 {
		o.MStarMsun = 1
	}
	if o.DurMinDays <= 0 {
		o.DurMinDays = DefaultDurMinDays
	}
	if o.DurMaxDays <= 0 {
		o.DurMaxDays = DefaultDurMaxDays
	}
	if o.DurStep <= 1 {
		o.DurStep = DefaultDurStep
	}
	return o
}

// DefaultGrid returns the grid for a transit search of data taken at times t (days; only the finite minimum
// and maximum matter):
//   - periods from PMinDays to PMaxDays (default 0.5 d to a third of the span, so that every period has three
//     transits in the data) sampled uniformly in f^(1/3), f = 1/P, at Ofir's (2014, A&A 561, A138, eqs. 5–7)
//     optimal density for the star (OfirPeriods);
//   - durations from DurMinDays to DurMaxDays in steps of the ratio DurStep;
//   - at each period P only the durations inside the physical window [0.2, 3.3]·T☉(P), T☉ = 13 h·(P/1 yr)^(1/3)
//     (widened by one step on each side), and at most 15 % of P.
//
// The grid is empty (no periods) when the span is too short for PMinDays·MinTransits. A grid that would try
// more than MaxGridWork (period, duration) pairs is not built: the error wraps ErrGridTooLarge and gives its
// size (the count is made before anything is allocated, so a span in seconds fails at once).
func DefaultGrid(t []float64, opt GridOptions) (Grid, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range t {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return Grid{}, nil
	}
	o := opt.withDefaults(span)
	durs := LogDurations(o.DurMinDays, o.DurMaxDays, o.DurStep)
	if n := OfirCount(o.PMinDays, o.PMaxDays, span, o.Oversample, o.RStarRsun, o.MStarMsun); n > MaxGridWork {
		return Grid{}, gridTooLarge(n, len(durs), span)
	}
	g := Grid{Durations: durs}
	work := 0
	for _, p := range OfirPeriods(o.PMinDays, o.PMaxDays, span, o.Oversample, o.RStarRsun, o.MStarMsun) {
		a, b := DurationRange(p, g.Durations, o.DurStep)
		if a == b {
			continue // no duration fits this period
		}
		if work += b - a; work > MaxGridWork {
			return Grid{}, fmt.Errorf("%w: the default grid for a %.4g d span tries more than %d (period, duration) pairs (the cap, MaxGridWork); narrow the period range or lower the oversampling",
				ErrGridTooLarge, span, MaxGridWork)
		}
		g.Periods = append(g.Periods, p)
		g.DurLo = append(g.DurLo, a)
		g.DurHi = append(g.DurHi, b)
	}
	return g, nil
}

// gridTooLarge is the error for a grid of about n periods × up to nDur durations.
func gridTooLarge(n float64, nDur int, span float64) error {
	return fmt.Errorf("%w: %.3g periods × up to %d durations for a %.4g d span, above the cap of %d (period, duration) pairs (MaxGridWork); narrow the period range or give fewer periods",
		ErrGridTooLarge, n, nDur, span, MaxGridWork)
}

// DurationRange returns the index range [lo, hi) of the ascending durations (days) that DefaultGrid tries at
// period p: those inside the physical window [0.2, 3.3]·T☉(p), T☉(p) = 13 h·(p/365.25 d)^(1/3), widened by
// the factor step on each side, and at most 15 % of p. When the window misses every duration, the nearest
// duration is used if it is at most 15 % of p; otherwise lo = hi (the period cannot be searched).
func DurationRange(p float64, durations []float64, step float64) (lo, hi int) {
	if len(durations) == 0 {
		return 0, 0
	}
	tp := tSunDays * math.Cbrt(p/yearDays)
	dlo := durationFactorLo * tp / step
	dhi := math.Min(durationFactorHi*tp*step, maxDutyCycle*p)
	lo, _ = slices.BinarySearch(durations, dlo)
	hi, _ = slices.BinarySearch(durations, math.Nextafter(dhi, math.Inf(1)))
	if lo >= len(durations) {
		lo = len(durations) - 1
	}
	if hi <= lo {
		if durations[lo] > maxDutyCycle*p {
			return lo, lo
		}
		hi = lo + 1
	}
	return lo, hi
}

// OfirPeriods returns periods from pmin to pmax days, ascending, sampled uniformly in f^(1/3) (f = 1/P) with
// the step of Ofir (2014, A&A 561, A138, eqs. 5–7): with S the span in seconds,
// A = (2π)^(2/3)/π · R★/(G M★)^(1/3) / (S·os), the cube-root frequencies advance by A/3. This keeps the phase
// drift of a transit across the span a fixed fraction (1/os) of its duration at every period.
// It returns nil for an empty range, and for a grid of more than MaxGridWork periods (OfirCount tells its size
// beforehand: check it to report the problem).
func OfirPeriods(pmin, pmax, spanDays, os, rStarRsun, mStarMsun float64) []float64 {
	nf := OfirCount(pmin, pmax, spanDays, os, rStarRsun, mStarMsun)
	if !(nf >= 1) || nf > MaxGridWork {
		return nil
	}
	s := spanDays * secPerDay
	a := math.Pow(2*math.Pi, 2.0/3) / math.Pi * rStarRsun * rSunM / math.Cbrt(gmSunSI*mStarMsun) / (s * os)
	x0 := math.Cbrt(1 / (pmax * secPerDay)) // cube root of the lowest frequency, s^(−1/3)
	n := int(nf)
	out := make([]float64, 0, n)
	for i := n - 1; i >= 0; i-- {
		x := x0 + float64(i)*a/3
		p := 1 / (x * x * x) / secPerDay
		if i == 0 {
			p = pmax // exactly, not to rounding
		}
		if p < pmin {
			continue
		}
		out = append(out, p)
	}
	return out
}

// OfirCount returns how many periods OfirPeriods gives for these arguments (before it drops the rounding
// excess below pmin), as a float64 so that absurd inputs (a span of 10³⁰⁰ d) give a huge count rather than
// overflowing; 0 for an empty range, +Inf or NaN inputs included.
func OfirCount(pmin, pmax, spanDays, os, rStarRsun, mStarMsun float64) float64 {
	if !(pmin > 0) || !(pmax > pmin) || !(spanDays > 0) || !(os > 0) || math.IsInf(pmax, 0) {
		return 0
	}
	s := spanDays * secPerDay
	a := math.Pow(2*math.Pi, 2.0/3) / math.Pi * rStarRsun * rSunM / math.Cbrt(gmSunSI*mStarMsun) / (s * os)
	x0 := math.Cbrt(1 / (pmax * secPerDay))
	x1 := math.Cbrt(1 / (pmin * secPerDay))
	n := math.Ceil((x1-x0)/(a/3)) + 1
	if math.IsNaN(n) {
		return math.Inf(1) // a = 0: a span so long the step underflows
	}
	return n
}

// LogPeriodGrid returns n periods from pmin to pmax days spaced uniformly in log period, computed as numpy's
// exp(linspace(log(pmin), log(pmax), n)) does (the last value is pmax exactly), so that a grid given to
// astropy in the same way holds the same numbers. It returns nil when n < 1 and [pmin] when n = 1.
func LogPeriodGrid(pmin, pmax float64, n int) []float64 {
	if n < 1 {
		return nil
	}
	lo, hi := math.Log(pmin), math.Log(pmax)
	out := make([]float64, n)
	if n == 1 {
		out[0] = pmin
		return out
	}
	step := (hi - lo) / float64(n-1)
	for i := range out {
		out[i] = math.Exp(lo + float64(i)*step)
	}
	out[n-1] = pmax
	return out
}

// LogDurations returns durations from dmin to dmax days in steps of the ratio step (> 1), the last one dmax.
// It returns nil for an empty range and for more than MaxGridWork durations.
func LogDurations(dmin, dmax, step float64) []float64 {
	if !(dmin > 0) || !(dmax >= dmin) || !(step > 1) || math.IsInf(dmax, 0) {
		return nil
	}
	nf := math.Ceil(math.Log(dmax/dmin)/math.Log(step)-1e-9) + 1
	if !(nf <= MaxGridWork) {
		return nil
	}
	n := int(nf)
	out := make([]float64, n)
	for i := range out {
		out[i] = dmin * math.Pow(step, float64(i))
	}
	out[n-1] = dmax
	return out
}
