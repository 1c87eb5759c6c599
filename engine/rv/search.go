package rv

import (
	"math"
	"sort"
)

// SearchOptions steer Search. Zero values take the defaults noted.
type SearchOptions struct {
	MaxPlanets        int     // default 7
	PeakBranch        int     // periodogram peaks tried per added planet (default 4)
	MinPeriodDays     float64 // default MinSearchPeriodDays (0.2)
	MaxPeriodDays     float64 // default min(max(300, 1.5 · span), 5000)
	MinBICImprovement float64 // a planet is kept when BIC drops by more than this; default 6 ln N
	MaxFAP            float64 // and when its periodogram peak's false-alarm probability is below this (default 0.05)
	ESigma            float64 // when > 0, a half-Gaussian eccentricity prior of this width replaces Kipping's (the default)
	SamplesPerPeak    int     // default 10
	EccentricKeep     int     // candidates refitted from eccentric starts (default 3)
	NoCircularTest    bool    // skip the final circular-versus-eccentric comparison
	// RMSLimitFactor, when > 0, relaxes the acceptance rule as ClassicalOptions.RMSLimitFactor does: while the
	// current model has no planet or residuals whose RMS exceeds RMSLimitFactor × the median error, a planet is
	// kept whenever it lowers the score at all, whatever its false-alarm probability.
	RMSLimitFactor float64

	whiten *Whitener // set by SearchGP: fit and compare under this noise covariance
}

func (o *SearchOptions) defaults(d *Data) {
	c := ClassicalOptions{MaxPlanets: o.MaxPlanets, PeakBranch: o.PeakBranch, MinPeriodDays: o.MinPeriodDays,
		MaxPeriodDays: o.MaxPeriodDays, MinBICImprovement: o.MinBICImprovement, SamplesPerPeak: o.SamplesPerPeak}
	if c.SamplesPerPeak <= 0 {
		c.SamplesPerPeak = 10
	}
	c.defaults(d)
	o.MaxPlanets, o.PeakBranch, o.MinPeriodDays, o.MaxPeriodDays = c.MaxPlanets, c.PeakBranch, c.MinPeriodDays, c.MaxPeriodDays
	o.MinBICImprovement, o.SamplesPerPeak = c.MinBICImprovement, c.SamplesPerPeak
	if o.MaxFAP <= 0 {
		o.MaxFAP = 0.05
	}
	if o.ESigma < 0 {
		o.ESigma = 0
	}
	if o.EccentricKeep <= 0 {
		o.EccentricKeep = 3
	}
}

// Observing windows whose aliases Search tries: the sidereal day, the synodic month and the year (days).
var aliasWindowsDays = []float64{0.99727, 29.5306, 365.25}

// appendAliases appends to cands the aliases of the period top in the windows of aliasWindowsDays (a sidereal
// day, a synodic month, a year): the periods 1/(1/top ∓ 1/w) that are positive.
func appendAliases(cands []float64, top float64) []float64 {
	for _, w := range aliasWindowsDays {
		for _, sg := range []float64{-1, 1} {
			if f := 1/top + sg/w; f > 0 {
				cands = append(cands, 1/f)
			}
		}
	}
	return cands
}

