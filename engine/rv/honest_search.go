package rv

import (
	"math"
	"slices"
	"sort"
)

// HonestOptions steer Honest. Zero values take the defaults noted.
type HonestOptions struct {
	MaxPlanets     int     // default 7
	PeakBranch     int     // significant periodogram peaks tried per added planet (default 4)
	MinPeriodDays  float64 // default MinSearchPeriodDays (0.2)
	MaxPeriodDays  float64 // default min(span, 5000): a signal longer than the series is a trend, not an orbit
	MaxFAP         float64 // a planet's periodogram peak must have a false-alarm probability below this (default 0.001)
	SamplesPerPeak int     // periodogram oversampling (default 10)
	// MinDeviance is the drop in −2 lnL + the eccentricity penalty a planet must bring (default 5 ln N: the BIC
	// charge of its five parameters).
	MinDeviance float64
	// NoActivity leaves the stellar-activity term (Activity) out of the search.
	NoActivity bool
	// RotationMinDays and RotationMaxDays bound the rotation periods the activity term is tried at (defaults
	// 3 and 100: from young, active stars to slow rotators).
	RotationMinDays, RotationMaxDays float64
}

func (o *HonestOptions) defaults(d *Data) {
	if o.MaxPlanets <= 0 {
		o.MaxPlanets = 7
	}
	if o.PeakBranch <= 0 {
		o.PeakBranch = 4
	}
	if o.MinPeriodDays <= 0 {
		o.MinPeriodDays = MinSearchPeriodDays
	}
	if o.RotationMinDays <= 0 {
		o.RotationMinDays = 3
	}
	if o.RotationMaxDays <= 0 {
		o.RotationMaxDays = 100
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
	Activity       bool    `json:"activity,omitempty"` // the step added the stellar-activity term at PeriodDays
	Reason         string  `json:"reason"`
}

// HonestResult is the outcome of Honest: the model (Planets, InstJitter, Eval with per-instrument offsets) and
// the steps of the search.
type HonestResult struct {
	*FitResult
	Steps []HonestStep
	// Activity is the stellar-rotation term the search fitted, nil when the residuals did not ask for one;
	// FitResult's offsets, residuals and likelihood are then those of the data less it.
	Activity *Activity
}

// Honest is a planet search for real multi-instrument series that reports only what the data support. The
// likelihood has one offset and one jitter per instrument (fitted by maximum likelihood, alternating with the
// orbits; on a sparse series held at the quoted errors or above), and every fit carries Kipping's (2013)
// Beta(0.867, 3.03) eccentricity prior as a penalty, so a weak planet does not run to e → 1. Each step
// computes the GLS periodogram of the residuals, weighted by 1/(σ² + s²) with the current jitters, over
// MinPeriodDays–MaxPeriodDays (0.2 d to the span by default). The search stops unless its strongest peak has
// a false-alarm probability below MaxFAP (Zechmeister & Kürster 2009 with M = span × bandwidth independent
// frequencies: the whole band searched is paid for; and EmpiricalFAP, which charges for correlated noise).
// Otherwise every peak with a FAP below MaxFAP (up to PeakBranch) and the daily, monthly and yearly aliases of
// each are fitted together with the planets found so far, from a circular start and, for the two best, four
// eccentric ones; the best by −2 lnL + penalty is added when it lowers that by more than MinDeviance (an
// orbit above MaxPriorE only on EccentricEvidence, limitEccentric).
//
// Unless NoActivity is set, each step until one is found also tries the stellar-activity term (Activity: a
// sinusoid and its harmonic with drifting amplitudes) at the residual peaks between RotationMinDays and
// RotationMaxDays and at twice their periods (the harmonic is often the stronger); it is taken instead of a
// planet when its drop in −2 lnL + penalty, less ln N for each of its parameters, beats the planet's drop less
// MinDeviance and that of two planets at the rotation period and half of it (pairGain). Later steps search the data less the activity, refitted after each planet. A series with no
// significant peak gives no planet: that is a valid answer.
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
	lnN := math.Log(float64(d.Len()))
	data := d // the data less the activity term, once there is one
	for step := 0; len(cur.Planets) < opt.MaxPlanets && step <= opt.MaxPlanets; step++ {
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
				cands = appendAliases(append(cands, pk.PeriodDays), pk.PeriodDays)
			}
		}
		cands = distinctPeriods(cands, func(p float64) bool { return p >= opt.MinPeriodDays && p <= opt.MaxPeriodDays }, d.Span())
		best := honestCandidates(data, cur, cands, fo)
		planetGain := math.Inf(-1)
		if best != nil {
			planetGain = honestObjective(cur) - honestObjective(best) - opt.MinDeviance
		}
		if res.Activity == nil && !opt.NoActivity {
			a, fitA := honestActivity(d, cur, freq, power, opt, fo)
			gain := math.Inf(-1)
			if fitA != nil {
				gain = honestObjective(cur) - honestObjective(fitA) - float64(a.Params())*lnN
			}
			if gain > 0 && gain > planetGain && gain > pairGain(d, cur, a.PeriodDays, fo, opt.MinDeviance) {
				res.Activity, data, cur = a, withoutActivity(d, a), fitA
				st.Activity, st.PeriodDays, st.DevianceGain, st.Reason = true, a.PeriodDays, gain+float64(a.Params())*lnN, "stellar activity"
				res.Steps = append(res.Steps, st)
				continue
			}
		}
		if best == nil {
			st.Reason = "no candidate fit converged"
			res.Steps = append(res.Steps, st)
			break
		}
		st.PeriodDays = best.Planets[len(best.Planets)-1].PeriodDays
		st.DevianceGain = planetGain + opt.MinDeviance
		if planetGain <= 0 {
			st.Reason = "the best orbit does not improve the fit enough"
			res.Steps = append(res.Steps, st)
			break
		}
		st.Added, st.Reason = true, "significant"
		res.Steps = append(res.Steps, st)
		cur = best
		if res.Activity != nil {
			res.Activity, data, cur = refreshActivity(d, res.Activity, cur, fo)
		}
	}
	res.FitResult = cur
	return res
}

