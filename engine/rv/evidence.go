package rv

import (
	"math"
	"slices"

	"transitbench/engine/stat"
)

// MinSearchPeriodDays is the shortest period every search covers by default: ultra-short-period planets orbit
// in 0.2–1 d (Sanchis-Ojeda et al. 2014 find them down to 4.2 h), and a series sampled once a night sees them
// only through their daily aliases, so the search must reach them to let the fit choose.
const MinSearchPeriodDays = 0.2

// MaxPriorE is the eccentricity above which a fitted orbit is kept only on evidence (see limitEccentric):
// Kipping's (2013) prior gives e > 0.8 a probability of 0.3 %, and a least-squares fit of a weak or sparsely
// sampled signal runs to the cap, where one or two points carry the whole planet.
const MaxPriorE = 0.8

// EccentricEvidence is the ΔBIC by which a model with an orbit at e > MaxPriorE must beat the same model with
// the eccentricities held at MaxPriorE or below (both have the same parameters, so it is the drop in
// −2 lnL + prior): 10, "very strong" on Kass & Raftery's (1995) scale.
const EccentricEvidence = 10

// SparsePoints is the size up to which a series counts as sparse: its jitters are held at or above the quoted
// errors (jitterFloor), because a handful of points can always be fitted below their errors by a model with
// enough parameters, and a jitter that follows them down turns that overfit into "evidence".
const SparsePoints = 40

// jitterFloor returns the smallest jitter (m/s) a fit of a series with errors sigmas and n points in all may
// take: the median quoted error when n ≤ SparsePoints, else 0.
func jitterFloor(n int, sigmas []float64) float64 {
	if n > SparsePoints || len(sigmas) == 0 {
		return 0
	}
	return stat.Median(slices.Clone(sigmas))
}

// dailyYearlyWindowsDays are the sampling windows whose aliases every search tries for each periodogram peak:
// the sidereal day (a series taken at night) and the year (a star observed in seasons).
var dailyYearlyWindowsDays = []float64{0.99727, 365.25}

// appendDailyYearlyAliases appends to cands the aliases 1/|1/p ± 1/w| of the period p in the daily and yearly
// windows (the positive ones).
func appendDailyYearlyAliases(cands []float64, p float64) []float64 {
	for _, w := range dailyYearlyWindowsDays {
		for _, sg := range []float64{-1, 1} {
			if f := 1/p + sg/w; f > 0 {
				cands = append(cands, 1/f)
			}
		}
	}
	return cands
}

// limitEccentric returns fit, or its refit with every eccentricity held at MaxPriorE or below when fit has
// an orbit above MaxPriorE and does not beat that prior-limited refit by more than EccentricEvidence in
// objective (both fits use fo and compare by obj, lower is better).
func limitEccentric(d *Data, fit *FitResult, fo FitOptions, obj func(*FitResult) float64) *FitResult {
	if fit == nil || !slices.ContainsFunc(fit.Planets, func(p Planet) bool { return p.E > MaxPriorE }) {
		return fit
	}
	init := slices.Clone(fit.Planets)
	for j := range init {
		init[j].E = math.Min(init[j].E, 0.5)
	}
	fo.MaxE = MaxPriorE
	capped, err := Fit(d, init, fo)
	if err != nil {
		return fit
	}
	if obj(capped)-obj(fit) > EccentricEvidence {
		return fit
	}
	return capped
}

// jitterBIC is the BIC of fit's white-noise model with one jitter fitted (at least jitterFloor): −2 lnL(s) +
// (5·planets + instruments + 1) ln N. It compares models by the scatter the data show rather than the errors
// they quote, so a series whose errors are too small (stellar jitter, an instrument's floor) does not turn
// every bump of its residuals into a planet.
func jitterBIC(d *Data, fit *FitResult) float64 {
	model := make([]float64, d.Len())
	ModelRV(model, d.Times, d.TRef, fit.Planets)
	s := bestJitter(d, model)
	return BIC(d.Evaluate(model, s).LnL, NumParams(len(fit.Planets), len(d.Instruments))+1, d.Len())
}

// EvidenceBIC is what the searches weigh a model by: the BIC with one jitter fitted (jitterBIC) plus Kipping's
// eccentricity penalty of each planet. Lower is better; two models whose EvidenceBIC differ by less than
// EccentricEvidence (10) are both supported by the data (Kass & Raftery 1995).
func EvidenceBIC(d *Data, planets []Planet) float64 {
	f := &FitResult{Planets: planets}
	return jitterBIC(d, f) + PriorPenalty(planets, FitOptions{Kipping: true})
}