// Search is the classical pipeline with better peak handling and model comparison. At each step it computes
// the GLS periodogram of the residuals and takes as candidates the PeakBranch strongest distinct peaks, the
// aliases of the strongest peak against the daily, monthly and yearly windows (1/P′ = |1/P ± 1/P_w|) and its
// first harmonic and subharmonic (2P, P/2: an eccentric orbit puts power at P/2). Every candidate is fitted
// together with the planets found so far from a circular start (weighted sinusoid fit); the EccentricKeep best
// are refitted from four eccentric starts (e = 0.35, ω = 0, π/2, π, 3π/2, the phase λ kept). Fits are
// maximum-a-posteriori under Kipping's (2013) eccentricity prior (or a half-Gaussian one of width ESigma, see
// FitOptions), and an orbit above MaxPriorE is kept only on EccentricEvidence (limitEccentric). The best
// candidate is kept only when the BIC drops by more than MinBICImprovement and the periodogram peak at its
// period has a false-alarm probability below MaxFAP (Zechmeister & Kürster 2009); the search then continues on
// the new residuals, up to MaxPlanets.
func Search(d *Data, opt SearchOptions) *FitResult {
	opt.defaults(d)
	current := NullFit(d)
	freq := FrequencyGrid(d.Span(), opt.MinPeriodDays, opt.MaxPeriodDays, opt.SamplesPerPeak)
	if len(freq) == 0 {
		return current
	}
	band := freq[len(freq)-1] - freq[0]
	power := make([]float64, len(freq))
	fo := FitOptions{MinPeriodDays: opt.MinPeriodDays, MaxPeriodDays: opt.MaxPeriodDays, ESigma: opt.ESigma, Kipping: opt.ESigma == 0, Whiten: opt.whiten}
	if opt.whiten != nil {
		current = nullFitGP(d, opt.whiten)
	}
	inBounds := func(p float64) bool { return p >= opt.MinPeriodDays && p <= opt.MaxPeriodDays }
	for range opt.MaxPlanets {
		power = GLS(power, d.Times, current.Residuals, d.Sigmas, freq)
		peaks := TopPeaks(freq, power, opt.PeakBranch, 0.08)
		if len(peaks) == 0 {
			break
		}
		cands := make([]float64, 0, 16)
		for _, pk := range peaks {
			cands = append(cands, pk.PeriodDays)
		}
		top := peaks[0].PeriodDays
		cands = appendAliases(cands, top)
		cands = append(cands, 2*top, top/2)
		cands = distinctPeriods(cands, inBounds, d.Span())

		type cand struct {
			fit  *FitResult
			obj  float64
			init []Planet
		}
		var tried []cand
		for _, p := range cands {
			init := append(append([]Planet(nil), current.Planets...), circularPlanet(d, current.Residuals, p))
			if fit, err := Fit(d, init, fo); err == nil {
				tried = append(tried, cand{fit, fit.Chi2 + PriorPenalty(fit.Planets, fo), init})
			}
		}
		if len(tried) == 0 {
			break
		}
		sort.Slice(tried, func(a, b int) bool { return tried[a].obj < tried[b].obj })
		best := tried[0]
		for _, c := range tried[:min(len(tried), opt.EccentricKeep)] {
			last := c.init[len(c.init)-1]
			lam := last.M0Rad + last.OmegaRad
			for _, w := range []float64{0, math.Pi / 2, math.Pi, 3 * math.Pi / 2} {
				init := append([]Planet(nil), c.init...)
				init[len(init)-1] = Planet{PeriodDays: c.fit.Planets[len(init)-1].PeriodDays, KMS: last.KMS, E: 0.35, OmegaRad: w, M0Rad: wrap(lam - w)}
				if fit, err := Fit(d, init, fo); err == nil {
					if obj := fit.Chi2 + PriorPenalty(fit.Planets, fo); obj < best.obj {
						best = cand{fit, obj, init}
					}
				}
			}
		}
		newP := best.fit.Planets[len(best.fit.Planets)-1].PeriodDays
		fap := FAP(powerAt(freq, power, 1/newP), d.Len(), d.Span(), band)
		if opt.whiten != nil {
			fap = 0 // the white-noise FAP means little under correlated noise; the GP likelihood decides
		}
		need, maxFAP := opt.MinBICImprovement, opt.MaxFAP
		if failsGate(d, current, opt.RMSLimitFactor) {
			need, maxFAP = 0, 1
		}
		if score(d, current)-score(d, best.fit) <= need || fap > maxFAP {
			break
		}
		current = best.fit
	}
	current = limitEccentric(d, current, fo, func(f *FitResult) float64 { return score(d, f) + PriorPenalty(f.Planets, fo) })
	if !opt.NoCircularTest {
		current = preferCircular(d, current, fo)
	}
	return current
}

// preferCircular puts each planet in turn on a circular orbit and keeps that model when the χ² rises by less
// than 2 ln N, the BIC price of the two eccentricity parameters: a circular fit of a nearly circular orbit
// has a less noisy curve.
func preferCircular(d *Data, fit *FitResult, fo FitOptions) *FitResult {
	circ := make([]bool, len(fit.Planets))
	limit := 2 * math.Log(float64(d.Len()))
	base := fit.Chi2
	for j := range fit.Planets {
		circ[j] = true
		o := fo
		o.ESigma = 0
		o.Circular = append([]bool(nil), circ...)
		trial, err := Fit(d, fit.Planets, o)
		if err == nil && trial.Chi2-base < limit && (fo.Whiten == nil || 2*(fit.LnLGP-trial.LnLGP) < limit) {
			fit = trial
		} else {
			circ[j] = false
		}
	}
	return fit
}

