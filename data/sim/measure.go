package sim

import (
	"math"
	"slices"
	"strconv"

	"transitbench/engine/detrend"
	"transitbench/engine/noise"
	"transitbench/engine/stat"
)

// meter measures noise on a star's planet-free flux the way SPEC A4 defines MES: the flux is detrended as
// engine/detrend.Flatten does with its defaults, on a coarse grid (engine/detrend.FlattenKnots), and σ_D and MES
// are engine/noise's (SigmaDInto, MESInto) on the detrended flux. It keeps the valid cadences only.
type meter struct {
	t, flat []float64 // valid cadences: time (BKJD days) and detrended relative flux (median ≈ 1)
	window  float64   // detrending window, days
	cache   map[float64]float64

	// cad is the cadence as engine/noise finds it, the median spacing of t, and model and work are scratch
	// buffers; all three are set up on first use (cadence, signal), since the meters rescale makes of trial
	// light curves only compare their detrended flux.
	cad         float64
	model, work []float64
}

// newMeter detrends the valid cadences of flux with a biweight window of max(MinWindowDays, WindowDurations ×
// 12 h) (the longest duration measured is CDPP's 12 h).
func newMeter(cal *calendar, flux []float64, k *Knobs) *meter {
	// Counting the cadences first sizes t and f once: grown by append they would leave as much garbage again
	// behind them, and a false-alarm star makes up to five meters.
	n := cal.countMeasured(flux)
	t, f := make([]float64, 0, n), make([]float64, 0, n)
	for i := range cal.time {
		if cal.measured(flux, i) {
			t = append(t, cal.time[i])
			f = append(f, flux[i])
		}
	}
	return meterFrom(t, f, k)
}

// measured reports whether a meter measures cadence i of flux: valid by the calendar, with a flux.
func (cal *calendar) measured(flux []float64, i int) bool {
	return cal.valid(i) && !math.IsNaN(flux[i])
}

// countMeasured returns the number of cadences of flux a meter measures.
func (cal *calendar) countMeasured(flux []float64) int {
	n := 0
	for i := range cal.time {
		if cal.measured(flux, i) {
			n++
		}
	}
	return n
}

// meterFrom returns the meter of valid cadences at times t (sorted) with flux f.
func meterFrom(t, f []float64, k *Knobs) *meter {
	m := &meter{t: t, cache: map[float64]float64{}}
	m.window = math.Max(k.Measure.MinWindowDays, k.Measure.WindowDurations*0.5)
	m.flat, _ = detrend.FlattenKnots(m.t, f, detrend.Options{WindowDays: m.window}, knotsPerWindow)
	return m
}

// cadence returns the cadence (m.cad), measuring it and allocating the work buffer on the first call.
func (m *meter) cadence() float64 {
	if m.work != nil {
		return m.cad
	}
	n := len(m.t)
	m.work = make([]float64, 4*n+1)
	if n > 1 {
		d := m.work[:n-1]
		for i := range d {
			d[i] = m.t[i+1] - m.t[i]
		}
		m.cad = stat.Median(d)
	}
	return m.cad
}

// sigmaD returns σ_D of the meter's flux over windows of durationDays (engine/noise.SigmaDInto), cached.
func (m *meter) sigmaD(durationDays float64) float64 {
	if v, ok := m.cache[durationDays]; ok {
		return v
	}
	s := noise.SigmaDInto(m.work, m.t, m.flat, m.cadence(), durationDays)
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

// knotsPerWindow sets the detrender's knot spacing, windowDays/knotsPerWindow (engine/detrend.FlattenKnots): 16
// keeps σ_D within ≈ 2 % of the per-cadence trend's on stars with sub-day variability (8 gave 5 %, 73 — one
// knot per cadence — 1 %).
const knotsPerWindow = 16.0

// newRawMeter is a meter on the undetrended flux: each quarter divided by its median. Its σ_D keeps
// the slow variability (spots, trends) a detrended meter removes.
func newRawMeter(cal *calendar, flux []float64) *meter {
	n := cal.countMeasured(flux) // sized once, as in newMeter
	m := &meter{cache: map[float64]float64{}, t: make([]float64, 0, n), flat: make([]float64, 0, n)}
	q := make([]int8, 0, n)
	for i := range cal.time {
		if cal.measured(flux, i) {
			m.t = append(m.t, cal.time[i])
			m.flat = append(m.flat, flux[i])
			q = append(q, cal.quarter[i])
		}
	}
	var sorted []float64 // one quarter's flux, sorted; the buffer is reused from quarter to quarter
	for s := 0; s < len(q); {
		e := s
		for e < len(q) && q[e] == q[s] {
			e++
		}
		sorted = append(sorted[:0], m.flat[s:e]...)
		slices.Sort(sorted)
		med := stat.MedianSorted(sorted)
		for i := s; i < e; i++ {
			m.flat[i] /= med
		}
		s = e
	}
	return m
}
