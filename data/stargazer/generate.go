package stargazer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"transitbench/engine/rv"
)

// GeneratorVersion names the generator; it is written into each generated task's meta.
const GeneratorVersion = "transitbench-stargazer-1"

// Priors of the original generator (Stargazer's priors.py and task_factory.py).
var (
	multiplicityProbs = [4]float64{0.5, 0.3, 0.15, 0.05} // 1, 2, 3, 4 planets
	resonances        = [3]float64{2, 1.5, 5.0 / 3}
)

const (
	pMinDays, pMaxDays = 2.0, 300.0
	resonanceFraction  = 0.3  // chance that a further planet sits near a resonance with the previous one
	resonanceScatter   = 0.02 // ratio × N(1, 0.02)
	minPeriodRatio     = 1.3
	rejectRatio        = 1.1 // systems with adjacent periods closer than this are redrawn
	gpProbability      = 0.4
)

// Generate makes a new synthetic task from seed with the original generator's priors:
//
//   - n planets from {1, 2, 3, 4} with probabilities 0.5/0.3/0.15/0.05; M★ ~ U(0.7, 1.3) M☉;
//   - inner period log-uniform on [2, 300] d; each further planet with probability 0.3 near a 2:1, 3:2 or 5:3
//     resonance with the previous one (ratio × N(1, 0.02), at least 1.3), else log-uniform on [1.3 P_prev, 300]
//     (widened to 1.5× its lower end when that passes 300); periods clamped to [2, 300] and sorted; the draw is
//     repeated (up to 8 times) while adjacent periods are closer than 1.1×;
//   - m sin i log-uniform on [0.01, 1] M_J; e ~ Beta(0.867, 3.03) capped at 0.9 (Kipping 2013); inclination
//     isotropic (cos i ~ U(0, 1), redrawn while sin i < 0.05); Ω, ω, l uniform on [0, 2π);
//   - 40–80 observations at sorted uniform times over a baseline of P_inner × U(2, 4);
//   - σ_white = 10^U(−0.3, 0.7) m/s (the quoted error), jitter |N(0, 0.5)| m/s, and with probability 0.4 a
//     quasi-periodic rotation Gaussian process (celerite2's RotationTerm: σ = 0.5·10^U(−1, 0.5) m/s, period
//     log-uniform on [10, 45] d, Q0 = 0.5 + 10^U(−1, 0.7), dQ = 10^U(−1.3, 0.3), f ~ U(0.1, 0.9)). As in the
//     original, the GP draw is made with the white variance on its diagonal, so GP tasks carry that white noise
//     twice.
//
// The RVs are the N-body signal of the configuration under the original element mapping (rv.NBodyStarVX,
// started on Jacobi orbits as the original's integrator was) plus noise, stored like the published files; loading applies the same conversion, which recovers
// the noise exactly (the returned task is unconverted: call Convert before using it in memory). The difficulty
// is recomputed with Difficulty. The random stream is this program's own
// (PCG), so a seed does not reproduce the original task of the same seed.
func Generate(seed uint64) *Task {
	r := rand.New(rand.NewPCG(seed, 0x57a29a2e))
	n := 1 + pickIndex(r, multiplicityProbs[:])
	mStar := uniform(r, 0.7, 1.3)
	var planets []TruthPlanet
	for attempt := range 8 {
		planets = samplePlanets(r, n)
		if !tooClose(planets) || attempt == 7 {
			break
		}
	}
	inner := planets[0].PDays
	nObs := 40 + r.IntN(41)
	baseline := inner * uniform(r, 2, 4)
	times := make([]float64, nObs)
	for i := range times {
		times[i] = uniform(r, 0, baseline)
	}
	sort.Float64s(times)
	noise := sampleNoise(r)

	rvs := make([]float64, nObs)
	if err := storedSignal(rvs, times, mStar, planets); err != nil {
		// The generator's periods and baseline (a few inner periods) need a few dozen steps.
		panic("stargazer: a generated configuration does not integrate: " + err.Error())
	}
	if noise.GP.UseGP {
		gp := drawRotationGP(r, times, noise.GP, noise.SigmaWhiteMS)
		for i := range rvs {
			rvs[i] += gp[i]
		}
	}
	sd := math.Hypot(noise.SigmaWhiteMS, noise.SigmaJitterMS)
	sig := make([]float64, nObs)
	inst := make([]string, nObs)
	for i := range rvs {
		rvs[i] += sd * r.NormFloat64()
		sig[i] = noise.SigmaWhiteMS
		inst[i] = "instA"
	}
	diff, dd := Difficulty(planets, mStar, noise, times)
	return &Task{
		TaskID:          fmt.Sprintf("gen%d_diff%d", seed, diff),
		TruthDifficulty: diff,
		Observations:    Observations{TimesDays: times, RVsMS: rvs, SigmasMS: sig, Instruments: inst},
		Config: Config{
			Engine:      "nbody_bulirsch_stoer",
			Instruments: []Instrument{{Label: "instA", SigmaWhiteMS: noise.SigmaWhiteMS, SigmaJitterMS: noise.SigmaJitterMS}},
			LOSAxis:     "x",
			Noise:       noise,
			Planets:     planets,
			Schedule:    &Schedule{Instruments: inst, TimesDays: times},
			Star:        Star{MStarSun: mStar},
		},
		DifficultyDetails: map[string]any{
			"n_planets": dd.NPlanets, "snr_like": dd.SNRLike, "minK_ms": dd.MinKMS, "resonances_detected": dd.ResonancesDetected,
			"coverage_inner_periods": dd.CoverageInnerPeriods, "n_obs": dd.NObs, "gp_used": dd.GPUsed, "raw_score": dd.RawScore,
		},
		Meta: map[string]any{"seed": seed, "generator": GeneratorVersion, "noise": noise},
	}
}

