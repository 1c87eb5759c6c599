package rvgate

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
)

// CalibratedSigmas is the calibrated gate's tolerance: a guessed planet matches a true one when its P, K and e
// each lie within this many of the truth's 1σ uncertainties (Uncertainties). For a fit whose errors follow the
// Fisher covariance, 3σ keeps a parameter 99.73 % of the time, so all three of each of up to four planets
// (12 parameters) stay within it about 97 % of the time.
const CalibratedSigmas = 3.0

// Uncertainty is the 1σ uncertainty of a true planet's period (days), semi-amplitude (m/s) and eccentricity
// that the data give at the truth (Uncertainties).
type Uncertainty struct {
	PeriodDays float64 `json:"sigma_p_days"`
	KMS        float64 `json:"sigma_k_ms"`
	E          float64 `json:"sigma_e"`
}

// Uncertainties returns the Cramér–Rao uncertainties of the planets' P, K and e on the times and errors of d
// with white jitter s: the inverse of the Fisher information
//
//	F = Σ_i ∇v_i ∇v_iᵀ / (σ_i² + s²)
//
// over every planet's (ln P, ln K, h = e cos ω, k = e sin ω, λ = M0 + ω) and one offset per instrument (the
// gate fits them), so each σ is marginalised over the other planets and the offsets. σ_P = P σ_lnP,
// σ_K = K σ_lnK and σ_e = √(uᵀ C_hk u) with u = (cos ω, sin ω). Near a circular orbit e is not Gaussian: a
// fitted e is |(h, k)|, biased upward by about the (h, k) error whatever ω (Lucy & Sweeney 1971), so when
// e < 3 √λ_max(C_hk) σ_e is floored at √λ_max(C_hk), the (h, k) error in its worst direction. When F is
// singular (a planet the data cannot constrain) the affected σ are +Inf.
func Uncertainties(d *rv.Data, planets []rv.Planet, jitterMS float64) []Uncertainty {
	n, np, ni := d.Len(), len(planets), len(d.Instruments)
	dim := 5*np + ni
	grads := make([][5][]float64, np)
	v := make([]float64, n)
	for j, p := range planets {
		for q := range 5 {
			grads[j][q] = make([]float64, n)
		}
		p.AddRVGrad(v, grads[j], d.Times, d.TRef)
	}
	fisher := mat.NewSymDense(dim, nil)
	row := make([]float64, dim)
	for i := range n {
		for j := range np {
			for q := range 5 {
				row[5*j+q] = grads[j][q][i]
			}
		}
		clear(row[5*np:])
		row[5*np+d.Inst[i]] = 1
		w := 1 / (d.Sigmas[i]*d.Sigmas[i] + jitterMS*jitterMS)
		for a := range dim {
			if row[a] == 0 {
				continue
			}
			for b := a; b < dim; b++ {
				fisher.SetSym(a, b, fisher.At(a, b)+w*row[a]*row[b])
			}
		}
	}
	out := make([]Uncertainty, np)
	// The parameters' scales differ by many orders (ln P's derivative grows with the span in periods), so F
	// is inverted as D F D with D = diag(F)^(−1/2), unit diagonal, and C = D (D F D)⁻¹ D.
	scale := make([]float64, dim)
	for a := range dim {
		scale[a] = 1 / math.Sqrt(fisher.At(a, a))
	}
	for a := range dim {
		for b := a; b < dim; b++ {
			fisher.SetSym(a, b, fisher.At(a, b)*scale[a]*scale[b])
		}
	}
	// A planet the data cannot constrain (a period far beyond the span) makes F singular to rounding: a ridge
	// of 1e-10 on the unit diagonal (a prior 10⁵ times wider than each parameter's own Fisher width) lets the
	// inverse exist; the σ it gives such a planet are large, as the data leave it free.
	var chol mat.Cholesky
	var cov mat.SymDense
	for ridge := 0.0; !chol.Factorize(fisher) || chol.InverseTo(&cov) != nil; ridge = math.Max(2*ridge, 1e-10) {
		if ridge > 1e-4 {
			for j := range out {
				out[j] = Uncertainty{math.Inf(1), math.Inf(1), math.Inf(1)}
			}
			return out
		}
		for a := range dim {
			fisher.SetSym(a, a, 1+ridge)
		}
	}
	for j, p := range planets {
		c := func(a, b int) float64 { return cov.At(5*j+a, 5*j+b) * scale[5*j+a] * scale[5*j+b] }
		sw, cw := math.Sincos(p.OmegaRad)
		varE := cw*cw*c(2, 2) + 2*sw*cw*c(2, 3) + sw*sw*c(3, 3)
		// The larger eigenvalue of the 2×2 (h, k) covariance.
		mean, half := (c(2, 2)+c(3, 3))/2, (c(2, 2)-c(3, 3))/2
		worst := math.Sqrt(math.Max(0, mean+math.Hypot(half, c(2, 3))))
		sigE := math.Sqrt(math.Max(0, varE))
		if p.E < CalibratedSigmas*worst {
			sigE = math.Max(sigE, worst)
		}
		out[j] = Uncertainty{
			PeriodDays: p.PeriodDays * math.Sqrt(math.Max(0, c(0, 0))),
			KMS:        p.KMS * math.Sqrt(math.Max(0, c(1, 1))),
			E:          sigE,
		}
	}
	return out
}

