package rv

import (
	"math"
	"slices"
)

// HonestOptions steer Honest. Zero values take the defaults noted.
type HonestOptions struct {
	MaxPlanets     int     // default 7
	PeakBranch     int     // significant periodogram peaks tried per added planet (default 4)
	MinPeriodDays  float64 // default 1.5
	MaxPeriodDays  float64 // default min(span, 5000): a signal longer than the series is a trend, not an orbit
	MaxFAP         float64 // a planet's periodogram peak must have a false-alarm probability below this (default 0.001)
	SamplesPerPeak int     // periodogram oversampling (default 10)
	// MinDeviance is the drop in −2 lnL + the eccentricity penalty a planet must bring (default 5 ln N: the BIC
	// charge of its five parameters).
	MinDeviance float64
}

func (o *HonestOptions) defaults(d *Data) {
	if o.MaxPlanets <= 0 {
		o.MaxPlanets = 7
	}
	if o.PeakBranch <= 0 {
		o.PeakBranch = 4
	}
	if o.MinPeriodDays <= 0 {
		o.MinPeriodDays = 1.5
	}
	if o.MaxPeriodDays <= 0 {
		o.MaxPeriodDays = math.Min(d.Span(), 5000)
	}
	if o.MaxFAP <= 0 {
		o.MaxFAP = 0.001
	}
	if o.SamplesPerPeak <= 0 {
		o.SamplesPerPeak = 10
	}
	if o.MinDeviance <= 0 {
		o.MinDeviance = 5 * math.Log(float64(d.Len()))
	}
}

// HonestStep records one step of Honest: the strongest peak of the residual periodogram, its false-alarm
// probability, the best candidate's period and deviance gain, and whether a planet was added.
type HonestStep struct {
	PeakPeriodDays float64 `json:"peak_period_days"`
	PeakPower      float64 `json:"peak_power"`
	PeakFAP        float64 `json:"peak_fap"`
	EmpiricalFAP   float64 `json:"empirical_fap"`
	PeriodDays     float64 `json:"period_days,omitempty"` // the best candidate's fitted period
	DevianceGain   float64 `json:"deviance_gain,omitempty"`
	Added          bool    `json:"added"`
	Reason         string  `json:"reason"`
}

// HonestResult is the outcome of Honest: the model (Planets, InstJitter, Eval with per-instrument offsets) and
// the steps of the search.
type HonestResult struct {
	*FitResult
	Steps []HonestStep
}

