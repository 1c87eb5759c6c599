package vet

import (
	"math"

	"transitbench/engine/detrend"
)

// Ephemeris is a candidate's period, mid-transit time and duration, in days.
type Ephemeris struct {
	PeriodDays   float64 `json:"period_days"`
	T0Days       float64 `json:"t0_days"`
	DurationDays float64 `json:"duration_days"`
}

// MeasureWindowDays is the biweight window of the measurement detrending, detrend.WindowFor(12 h) = 1.5 d: the
// window with which the simulator measures the MES its answers state (data/sim's meter), so that the MES a tool
// measures at a dev star's true ephemeris is the answer's. The candidate's transits are masked (Redetrend), so
// the window does not have to be long to keep them.
var MeasureWindowDays = detrend.WindowFor(detrend.DefaultMaxDurationDays)

// MaskFactor is the width of the window masked around each transit, in units of its duration: 2 leaves half a
// duration on each side for the ephemeris's error, as multi.DefaultWindowFactor and Kepler's DV do.
const MaskFactor = 2.0

// TransitMask returns, per cadence of t, whether it lies within MaskFactor·D/2 of a mid-transit of one of eph
// (entries without a positive period and duration mask nothing).
func TransitMask(t []float64, eph []Ephemeris) []bool {
	m := make([]bool, len(t))
	for _, e := range eph {
		if !(e.PeriodDays > 0) || !(e.DurationDays > 0) {
			continue
		}
		half := MaskFactor * e.DurationDays / 2
		for i, x := range t {
			if !m[i] && math.Abs(math.Remainder(x-e.T0Days, e.PeriodDays)) <= half {
				m[i] = true
			}
		}
	}
	return m
}

// Redetrend returns flux (relative, NaN where a cadence is not valid) detrended as every measurement is:
// detrend.Flatten with MeasureWindowDays and the transits of eph masked (TransitMask), so that the trend runs
// under them from the flux around them and their depth is kept whatever their duration.
func Redetrend(t, flux []float64, eph []Ephemeris) []float64 {
	flat, _ := detrend.Flatten(t, flux, detrend.Options{WindowDays: MeasureWindowDays, Mask: TransitMask(t, eph)})
	return flat
}

// Isolate returns a copy of flat with the cadences within MaskFactor·D/2 of the transits of others set to
// NaN: a candidate is vetted with the other candidates of its star out of the data, so that another planet's
// transit never reads as its secondary eclipse or an odd/even difference.
func Isolate(t, flat []float64, others []Ephemeris) []float64 {
	out := make([]float64, len(flat))
	copy(out, flat)
	for i, m := range TransitMask(t, others) {
		if m {
			out[i] = math.NaN()
		}
	}
	return out
}

// Measurement is one candidate measured as Kepler's DV measures a TCE: on the light curve re-detrended with its
// transits and those of the star's other candidates masked, the others' windows then left out (Isolate), at the
// fitted transit.
type Measurement struct {
	// Ephemeris is the fitted transit: the period, the mid-time moved by the trapezoid's offset and T14 (the
	// given ephemeris when the fit fails).
	Ephemeris Ephemeris `json:"ephemeris"`
	// Refined holds the statistics (Refine at Ephemeris): T14, the secondary clear of the transit, odd/even with
	// its systematic floor.
	Refined Refined `json:"refined"`
	// Features is Compute at Ephemeris: depth, MES (the mean depth within T14 over σ_D(T14), SPEC A4's MES), the
	// shape and single-event statistics, and DurationRatio = T14 over the star's central T14. Its own odd/even
	// and secondary (no systematic floor, box-wide) are the "box" statistics, kept for the learned vetter.
	Features Features `json:"features"`
	// Flat is the flux the statistics were measured on (NaN where not valid or in another candidate's window).
	Flat []float64 `json:"-"`
}

// Measure measures the candidate cand on flux (relative, before detrending; NaN where a cadence is not valid),
// with the other candidates of the star in others. The first re-detrending masks 2 × the given duration; when the
// fitted T14 is longer than the given duration, the light curve is re-detrended again with 2 × T14 masked.
func Measure(t, flux []float64, cand Ephemeris, others []Ephemeris, star *Star) Measurement {
	m := Measurement{Ephemeris: cand}
	if len(t) != len(flux) || !(cand.PeriodDays > 0) || !(cand.DurationDays > 0) {
		return m
	}
	mask := append([]Ephemeris{cand}, others...)
	y := Isolate(t, Redetrend(t, flux, mask), others)
	fit := FitTrapezoid(t, y, cand.PeriodDays, cand.T0Days, cand.DurationDays)
	if fit.T14Days > 0 && fit.T14Days < cand.PeriodDays/2 {
		m.Ephemeris = Ephemeris{PeriodDays: cand.PeriodDays, T0Days: cand.T0Days + fit.OffsetDays, DurationDays: fit.T14Days}
		if fit.T14Days > cand.DurationDays {
			mask[0] = m.Ephemeris
			y = Isolate(t, Redetrend(t, flux, mask), others)
		}
	}
	e := m.Ephemeris
	m.Flat = y
	m.Refined = Refine(t, y, e.PeriodDays, e.T0Days, e.DurationDays)
	m.Features = Compute(t, y, e.PeriodDays, e.T0Days, e.DurationDays, star)
	return m
}