// distinctPeriods keeps the in-bounds periods of ps, dropping any whose frequency lies within a quarter of a
// periodogram peak width (1/span) of one already kept.
func distinctPeriods(ps []float64, ok func(float64) bool, span float64) []float64 {
	var out []float64
	for _, p := range ps {
		if !ok(p) {
			continue
		}
		dup := false
		for _, q := range out {
			if math.Abs(1/p-1/q) < 0.25/span {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

// powerAt returns the largest periodogram power within half a grid step of f on either side of the nearest
// grid point (the peak a fitted period sits on).
func powerAt(freq, power []float64, f float64) float64 {
	i := sort.SearchFloat64s(freq, f)
	best := 0.0
	for j := i - 2; j <= i+1; j++ {
		if j >= 0 && j < len(power) {
			best = math.Max(best, power[j])
		}
	}
	return best
}

func eccPenalty(ps []Planet, sigma float64) float64 {
	if sigma <= 0 {
		return 0
	}
	s := 0.0
	for _, p := range ps {
		s += p.E * p.E
	}
	return s / (sigma * sigma)
}

// score is the BIC a search compares models by: the white-noise BIC with one jitter fitted (jitterBIC), or
// under a whitener −2 lnL_GP + (5·planets + instruments) ln N.
func score(d *Data, f *FitResult) float64 {
	if f.LnLGP != 0 {
		return BIC(f.LnLGP, NumParams(len(f.Planets), len(d.Instruments)), d.Len())
	}
	return jitterBIC(d, f)
}

func nullFitGP(d *Data, w *Whitener) *FitResult {
	f := NullFit(d)
	rw := append([]float64(nil), d.RVs...)
	w.whiten(rw)
	f.LnLGP = w.LnL(rw)
	return f
}

// MaxGPPoints bounds the series SearchGP models with a Gaussian process (the covariance factorisation costs
// N³/6 per hyperparameter trial); longer series are searched with white noise only.
const MaxGPPoints = 200

// SearchGP runs Search and then asks whether the residuals carry correlated (stellar-rotation) noise: it fits
// a RotationGP (Q0 = 1, dQ = 0.3, f = 0.5) plus jitter to the residuals of the white-noise model by maximum
// likelihood over a grid (rotation period 10–45 d, the generator's range; σ_gp from 0.1 to 3 times the median
// error; jitter 0–1.5 times it). When the GP raises lnL by more than ln N (a BIC charge for its two extra
// parameters) the whole search is run again with that covariance, so peaks caused by rotation are not taken
// for planets and the orbits are fitted under the right noise. It returns the chosen model and its GP (nil
// when white noise was kept).
func SearchGP(d *Data, opt SearchOptions) (*FitResult, *RotationGP) {
	white := Search(d, opt)
	if d.Len() > MaxGPPoints || d.Len() < 15 {
		return white, nil
	}
	model := make([]float64, d.Len())
	ModelRV(model, d.Times, d.TRef, white.Planets)
	sj := bestJitter(d, model)
	base := d.Evaluate(model, sj).LnL
	r := white.Residuals
	sig := d.MedianSigma()
	bestL := math.Inf(-1)
	var bestGP RotationGP
	var bestJ float64
	res := make([]float64, len(r))
	for _, p := range []float64{10, 12.5, 15.6, 19.5, 24.4, 30.5, 38, 45} {
		for _, a := range []float64{0.1, 0.2, 0.35, 0.6, 1, 1.7, 3} {
			for _, jf := range []float64{0, 0.5, 1, 1.5} {
				gp := RotationGP{SigmaMS: a * sig, PeriodDays: p, Q0: 1, DQ: 0.3, F: 0.5}
				w, err := NewWhitener(d, gp, jf*sig)
				if err != nil {
					continue
				}
				copy(res, d.RVs)
				for i := range res {
					res[i] -= model[i]
				}
				w.whiten(res)
				if l := w.LnL(res); l > bestL {
					bestL, bestGP, bestJ = l, gp, jf*sig
				}
			}
		}
	}
	if bestL-base <= math.Log(float64(d.Len())) {
		return white, nil
	}
	w, err := NewWhitener(d, bestGP, bestJ)
	if err != nil {
		return white, nil
	}
	o := opt
	o.whiten = w
	return Search(d, o), &bestGP
}

// BestJitter returns the jitter s (m/s) that maximises the white-noise log-likelihood of planets on d.
func BestJitter(d *Data, planets []Planet) float64 {
	model := make([]float64, d.Len())
	ModelRV(model, d.Times, d.TRef, planets)
	return bestJitter(d, model)
}