// Honest is a planet search for real multi-instrument series that reports only what the data support. The
// likelihood has one offset and one jitter per instrument (fitted by maximum likelihood, alternating with the
// orbits), and every fit carries Kipping's (2013) Beta(0.867, 3.03) eccentricity prior as a penalty, so a weak
// planet does not run to e → 1. Each step computes the GLS periodogram of the residuals, weighted by
// 1/(σ² + s²) with the current jitters, over MinPeriodDays–MaxPeriodDays. The search stops unless its
// strongest peak has a false-alarm probability below MaxFAP (Zechmeister & Kürster 2009 with M = span ×
// bandwidth independent frequencies: the whole band searched is paid for). Otherwise every peak with a FAP
// below MaxFAP (up to PeakBranch) and the daily, monthly and yearly aliases of the strongest are fitted together
// with the planets found so far, from a circular start and, for the two best, four eccentric ones; the best by
// −2 lnL + penalty is added when it lowers that by more than MinDeviance. A series with no significant peak
// gives no planet: that is a valid answer.
func Honest(d *Data, opt HonestOptions) *HonestResult {
	opt.defaults(d)
	cur := honestNull(d)
	res := &HonestResult{FitResult: cur}
	freq := FrequencyGrid(d.Span(), opt.MinPeriodDays, opt.MaxPeriodDays, opt.SamplesPerPeak)
	if len(freq) < 3 || d.Len() < 8 {
		return res
	}
	band := freq[len(freq)-1] - freq[0]
	fo := FitOptions{MinPeriodDays: opt.MinPeriodDays, MaxPeriodDays: opt.MaxPeriodDays, Kipping: true, FitInstJitter: true}
	power := make([]float64, len(freq))
	fap := func(p float64) float64 { return FAP(p, d.Len(), d.Span(), band) }
	for range opt.MaxPlanets {
		if d.Len() <= 5*(len(cur.Planets)+1)+2*len(d.Instruments) {
			break
		}
		power = GLS(power, d.Times, cur.Residuals, effectiveSigmas(d, cur.InstJitter), freq)
		peaks := TopPeaks(freq, power, opt.PeakBranch, 0.08)
		if len(peaks) == 0 {
			break
		}
		st := HonestStep{PeakPeriodDays: peaks[0].PeriodDays, PeakPower: peaks[0].Power, PeakFAP: fap(peaks[0].Power),
			EmpiricalFAP: EmpiricalFAP(power, opt.SamplesPerPeak)}
		if math.Max(st.PeakFAP, st.EmpiricalFAP) > opt.MaxFAP {
			st.Reason = "no significant peak"
			res.Steps = append(res.Steps, st)
			break
		}
		var cands []float64
		for _, pk := range peaks {
			if fap(pk.Power) <= opt.MaxFAP {
				cands = append(cands, pk.PeriodDays)
			}
		}
		cands = appendAliases(cands, peaks[0].PeriodDays)
		cands = distinctPeriods(cands, func(p float64) bool { return p >= opt.MinPeriodDays && p <= opt.MaxPeriodDays }, d.Span())
		best := honestCandidates(d, cur, cands, fo)
		if best == nil {
			st.Reason = "no candidate fit converged"
			res.Steps = append(res.Steps, st)
			break
		}
		st.PeriodDays = best.Planets[len(best.Planets)-1].PeriodDays
		st.DevianceGain = honestObjective(cur) - honestObjective(best)
		if st.DevianceGain <= opt.MinDeviance {
			st.Reason = "the best orbit does not improve the fit enough"
			res.Steps = append(res.Steps, st)
			break
		}
		st.Added, st.Reason = true, "significant"
		res.Steps = append(res.Steps, st)
		cur = best
	}
	res.FitResult = cur
	return res
}

// honestNull is the model with no planet: per-instrument offsets and jitters of greatest likelihood.
func honestNull(d *Data) *FitResult {
	jit := bestInstJitter(d, nil)
	ev := d.EvaluateInst(nil, jit)
	return &FitResult{Eval: ev, InstJitter: jit, BIC: BIC(ev.LnL, NumParams(0, len(d.Instruments)), d.Len())}
}

// honestCandidates fits a new planet at each period of cands together with cur's planets (circular start from
// the weighted sinusoid fit), refits the two best with the new planet started eccentric (e = 0.3 at ω = 0,
// π/2, π, 3π/2, the phase kept), and returns the fit of least honestObjective (nil when none converged).
func honestCandidates(d *Data, cur *FitResult, cands []float64, fo FitOptions) *FitResult {
	fo.InstJitter = slices.Clone(cur.InstJitter)
	var fits []*FitResult
	for _, p := range cands {
		init := append(slices.Clone(cur.Planets), circularPlanet(d, cur.Residuals, p))
		if f, err := Fit(d, init, fo); err == nil {
			fits = append(fits, f)
		}
	}
	if len(fits) == 0 {
		return nil
	}
	sortByObjective(fits)
	best := fits[0]
	n := len(cur.Planets)
	for _, c := range fits[:min(2, len(fits))] {
		last := c.Planets[n]
		lam := last.M0Rad + last.OmegaRad
		for _, w := range []float64{0, math.Pi / 2, math.Pi, 3 * math.Pi / 2} {
			init := slices.Clone(c.Planets)
			init[n] = Planet{PeriodDays: last.PeriodDays, KMS: last.KMS, E: 0.3, OmegaRad: w, M0Rad: wrap(lam - w)}
			if f, err := Fit(d, init, fo); err == nil && honestObjective(f) < honestObjective(best) {
				best = f
			}
		}
	}
	return best
}
