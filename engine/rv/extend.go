package rv

import (
	"slices"
	"sort"
)

// ExtendOptions steer Extend.
type ExtendOptions struct {
	Fit            FitOptions // how each candidate model is fitted (its period bounds also bound the periodogram)
	Candidates     int        // residual-periodogram peaks tried per added planet (default 5)
	SamplesPerPeak int        // periodogram oversampling (default 10)
	// Alternative picks, for the last planet added, the candidate of rank Alternative (0: the best by χ² plus
	// the fit's eccentricity-prior penalty) instead of the best, so that a caller can offer several models of
	// the same size that differ in their weakest planet. A rank beyond the candidates found takes the last.
	Alternative int
}

// Extend returns start with planets added one at a time from the periodogram of the residuals until it holds
// n, whatever the evidence for each: at every step the Candidates strongest distinct peaks of the GLS
// periodogram of the current residuals are each fitted, from a circular start, together with the planets so
// far, and the best is kept (see Alternative for the last). It is the "add the next most likely planet" move
// of a search that knows, or is testing, how many planets there are; the model comparison that decides
// whether a planet is real is the caller's. The result has fewer than n planets only when no peak can be
// fitted. start is not changed; a start with n or more planets is returned as it is.
func Extend(d *Data, start *FitResult, n int, opt ExtendOptions) *FitResult {
	if opt.Candidates <= 0 {
		opt.Candidates = 5
	}
	if opt.SamplesPerPeak <= 0 {
		opt.SamplesPerPeak = 10
	}
	c := ClassicalOptions{MinPeriodDays: opt.Fit.MinPeriodDays, MaxPeriodDays: opt.Fit.MaxPeriodDays}
	c.defaults(d)
	fo := opt.Fit
	fo.MinPeriodDays, fo.MaxPeriodDays = c.MinPeriodDays, c.MaxPeriodDays
	freq := FrequencyGrid(d.Span(), c.MinPeriodDays, c.MaxPeriodDays, opt.SamplesPerPeak)
	power := make([]float64, len(freq))
	cur := start
	for len(cur.Planets) < n {
		power = GLS(power, d.Times, cur.Residuals, d.Sigmas, freq)
		type cand struct {
			fit *FitResult
			obj float64
		}
		var fits []cand
		for _, pk := range TopPeaks(freq, power, opt.Candidates+opt.Alternative, c.MinLogSeparation) {
			init := append(append([]Planet(nil), cur.Planets...), circularPlanet(d, cur.Residuals, pk.PeriodDays))
			if f, err := Fit(d, init, fo); err == nil {
				fits = append(fits, cand{f, f.Chi2 + PriorPenalty(f.Planets, fo)})
			}
		}
		if len(fits) == 0 {
			break
		}
		sort.SliceStable(fits, func(a, b int) bool { return fits[a].obj < fits[b].obj })
		pick := 0
		if len(cur.Planets) == n-1 {
			pick = min(opt.Alternative, len(fits)-1)
		}
		cur = fits[pick].fit
	}
	return cur
}

// PriorPenalty is the eccentricity-prior term Fit adds to χ² under fo (0 without a prior).
func PriorPenalty(ps []Planet, fo FitOptions) float64 {
	s := eccPenalty(ps, fo.ESigma)
	if fo.Kipping {
		for _, p := range ps {
			s += kippingPenalty(p.E)
		}
	}
	return s
}

// DropWeakest returns fit without its planet of smallest semi-amplitude, the rest refitted under fo (the
// offsets-only model when fit has one planet or none).
func DropWeakest(d *Data, fit *FitResult, fo FitOptions) *FitResult {
	if len(fit.Planets) <= 1 {
		return NullFit(d)
	}
	w := 0
	for i, p := range fit.Planets {
		if p.KMS < fit.Planets[w].KMS {
			w = i
		}
	}
	init := append(append([]Planet(nil), fit.Planets[:w]...), fit.Planets[w+1:]...)
	g, err := Fit(d, init, fo)
	if err != nil {
		return NullFit(d)
	}
	return g
}

// AliasAlternatives returns fit's models with one planet moved to an alias of its period: for each planet, the
// daily and yearly aliases of its period (1/P′ = |1/P ± 1/P_w|) within fo's period bounds, each refitted under
// fo with that planet restarted on a circular orbit from the weighted sinusoid fit of the data less the other
// planets. The models a search's periodogram could not tell apart from fit, for a caller that weighs them.
func AliasAlternatives(d *Data, fit *FitResult, fo FitOptions) []*FitResult {
	var out []*FitResult
	model := make([]float64, d.Len())
	for j, p := range fit.Planets {
		others := slices.Delete(slices.Clone(fit.Planets), j, j+1)
		ModelRV(model, d.Times, d.TRef, others)
		resid := d.Evaluate(model, 0).Residuals
		for _, a := range appendDailyYearlyAliases(nil, p.PeriodDays) {
			if fo.MinPeriodDays > 0 && a < fo.MinPeriodDays || fo.MaxPeriodDays > 0 && a > fo.MaxPeriodDays {
				continue
			}
			init := slices.Clone(fit.Planets)
			init[j] = circularPlanet(d, resid, a)
			if f, err := Fit(d, init, fo); err == nil {
				out = append(out, f)
			}
		}
	}
	return out
}