// honestActivity fits the activity term at the residual periodogram's peaks between RotationMinDays and
// RotationMaxDays and at twice their periods, each with cur's planets refitted to the data less it, and
// returns the best by honestObjective (nil, nil when none could be fitted).
func honestActivity(d *Data, cur *FitResult, freq, power []float64, opt HonestOptions, fo FitOptions) (*Activity, *FitResult) {
	var periods []float64
	for _, pk := range TopPeaks(freq, power, 12, 0.08) {
		for _, p := range []float64{pk.PeriodDays, 2 * pk.PeriodDays} {
			if p >= opt.RotationMinDays && p <= opt.RotationMaxDays && len(periods) < 6 {
				periods = append(periods, p)
			}
		}
	}
	sig := effectiveSigmas(d, cur.InstJitter)
	var bestA *Activity
	var bestFit *FitResult
	for _, p := range distinctPeriods(periods, func(float64) bool { return true }, d.Span()) {
		a := fitActivity(d, cur.Residuals, sig, p)
		if a == nil {
			continue
		}
		dd := withoutActivity(d, a)
		f := honestNull(dd)
		if len(cur.Planets) > 0 {
			o := fo
			o.InstJitter = slices.Clone(cur.InstJitter)
			var err error
			if f, err = Fit(dd, cur.Planets, o); err != nil {
				continue
			}
		}
		if bestFit == nil || honestObjective(f) < honestObjective(bestFit) {
			bestA, bestFit = a, f
		}
	}
	return bestA, bestFit
}

// pairGain is what two planets at the activity term's period and half of it would bring instead: the drop in
// honestObjective from cur when they are fitted together with cur's planets (circular starts), less
// MinDeviance for each. A rotation signal and its harmonic look like a 2:1 pair of planets (GJ 876's 61 d
// and 30 d planets fit the activity term well, their resonant interaction passing for spot evolution), so the
// term is taken only when it explains the data better than such a pair, not only better than one planet.
func pairGain(d *Data, cur *FitResult, periodDays float64, fo FitOptions, minDeviance float64) float64 {
	fo.InstJitter = slices.Clone(cur.InstJitter)
	r := cur.Residuals
	init := append(slices.Clone(cur.Planets), circularPlanet(d, r, periodDays), circularPlanet(d, r, periodDays/2))
	f, err := Fit(d, init, fo)
	if err != nil {
		return math.Inf(-1)
	}
	return honestObjective(cur) - honestObjective(f) - 2*minDeviance
}