// CalibratedJitter is the white jitter (m/s) the calibrated gate's uncertainties use for task: the larger of
// the generator's stated jitter and the jitter of greatest likelihood for the truth's residuals (rv.BestJitter),
// which takes in the correlated noise of the tasks that have it and the unmodelled scatter of real tasks.
func CalibratedJitter(task *stargazer.Task) float64 {
	return math.Max(task.Config.Noise.SigmaJitterMS, rv.BestJitter(task.Data(), task.TruthPlanets()))
}

// CalibratedDistance returns how far guess b lies from true planet a in units of a's uncertainties u: the
// largest of |ΔP|/σ_P, |ΔK|/σ_K and |Δe|/σ_e. b matches a when it is at most CalibratedSigmas.
func CalibratedDistance(a rv.Planet, u Uncertainty, b rv.Planet) float64 {
	return math.Max(math.Abs(b.PeriodDays-a.PeriodDays)/u.PeriodDays,
		math.Max(math.Abs(b.KMS-a.KMS)/u.KMS, math.Abs(b.E-a.E)/u.E))
}

// MatchCalibrated counts the true planets that a guess matches under the calibrated rule: the Hungarian
// assignment minimising the summed squares of the normalised differences (ΔP/σ_P)² + (ΔK/σ_K)² + (Δe/σ_e)²,
// then a pair counts when each of the three is within CalibratedSigmas (CalibratedDistance).
func MatchCalibrated(truth []rv.Planet, u []Uncertainty, guess []rv.Planet) int {
	if len(truth) == 0 || len(guess) == 0 {
		return 0
	}
	cost := make([][]float64, len(truth))
	for i, a := range truth {
		cost[i] = make([]float64, len(guess))
		for j, b := range guess {
			zp := (b.PeriodDays - a.PeriodDays) / u[i].PeriodDays
			zk := (b.KMS - a.KMS) / u[i].KMS
			ze := (b.E - a.E) / u[i].E
			c := zp*zp + zk*zk + ze*ze
			if math.IsNaN(c) || math.IsInf(c, 0) || c > 1e12 {
				c = 1e12
			}
			cost[i][j] = c
		}
	}
	matched := 0
	for i, j := range Assign(cost) {
		if j >= 0 && CalibratedDistance(truth[i], u[i], guess[j]) <= CalibratedSigmas {
			matched++
		}
	}
	return matched
}
