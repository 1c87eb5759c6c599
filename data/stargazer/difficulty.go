package stargazer

import (
	"math"

	"transitbench/engine/rv"
)

// DifficultyDetails are the terms of the original difficulty score.
type DifficultyDetails struct {
	NPlanets             int     `json:"n_planets"`
	SNRLike              float64 `json:"snr_like"`
	MinKMS               float64 `json:"minK_ms"`
	ResonancesDetected   int     `json:"resonances_detected"`
	CoverageInnerPeriods float64 `json:"coverage_inner_periods"`
	NObs                 int     `json:"n_obs"`
	GPUsed               bool    `json:"gp_used"`
	RawScore             int     `json:"raw_score"`
}

// ResonanceTolerance is the relative distance from 2:1, 3:2 or 5:3 within which adjacent periods count as
// near a resonance.
const ResonanceTolerance = 0.03

// Difficulty recomputes the original generator's difficulty of a configuration observed at times (days):
// the clamp to [1, 10] of the sum of
//
//	planets      min(4, n)
//	SNR          s = min K / (σ_white + σ_jitter): 0 if s > 5, 1 if s > 2, 2 if s > 1, else 3
//	resonances   adjacent period ratios within 3 % of 2:1, 3:2 or 5:3, at most 2
//	coverage     c = (max t − min t) / P_inner: 0 if c ≥ 3, 1 if c ≥ 2, else 2
//	observations N: 0 if N ≥ 80, 1 if N ≥ 50, 2 if N ≥ 30, else 3
//	red noise    without a GP 0; else a = σ_gp/σ_white: 1 if a < 0.5, 2 if a < 1, else 3
//
// with K from m sin i (rv.SemiAmplitude). Note the SNR denominator adds σ_white and σ_jitter linearly, as
// the original does.
func Difficulty(planets []TruthPlanet, mStarSun float64, noise Noise, times []float64) (int, DifficultyDetails) {
	n := len(planets)
	dd := DifficultyDetails{NPlanets: n, NObs: len(times), GPUsed: noise.GP.UseGP}
	score := min(4, n)
	dd.MinKMS = 0
	if n > 0 {
		dd.MinKMS = math.Inf(1)
		for _, p := range planets {
			dd.MinKMS = math.Min(dd.MinKMS, rv.SemiAmplitude(p.MSinIMJup, p.PDays, p.E, mStarSun))
		}
	}
	dd.SNRLike = dd.MinKMS / math.Max(1e-6, noise.SigmaWhiteMS+noise.SigmaJitterMS)
	switch s := dd.SNRLike; {
	case s > 5:
	case s > 2:
		score++
	case s > 1:
		score += 2
	default:
		score += 3
	}
	ps := sortedPeriods(planets)
	for i := 0; i+1 < len(ps); i++ {
		r := ps[i+1] / ps[i]
		for _, target := range []float64{2, 1.5, 5.0 / 3} {
			if math.Abs(r/target-1) < ResonanceTolerance {
				dd.ResonancesDetected++
				break
			}
		}
	}
	score += min(2, dd.ResonancesDetected)
	inner := 1.0
	if len(ps) > 0 {
		inner = ps[0]
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range times {
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	if len(times) == 0 {
		lo, hi = 0, 0
	}
	dd.CoverageInnerPeriods = (hi - lo) / inner
	switch c := dd.CoverageInnerPeriods; {
	case c >= 3:
	case c >= 2:
		score++
	default:
		score += 2
	}
	switch N := dd.NObs; {
	case N >= 80:
	case N >= 50:
		score++
	case N >= 30:
		score += 2
	default:
		score += 3
	}
	if noise.GP.UseGP {
		a := noise.GP.SigmaMS / math.Max(1e-6, noise.SigmaWhiteMS)
		switch {
		case a < 0.5:
			score++
		case a < 1:
			score += 2
		default:
			score += 3
		}
	}
	dd.RawScore = score
	return max(1, min(10, score)), dd
}

func sortedPeriods(planets []TruthPlanet) []float64 {
	ps := make([]float64, len(planets))
	for i, p := range planets {
		ps[i] = p.PDays
	}
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j] < ps[j-1]; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	return ps
}