// refreshActivity refits the activity term a (its period kept) to the data less cur's planets, then cur's
// planets to the data less the new term, and returns the term, the data less it and the fit.
func refreshActivity(d *Data, a *Activity, cur *FitResult, fo FitOptions) (*Activity, *Data, *FitResult) {
	model := make([]float64, d.Len())
	ModelRV(model, d.Times, d.TRef, cur.Planets)
	resid := d.EvaluateInst(model, cur.InstJitter).Residuals
	na := fitActivity(d, resid, effectiveSigmas(d, cur.InstJitter), a.PeriodDays)
	if na == nil {
		return a, withoutActivity(d, a), cur
	}
	dd := withoutActivity(d, na)
	fo.InstJitter = slices.Clone(cur.InstJitter)
	f, err := Fit(dd, cur.Planets, fo)
	if err != nil {
		return a, withoutActivity(d, a), cur
	}
	return na, dd, f
}

// honestNull is the model with no planet: per-instrument offsets and jitters of greatest likelihood.
func honestNull(d *Data) *FitResult {
	jit := bestInstJitter(d, nil)
	ev := d.EvaluateInst(nil, jit)
	return &FitResult{Eval: ev, InstJitter: jit, BIC: BIC(ev.LnL, NumParams(0, len(d.Instruments)), d.Len())}
}

// honestCandidates fits a new planet at each period of cands together with cur's planets: on a circular orbit
// from the weighted sinusoid fit, then with its eccentricity free from that fit and, for the two best, from
// four eccentric starts (e = 0.3 at ω = 0, π/2, π, 3π/2, the phase kept). A candidate's eccentric fit counts
// only when it beats its circular one by 2 ln N, the BIC price of the two eccentricity parameters, so that
// a peak and its aliases are compared on the same footing and a wrong alias does not win by bending its orbit.
// It returns the fit of least objective so charged (nil when none converged).
func honestCandidates(d *Data, cur *FitResult, cands []float64, fo FitOptions) *FitResult {
	fo.InstJitter = slices.Clone(cur.InstJitter)
	n := len(cur.Planets)
	eccCharge := 2 * math.Log(float64(d.Len()))
	type cand struct {
		fit *FitResult
		obj float64 // honestObjective, plus eccCharge for an eccentric new planet
	}
	var fits []cand
	consider := func(c *cand, f *FitResult, eccentric bool) {
		o := honestObjective(f)
		if eccentric {
			o += eccCharge
		}
		if c.fit == nil || o < c.obj {
			c.fit, c.obj = f, o
		}
	}
	circ := make([]bool, n+1)
	circ[n] = true
	for _, p := range cands {
		init := append(slices.Clone(cur.Planets), circularPlanet(d, cur.Residuals, p))
		oc := fo
		oc.Circular = circ
		var c cand
		if f, err := Fit(d, init, oc); err == nil {
			consider(&c, f, false)
			init = f.Planets
		}
		if f, err := Fit(d, init, fo); err == nil {
			consider(&c, f, true)
		}
		if c.fit != nil {
			fits = append(fits, c)
		}
	}
	if len(fits) == 0 {
		return nil
	}
	sort.SliceStable(fits, func(a, b int) bool { return fits[a].obj < fits[b].obj })
	for i := range fits[:min(2, len(fits))] {
		last := fits[i].fit.Planets[n]
		lam := last.M0Rad + last.OmegaRad
		for _, w := range []float64{0, math.Pi / 2, math.Pi, 3 * math.Pi / 2} {
			init := slices.Clone(fits[i].fit.Planets)
			init[n] = Planet{PeriodDays: last.PeriodDays, KMS: last.KMS, E: 0.3, OmegaRad: w, M0Rad: wrap(lam - w)}
			if f, err := Fit(d, init, fo); err == nil {
				consider(&fits[i], f, true)
			}
		}
	}
	best := fits[0]
	for _, c := range fits[1:] {
		if c.obj < best.obj {
			best = c
		}
	}
	return limitEccentric(d, best.fit, fo, honestObjective)
}