// ErrTierTooRare is returned when a tier's tasks do not turn up within the seed budget.
var ErrTierTooRare = errors.New("stargazer: too few tasks of the tier among the seeds tried")

// GenerateTier returns count new tasks of tier (easy, medium or hard) by generating seeds startSeed,
// startSeed+1, … and keeping those whose difficulty falls in the tier; it gives up after 200·count seeds.
func GenerateTier(tier string, count int, startSeed uint64) ([]*Task, error) {
	if tier == TierReal {
		return nil, errors.New("stargazer: real tasks cannot be generated; choose easy, medium or hard")
	}
	if err := ValidTier(tier); err != nil || tier == "" {
		return nil, fmt.Errorf("stargazer: cannot generate tier %q: use easy, medium or hard", tier)
	}
	var out []*Task
	for s := startSeed; len(out) < count; s++ {
		if s-startSeed > uint64(200*count) {
			return out, fmt.Errorf("%w: found %d %s tasks among seeds %d–%d", ErrTierTooRare, len(out), tier, startSeed, s)
		}
		t := Generate(s)
		if t.Tier() == tier {
			out = append(out, t)
		}
	}
	return out, nil
}

func samplePlanets(r *rand.Rand, n int) []TruthPlanet {
	ps := []float64{logUniform(r, pMinDays, pMaxDays)}
	for len(ps) < n {
		prev := ps[len(ps)-1]
		var p float64
		if r.Float64() < resonanceFraction {
			ratio := resonances[r.IntN(len(resonances))] * (1 + resonanceScatter*r.NormFloat64())
			p = prev * math.Max(ratio, minPeriodRatio)
		} else {
			lo := math.Max(prev*minPeriodRatio, pMinDays)
			hi := pMaxDays
			if lo >= hi {
				hi = 1.5 * lo
			}
			p = logUniform(r, lo, hi)
		}
		ps = append(ps, p)
	}
	for i := range ps {
		ps[i] = math.Min(math.Max(ps[i], pMinDays), pMaxDays)
	}
	sort.Float64s(ps)
	out := make([]TruthPlanet, n)
	for i, p := range ps {
		inc := math.Pi / 2
		for range 20 {
			x := math.Acos(r.Float64())
			if math.Abs(math.Sin(x)) >= 0.05 {
				inc = x
				break
			}
		}
		out[i] = TruthPlanet{
			PDays:        p,
			MSinIMJup:    logUniform(r, 0.01, 1),
			E:            math.Min(betaSample(r, 0.867, 3.03), 0.9),
			IncRad:       inc,
			OmegaNodeRad: 2 * math.Pi * r.Float64(),
			OmegaRad:     2 * math.Pi * r.Float64(),
			LRad:         2 * math.Pi * r.Float64(),
		}
	}
	return out
}

