package quicklook

import (
	"math"
	"runtime"
	"sync"

	"transitbench/engine/bls"
	"transitbench/engine/vet"
)

// Every signal quicklook reports (a BLS peak, a found planet, a solution's row, the truth, an ephemeris typed
// in) is measured one way, as Kepler's DV measures a TCE: engine/vet.Measure on the relative flux re-detrended
// with the signal's transits and the star's other found signals (Analysis.Others) masked, the others' windows
// left out, at the fitted T14. Its depth, MES (SPEC A4's, the MES the data sets' answers state) and refined
// statistics (Refined: the secondary clear of the whole transit, odd/even as a ratio with a systematic floor)
// are the statistics every front end shows first; Features' own odd/even and secondary, measured at the box,
// are the "box" statistics the learned vetter also takes (engine/pipeline's features) and are shown only
// under that name.

// vetEphemeris is e as engine/vet takes it.
func vetEphemeris(e Ephemeris) vet.Ephemeris {
	return vet.Ephemeris{PeriodDays: e.PeriodDays, T0Days: e.T0Days, DurationDays: e.DurationDays}
}

// flux returns the relative flux of a with NaN at the cadences that are not valid.
func (a *Analysis) flux() []float64 {
	out := make([]float64, len(a.Time))
	for i, f := range a.Raw {
		out[i] = f
		if a.Flagged[i] {
			out[i] = math.NaN()
		}
	}
	return out
}

// starOf is a's star as engine/vet takes it (nil when unknown).
func (a *Analysis) starOf() *vet.Star {
	if a.Star == nil || !(a.Star.RadiusRsun > 0) || !(a.Star.MassMsun > 0) {
		return nil
	}
	return &vet.Star{RadiusRsun: a.Star.RadiusRsun, MassMsun: a.Star.MassMsun}
}

// Same reports whether the found signal o is the signal e: periods within 1 % (or e a single event's, o at
// e's mid-time) and a transit of o within a duration of a transit of e. A measurement masks the others that
// are not the signal measured.
func Same(e, o vet.Ephemeris) bool {
	if !(e.PeriodDays > 0) || !(o.PeriodDays > 0) {
		return false
	}
	if math.Abs(e.PeriodDays/o.PeriodDays-1) > 0.01 && o.PeriodDays < SinglePeriodDays {
		return false
	}
	tol := math.Max(e.DurationDays, o.DurationDays)
	return math.Abs(math.Remainder(o.T0Days-e.T0Days, e.PeriodDays)) <= tol
}

// SinglePeriodDays is the period a single event is masked with (vet.Ephemeris needs one): longer than any light
// curve, so that its window masks the event alone.
const SinglePeriodDays = 1e5

// others returns the signals of a.Others that are not e.
func (a *Analysis) others(e vet.Ephemeris) []vet.Ephemeris {
	var out []vet.Ephemeris
	for _, o := range a.Others {
		if !Same(e, o) {
			out = append(out, o)
		}
	}
	return out
}

// Measure measures the signal at e on a (engine/vet.Measure, the star's other found signals masked); the
// measurement's ephemeris is the fitted one. A zero Measurement when e has no period or duration.
func Measure(a *Analysis, e Ephemeris) vet.Measurement {
	if !(e.PeriodDays > 0) || !(e.DurationDays > 0) {
		return vet.Measurement{}
	}
	v := vetEphemeris(e)
	return vet.Measure(a.Time, a.flux(), v, a.others(v), a.starOf())
}

// measurePeaks measures each peak (Measure), the peaks at once on up to GOMAXPROCS goroutines (each
// measurement is independent and writes only its own entry).
func (a *Analysis) measurePeaks(peaks []bls.Peak) []vet.Measurement {
	out := make([]vet.Measurement, len(peaks))
	flux := a.flux()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, pk := range peaks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			v := vet.Ephemeris{PeriodDays: pk.PeriodDays, T0Days: pk.T0Days, DurationDays: pk.DurationDays}
			out[i] = vet.Measure(a.Time, flux, v, a.others(v), a.starOf())
		}()
	}
	wg.Wait()
	return out
}

