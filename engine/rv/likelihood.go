package rv

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"transitbench/engine/stat"
)

// Data is a radial-velocity time series ready for the numerics: times in days, velocities and their 1σ errors
// in m/s, and each point's instrument as an index into Instruments. TRef is the reference time of the mean
// anomalies (the first element of the times as given, not the earliest: the Stargazer convention).
type Data struct {
	Times, RVs, Sigmas []float64
	Inst               []int
	Instruments        []string
	TRef               float64
}

// ErrNoData is returned for a series with no points.
var ErrNoData = errors.New("rv: the time series has no points")

// NewData checks a series and indexes its instruments in order of first appearance. Times, velocities and
// errors must be finite and errors positive; instruments may be nil (one instrument).
func NewData(times, rvs, sigmas []float64, instruments []string) (*Data, error) {
	n := len(times)
	if n == 0 {
		return nil, ErrNoData
	}
	if len(rvs) != n || len(sigmas) != n || (instruments != nil && len(instruments) != n) {
		return nil, fmt.Errorf("rv: series lengths differ (times %d, rvs %d, sigmas %d, instruments %d): every point needs a time, a velocity and an error",
			n, len(rvs), len(sigmas), len(instruments))
	}
	d := &Data{Times: times, RVs: rvs, Sigmas: sigmas, Inst: make([]int, n), TRef: times[0]}
	index := map[string]int{}
	for i := range n {
		if !stat.Finite(times[i]) || !stat.Finite(rvs[i]) || !stat.Finite(sigmas[i]) || sigmas[i] <= 0 {
			return nil, fmt.Errorf("rv: point %d is not usable (t=%g, rv=%g, σ=%g): times and velocities must be finite and σ > 0",
				i, times[i], rvs[i], sigmas[i])
		}
		name := "inst"
		if instruments != nil {
			name = instruments[i]
		}
		k, ok := index[name]
		if !ok {
			k = len(d.Instruments)
			index[name] = k
			d.Instruments = append(d.Instruments, name)
		}
		d.Inst[i] = k
	}
	return d, nil
}

// Len returns the number of points.
func (d *Data) Len() int { return len(d.Times) }

// Span returns max(t) − min(t) in days.
func (d *Data) Span() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range d.Times {
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	return hi - lo
}

// MedianSigma returns the median quoted error (m/s; the mean of the two middle values for an even length), the
// scale of the Stargazer gate's ok_rms limit.
func (d *Data) MedianSigma() float64 { return stat.Median(slices.Clone(d.Sigmas)) }

// Eval is the outcome of comparing a model curve with the data.
type Eval struct {
	Offsets   []float64 // γ per instrument, m/s: the weighted mean of (y − model) over the instrument's points
	Residuals []float64 // y − model − γ, m/s
	RMS       float64   // √mean(residual²), unweighted, m/s
	Chi2      float64   // Σ residual² / v with v = σ² + jitter²
	LnL       float64   // −½ Σ [residual²/v + ln(2π v)]
}

// Evaluate fits one offset per instrument to y − model (weighted mean with weights 1/v, v = σ² + jitter²) and
// returns the residuals, their RMS, χ² and the Gaussian log-likelihood. model may be nil (the null model).
func (d *Data) Evaluate(model []float64, jitterMS float64) Eval {
	n := d.Len()
	ev := Eval{Offsets: make([]float64, len(d.Instruments)), Residuals: make([]float64, n)}
	sw := make([]float64, len(d.Instruments))
	j2 := jitterMS * jitterMS
	for i := range n {
		r := d.RVs[i]
		if model != nil {
			r -= model[i]
		}
		ev.Residuals[i] = r
		w := 1 / (d.Sigmas[i]*d.Sigmas[i] + j2)
		ev.Offsets[d.Inst[i]] += w * r
		sw[d.Inst[i]] += w
	}
	ev.removeOffsets(d, sw, func(i int) float64 { return d.Sigmas[i]*d.Sigmas[i] + j2 })
	return ev
}

// removeOffsets finishes an evaluation whose Offsets hold each instrument's weighted sum of y − model and sw
// the sums of the weights: it makes the offsets weighted means, takes them off the residuals and adds up the
// RMS, χ² and lnL with v(i) the variance of point i.
func (ev *Eval) removeOffsets(d *Data, sw []float64, v func(i int) float64) {
	for k := range ev.Offsets {
		ev.Offsets[k] /= sw[k]
	}
	ss := 0.0
	for i := range ev.Residuals {
		r := ev.Residuals[i] - ev.Offsets[d.Inst[i]]
		ev.Residuals[i] = r
		vi := v(i)
		ss += r * r
		ev.Chi2 += r * r / vi
		ev.LnL -= 0.5 * (r*r/vi + math.Log(2*math.Pi*vi))
	}
	ev.RMS = math.Sqrt(ss / float64(len(ev.Residuals)))
}

// BIC returns the Bayesian information criterion −2 lnL + k ln N.
func BIC(lnL float64, k, n int) float64 { return -2*lnL + float64(k)*math.Log(float64(n)) }

// NumParams returns the parameter count the Stargazer gate charges a model: 5 per planet plus one offset per
// instrument (a fitted jitter is not counted, as in the original code).
func NumParams(nPlanets, nInstruments int) int { return 5*nPlanets + nInstruments }