func tooClose(ps []TruthPlanet) bool {
	for i := 0; i+1 < len(ps); i++ {
		if ps[i+1].PDays/ps[i].PDays < rejectRatio {
			return true
		}
	}
	return false
}

func sampleNoise(r *rand.Rand) Noise {
	nz := Noise{
		SigmaWhiteMS:  math.Pow(10, uniform(r, -0.3, 0.7)),
		SigmaJitterMS: math.Abs(0.5 * r.NormFloat64()),
		GP:            GP{Q0: 1, DQ: 0.1, F: 0.5, PeriodDays: 25},
	}
	if r.Float64() < gpProbability {
		nz.GP = GP{
			UseGP:      true,
			SigmaMS:    0.5 * math.Pow(10, uniform(r, -1, 0.5)),
			PeriodDays: logUniform(r, 10, 45),
			Q0:         0.5 + math.Pow(10, uniform(r, -1, 0.7)),
			DQ:         math.Pow(10, uniform(r, -1.3, 0.3)),
			F:          uniform(r, 0.1, 0.9),
		}
	}
	return nz
}

// RotationKernel is celerite2's RotationTerm covariance of gp at lag tau (days); see rv.RotationGP.Kernel.
func RotationKernel(tau float64, gp GP) float64 {
	return rv.RotationGP{SigmaMS: gp.SigmaMS, PeriodDays: gp.PeriodDays, Q0: gp.Q0, DQ: gp.DQ, F: gp.F}.Kernel(tau)
}

// drawRotationGP draws one realisation of the rotation GP at times with σ_white² added on the diagonal, by
// Cholesky factorisation of the covariance.
func drawRotationGP(r *rand.Rand, times []float64, gp GP, sigmaWhite float64) []float64 {
	n := len(times)
	L := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := RotationKernel(times[i]-times[j], gp)
			if i == j {
				v += sigmaWhite*sigmaWhite + 1e-12
			}
			for k := range j {
				v -= L[i*n+k] * L[j*n+k]
			}
			if i == j {
				L[i*n+i] = math.Sqrt(math.Max(v, 1e-300))
			} else {
				L[i*n+j] = v / L[j*n+j]
			}
		}
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	out := make([]float64, n)
	for i := range n {
		for k := 0; k <= i; k++ {
			out[i] += L[i*n+k] * z[k]
		}
	}
	return out
}

func uniform(r *rand.Rand, a, b float64) float64 { return a + (b-a)*r.Float64() }

func logUniform(r *rand.Rand, a, b float64) float64 {
	return math.Pow(10, uniform(r, math.Log10(a), math.Log10(b)))
}

func pickIndex(r *rand.Rand, probs []float64) int {
	u := r.Float64()
	for i, p := range probs {
		if u < p {
			return i
		}
		u -= p
	}
	return len(probs) - 1
}

// gammaSample draws from Gamma(a, 1) by Marsaglia & Tsang (2000), with the boost Ga(a) = Ga(a+1)·U^{1/a}
// for a < 1.
func gammaSample(r *rand.Rand, a float64) float64 {
	if a < 1 {
		return gammaSample(r, a+1) * math.Pow(r.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// betaSample draws from Beta(a, b) as X/(X+Y) with X ~ Gamma(a), Y ~ Gamma(b).
func betaSample(r *rand.Rand, a, b float64) float64 {
	x := gammaSample(r, a)
	y := gammaSample(r, b)
	return x / (x + y)
}