// WithPlanets returns a copy of a whose Others are the found signals (FindPlanets): each planet's fitted
// ephemeris, each single event on its own. a itself is not changed.
func (a *Analysis) WithPlanets(found []Planet) *Analysis {
	out := *a
	out.Others = nil
	for _, p := range found {
		out.Others = append(out.Others, p.masks()...)
	}
	return &out
}

// Stats are a measurement's statistics in the order every front end shows them: the fitted ephemeris, depth,
// MES and transits with data at the fitted T14, then the refined secondary and odd/even; the box statistics
// (engine/vet.Compute's odd/even and secondary, which the learned vetter takes beside the refined ones) only
// under Box.
type Stats struct {
	PeriodDays float64 `json:"period_days"`
	T0Days     float64 `json:"t0_days"`
	T14Days    float64 `json:"t14_days"`
	// Depth is the mean depth within T14 and DepthErr its error; MES = Depth/σ_D(T14)·√NTransits (SPEC A4).
	Depth     float64 `json:"depth"`
	DepthErr  float64 `json:"depth_err"`
	MES       float64 `json:"mes"`
	NTransits int     `json:"n_transits"`
	// The secondary eclipse searched with T14-wide boxes clear of the whole transit: depth, error, MES (≥ 7.1
	// flags a binary) and phase.
	SecondaryDepth    float64 `json:"secondary_depth"`
	SecondaryDepthErr float64 `json:"secondary_depth_err"`
	SecondaryMES      float64 `json:"secondary_mes"`
	SecondaryPhase    float64 `json:"secondary_phase"`
	// Odd/even as a depth ratio with its error and the significance of the difference with the systematic floor
	// vet.OddEvenFloor (≥ 3 flags a binary at twice its period).
	OddEvenRatio    float64 `json:"odd_even_ratio"`
	OddEvenRatioErr float64 `json:"odd_even_ratio_err"`
	OddEvenSigma    float64 `json:"odd_even_sigma"`
	// Box holds the box statistics.
	Box BoxStats `json:"box"`
}

// BoxStats are engine/vet.Compute's odd/even and secondary at the same T14 without the systematic floor and
// with box-wide secondary windows: inputs of the learned vetter, not the reported statistics.
type BoxStats struct {
	OddEvenSigma   float64 `json:"odd_even_sigma"`
	SecondaryDepth float64 `json:"secondary_depth"`
	SecondaryMES   float64 `json:"secondary_mes"`
}

// StatsOf returns the statistics of m.
func StatsOf(m vet.Measurement) Stats {
	f, r, e := m.Features, m.Refined, m.Ephemeris
	return Stats{PeriodDays: e.PeriodDays, T0Days: e.T0Days, T14Days: e.DurationDays,
		Depth: f.Depth, DepthErr: f.DepthErr, MES: f.MES, NTransits: f.NTransits,
		SecondaryDepth: r.SecondaryDepth, SecondaryDepthErr: r.SecondaryDepthErr, SecondaryMES: r.SecondaryMES, SecondaryPhase: r.SecondaryPhase,
		OddEvenRatio: r.OddEvenRatio, OddEvenRatioErr: r.OddEvenRatioErr, OddEvenSigma: r.OddEvenSigma,
		Box: BoxStats{OddEvenSigma: f.OddEvenSigma, SecondaryDepth: f.SecondaryDepth, SecondaryMES: f.SecondaryMES}}
}

// MeasuredFlux measures the signal at e (Measure) and returns the flux it was measured on (one value per
// cadence, NaN where not valid or in another signal's window) with the measurement; a's search flux when e has
// no period or duration.
func MeasuredFlux(a *Analysis, e Ephemeris) ([]float64, vet.Measurement) { return a.measuredFlat(e) }
