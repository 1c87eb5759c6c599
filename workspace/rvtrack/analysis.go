package rvtrack

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"transitbench/engine/rv"
	"transitbench/engine/stat"
	"transitbench/grader/rvgate"
)

// Analysis is what a front end shows of one trial configuration on a task's data: the model's per-instrument
// offsets and residuals, the dry-run metrics of the gate (rvgate.Metrics, which need no truth), a dense model
// curve and the GLS periodogram of the data or of the residuals with its strongest peaks. It holds nothing of
// the truth.
type Analysis struct {
	Planets     []rv.Planet
	JitterMS    float64
	Eval        rv.Eval
	Metrics     rvgate.ModelMetrics
	CurveT      []float64 // the model curve on a dense grid over the data's span (CurveN points)
	CurveV      []float64
	OfResiduals bool
	Periods     []float64 // GLS periodogram, periods in days
	Power       []float64
	Peaks       []rv.Peak // the PeakCount strongest peaks
	FAP         []float64 // false-alarm probability of each peak
}

// PeakCount is how many GLS peaks Analyse lists; CurveN is the number of points of its model curve.
const (
	PeakCount = 3
	CurveN    = 600
)

// PeriodRange is the GLS search band of d: 1.5 days to min(max(300, 1.5·span), 5000) days.
func PeriodRange(d *rv.Data) (lo, hi float64) {
	return 1.5, math.Min(math.Max(300, 1.5*d.Span()), 5000)
}

// Analyse evaluates planets (with jitter) on d: the offsets and residuals, the dry-run metrics of the gate for
// a task of medianSigma, the model curve, and the GLS periodogram (five samples per peak width over
// PeriodRange) of the residuals when residuals is set, else of the data less the per-instrument means, with
// its PeakCount strongest peaks and their FAP. With fewer than three frequencies there is no periodogram.
func Analyse(d *rv.Data, medianSigma float64, planets []rv.Planet, jitter float64, residuals bool) *Analysis {
	a := &Analysis{Planets: planets, JitterMS: jitter, OfResiduals: residuals}
	model := make([]float64, d.Len())
	rv.ModelRV(model, d.Times, d.TRef, planets)
	a.Eval = d.Evaluate(model, jitter)
	a.Metrics = rvgate.Metrics(d, planets, jitter, medianSigma)
	lo, hi := stat.Extent(d.Times)
	a.CurveT, a.CurveV = make([]float64, CurveN), make([]float64, CurveN)
	for i := range a.CurveT {
		a.CurveT[i] = lo + (hi-lo)*float64(i)/float64(CurveN-1)
	}
	rv.ModelRV(a.CurveV, a.CurveT, d.TRef, planets)

	y := a.Eval.Residuals
	if !residuals {
		y = d.Evaluate(nil, 0).Residuals
	}
	pmin, pmax := PeriodRange(d)
	freq := rv.FrequencyGrid(d.Span(), pmin, pmax, 5)
	if len(freq) < 3 {
		return a
	}
	a.Power = rv.GLS(nil, d.Times, y, d.Sigmas, freq)
	a.Periods = make([]float64, len(freq))
	for i, f := range freq {
		a.Periods[i] = 1 / f
	}
	a.Peaks = rv.TopPeaks(freq, a.Power, PeakCount, 0.08)
	band := freq[len(freq)-1] - freq[0]
	for _, p := range a.Peaks {
		a.FAP = append(a.FAP, rv.FAP(p.Power, d.Len(), d.Span(), band))
	}
	return a
}

// PeakPlanet is the circular planet the periodogram's strongest peak suggests (rv.CircularStart on the
// residuals at its period); ok is false when a is nil, has no peak, or the start has no positive amplitude.
func PeakPlanet(d *rv.Data, a *Analysis) (rv.Planet, bool) {
	if a == nil || len(a.Peaks) == 0 {
		return rv.Planet{}, false
	}
	p := a.Peaks[0].PeriodDays
	k, m0 := rv.CircularStart(d, a.Eval.Residuals, p)
	if !(k > 0) {
		return rv.Planet{}, false
	}
	return rv.Planet{PeriodDays: p, KMS: k, M0Rad: m0}, true
}

// AutoFit is the outcome of FitData.
type AutoFit struct {
	Planets  []rv.Planet
	JitterMS float64
	GP       bool // the search kept a stellar-rotation Gaussian process for the noise
	// Honest is set by HonestFit: the model of rv.Honest, with one jitter per instrument (InstJitter, indexed
	// as the data's instruments) and the steps of its search; JitterMS is then the one jitter of greatest
	// likelihood for its planets, as a submission takes.
	Honest     bool
	InstJitter []float64
	Steps      []rv.HonestStep
}

// HonestFit runs the honest search (rv.Honest: per-instrument offsets and jitters, Kipping's eccentricity
// prior, a false-alarm test before each planet); it is what the terminal UI's search runs on imported tasks.
func HonestFit(d *rv.Data) *AutoFit {
	res := rv.Honest(d, rv.HonestOptions{})
	return &AutoFit{Planets: res.Planets, JitterMS: rv.BestJitter(d, res.Planets), Honest: true,
		InstJitter: res.InstJitter, Steps: res.Steps}
}

// HonestSummary is one line on an honest fit: each instrument's jitter and why the search stopped.
func (f *AutoFit) HonestSummary(instruments []string) string {
	if f == nil || !f.Honest {
		return ""
	}
	var parts []string
	for k, j := range f.InstJitter {
		if k < len(instruments) {
			parts = append(parts, fmt.Sprintf("%s %.2f", instruments[k], j))
		}
	}
	stop := "the planet cap"
	if n := len(f.Steps); n > 0 && !f.Steps[n-1].Added {
		st := f.Steps[n-1]
		stop = fmt.Sprintf("%s at %.2f d (FAP %.2g)", st.Reason, st.PeakPeriodDays, math.Max(st.PeakFAP, st.EmpiricalFAP))
	}
	return fmt.Sprintf("jitters m/s: %s; stopped: %s", strings.Join(parts, ", "), stop)
}

// FitData refines init on d by least squares with a fitted jitter (rv.Fit, e < 0.95), or, when init is empty,
// runs the automatic search (rv.SearchGP) and takes the jitter of greatest likelihood (rv.BestJitter), as the
// search baseline submits.
func FitData(d *rv.Data, init []rv.Planet) (*AutoFit, error) {
	if len(init) == 0 {
		res, gp := rv.SearchGP(d, rv.SearchOptions{})
		if res == nil {
			return nil, errors.New("the search returned no model")
		}
		return &AutoFit{Planets: res.Planets, JitterMS: rv.BestJitter(d, res.Planets), GP: gp != nil}, nil
	}
	res, err := rv.Fit(d, init, rv.FitOptions{FitJitter: true, MaxE: 0.95})
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	return &AutoFit{Planets: res.Planets, JitterMS: res.Jitter}, nil
}
