package sim

import (
	"math"
	"math/rand/v2"
	"sort"

	"transitbench/engine/lc"
)

// starNoise is a star's planet-free light curve: flux = 1 + the sum of its ingredients, and the per-cadence
// white-noise σ reported as flux_err. Each ingredient draws from its own stream.
type starNoise struct {
	flux  []float64
	sigma float64 // per-cadence white noise, relative flux

	spotPeriod float64 // rotation period, days (0 when the star shows no spot modulation)
	spotAmp    float64 // semi-amplitude of the spot modulation, relative flux
	rampSign   float64 // sign of the star's thermal ramps (+1 or −1)
}

// cadencesPer6h is the number of long cadences in 6 h.
const cadencesPer6h = 6.0 / 24 / lc.CadenceDays

// ouMeanVariance is the variance of the mean over a window T of a unit-variance Ornstein–Uhlenbeck process
// with time constant τ: 2(τ/T)² (T/τ − 1 + e^(−T/τ)).
func ouMeanVariance(tDays, tauDays float64) float64 {
	x := tDays / tauDays
	return 2 / (x * x) * (x - 1 + math.Exp(-x))
}

// newNoise builds the noise of the star. The white and red parts share the star's 6-h CDPP: a fraction f of its
// variance is red (σ_red² · V_OU(6 h, τ) = f · CDPP²), the rest white (σ_w² / N_6h = (1 − f) · CDPP²).
func newNoise(spec Spec, k *Knobs, cal *calendar, st star) *starNoise {
	nk := &k.Noise
	n := len(cal.time)
	t := cal.time
	nz := &starNoise{flux: make([]float64, n)}
	f := nz.flux

	// White and granulation-like red noise.
	r := stream(spec.Seed, "white-red")
	frac := uniform(r, nk.RedFraction.Lo, nk.RedFraction.Hi)
	tau := uniform(r, nk.RedTauDays.Lo, nk.RedTauDays.Hi)
	nz.sigma = st.cdpp6 * math.Sqrt(cadencesPer6h*(1-frac))
	sRed := st.cdpp6 * math.Sqrt(frac/ouMeanVariance(0.25, tau))
	red := 0.0
	for i := range n {
		if i == 0 || t[i]-t[i-1] > 0.5 {
			red = sRed * r.NormFloat64()
		} else {
			a := math.Exp(-(t[i] - t[i-1]) / tau)
			red = a*red + sRed*math.Sqrt(1-a*a)*r.NormFloat64()
		}
		f[i] = 1 + nz.sigma*r.NormFloat64() + red
	}

	nz.addSpots(stream(spec.Seed, "spots"), nk, t)
	if st.teff > nk.PulsatorTeff {
		addPulsations(stream(spec.Seed, "pulsations"), nk, t, f)
	}
	if st.teff < nk.FlareTeff {
		addFlares(stream(spec.Seed, "flares"), nk, t, f)
	}
	addQuarterTrends(stream(spec.Seed, "quarters"), nk, cal, f)
	nz.addRamps(stream(spec.Seed, "ramps"), nk, cal, f)
	addSPSD(stream(spec.Seed, "spsd"), nk, cal, f)
	addOutliers(stream(spec.Seed, "outliers"), nk, cal, nz.sigma, f)
	addRollingBands(stream(spec.Seed, "rolling-band"), nk, cal, f)
	return nz
}

// addSpots adds quasi-periodic rotational modulation to a share SpotProb of stars, with a log-normal rotation
// period P (clamped to SpotPeriodDays) and a log-uniform semi-amplitude A. The modulation is
// Re[c₁(t) e^(2πi t/P)] + Re[c₂(t) e^(4πi t/P)], where each slowly varying complex amplitude c(t) is a sum of
// J = 6 terms g_j e^(2πi ν_j t) with complex Gaussian g_j (rms A/√J for c₁, 0.3 A/√J for c₂) and frequency
// offsets ν_j ~ N(0, 1/(2πτ)): a smooth spot evolution whose coherence falls as e^(−Δt²/2τ²), τ = L·P with L
// drawn from SpotLifetimeRots. Each term is one sinusoid of frequency h/P + ν_j, so the sum is exact and cheap.
func (nz *starNoise) addSpots(r *rand.Rand, nk *NoiseKnobs, t []float64) {
	if r.Float64() >= nk.SpotProb {
		return
	}
	p := clamp(nk.SpotPeriodMedian*math.Pow(10, nk.SpotPeriodDex*r.NormFloat64()), nk.SpotPeriodDays.Lo, nk.SpotPeriodDays.Hi)
	amp := logUniform(r, nk.SpotAmp.Lo, nk.SpotAmp.Hi)
	tau := uniform(r, nk.SpotLifetimeRots.Lo, nk.SpotLifetimeRots.Hi) * p
	nz.spotPeriod, nz.spotAmp = p, amp
	const terms = 6
	type wave struct{ freq, re, im float64 }
	var waves []wave
	for h := 1; h <= 2; h++ {
		sd := amp / math.Sqrt(2*terms)
		if h == 2 {
			sd *= 0.3
		}
		for range terms {
			nu := r.NormFloat64() / (2 * math.Pi * tau)
			waves = append(waves, wave{float64(h)/p + nu, sd * r.NormFloat64(), sd * r.NormFloat64()})
		}
	}
	t0 := t[0]
	for i, ti := range t {
		x := 0.0
		for _, w := range waves {
			s, c := math.Sincos(2 * math.Pi * w.freq * (ti - t0))
			x += w.re*c - w.im*s
		}
		nz.flux[i] += x
	}
}

// addPulsations makes a share PulsatorProb of hot stars δ Scuti or γ Doradus pulsators: a sum of a few
// coherent sinusoidal modes with log-uniform periods and amplitudes.
func addPulsations(r *rand.Rand, nk *NoiseKnobs, t, f []float64) {
	if r.Float64() >= nk.PulsatorProb {
		return
	}
	band := nk.GammaDorDays
	if r.Float64() < nk.DeltaScutiProb {
		band = nk.DeltaScutiDays
	}
	modes := int(uniform(r, nk.PulsationModes.Lo, nk.PulsationModes.Hi+1))
	for range modes {
		p := logUniform(r, band.Lo, band.Hi)
		a := logUniform(r, nk.PulsationAmp.Lo, nk.PulsationAmp.Hi)
		ph := 2 * math.Pi * r.Float64()
		for i, ti := range t {
			f[i] += a * math.Sin(2*math.Pi*ti/p+ph)
		}
	}
}

// addFlares adds flares to cool stars: a Poisson process in time, each flare an instant rise to its peak A and
// an exponential decay A·e^(−(t−t₀)/τ), averaged over the cadence's exposure.
func addFlares(r *rand.Rand, nk *NoiseKnobs, t, f []float64) {
	rate := logUniform(r, nk.FlareRatePerDay.Lo, nk.FlareRatePerDay.Hi)
	span := t[len(t)-1] - t[0]
	for range poisson(r, rate*span) {
		t0 := t[0] + span*r.Float64()
		a := logUniform(r, nk.FlareAmp.Lo, nk.FlareAmp.Hi)
		tau := logUniform(r, nk.FlareDecayDays.Lo, nk.FlareDecayDays.Hi)
		i := sort.SearchFloat64s(t, t0-lc.CadenceDays/2)
		for ; i < len(t) && t[i]-t0 < 10*tau; i++ {
			// Mean of the decay over the exposure [t−Δ/2, t+Δ/2], clipped to start at t₀.
			lo := math.Max(t[i]-lc.CadenceDays/2, t0)
			hi := t[i] + lc.CadenceDays/2
			if hi <= lo {
				continue
			}
			f[i] += a * tau * (math.Exp(-(lo-t0)/tau) - math.Exp(-(hi-t0)/tau)) / lc.CadenceDays
		}
	}
}

// addQuarterTrends adds what PDC leaves of each quarter's systematics: an offset ~ N(0, QuarterOffset) and a
// slow trend a₁x + a₂(x² − ⅓) over the quarter (x ∈ [−1, 1]), |aᵢ| ≲ TrendAmp.
func addQuarterTrends(r *rand.Rand, nk *NoiseKnobs, cal *calendar, f []float64) {
	type poly struct{ off, a1, a2 float64 }
	ps := make([]poly, len(cal.quarters))
	for q := range ps {
		amp := logUniform(r, nk.TrendAmp.Lo, nk.TrendAmp.Hi)
		ps[q] = poly{nk.QuarterOffset * r.NormFloat64(), amp * uniform(r, -1, 1), amp * uniform(r, -1, 1)}
	}
	for i, ti := range cal.time {
		q := cal.quarter[i]
		iv := cal.quarters[q]
		x := 2*(ti-iv.Start)/(iv.End-iv.Start) - 1
		p := ps[q]
		f[i] += p.off + p.a1*x + p.a2*(x*x-1.0/3)
	}
}

// addRamps adds thermal settling after every gap: A·e^(−(t−t_r)/τ) from the time t_r data resume, with the
// star's own sign and a size A that varies between events.
func (nz *starNoise) addRamps(r *rand.Rand, nk *NoiseKnobs, cal *calendar, f []float64) {
	amp := logUniform(r, nk.RampAmp.Lo, nk.RampAmp.Hi)
	tau := uniform(r, nk.RampTauDays.Lo, nk.RampTauDays.Hi)
	nz.rampSign = 1
	if r.Float64() < 0.5 {
		nz.rampSign = -1
	}
	for _, tr := range cal.resumes {
		a := nz.rampSign * amp * uniform(r, 1-nk.RampScatter, 1+nk.RampScatter)
		addRamp(cal.time, f, tr, a, tau)
	}
}

// addRamp adds a·e^(−(t−tr)/τ) for tr ≤ t < tr + 8τ.
func addRamp(t, f []float64, tr, a, tau float64) {
	for i := sort.SearchFloat64s(t, tr); i < len(t) && t[i] < tr+8*tau; i++ {
		f[i] += a * math.Exp(-(t[i]-tr)/tau)
	}
}

// addSPSD adds sudden pixel sensitivity dropouts at the calendar's flagged cadences: from the event to the end
// of its quarter the flux drops by D and recovers a share R of it, −D·(1 − R(1 − e^(−(t−t_e)/τ))).
func addSPSD(r *rand.Rand, nk *NoiseKnobs, cal *calendar, f []float64) {
	for _, i0 := range cal.spsd {
		d := logUniform(r, nk.SPSDDepth.Lo, nk.SPSDDepth.Hi)
		rec := uniform(r, nk.SPSDRecovery.Lo, nk.SPSDRecovery.Hi)
		tau := uniform(r, nk.SPSDTauDays.Lo, nk.SPSDTauDays.Hi)
		te, q := cal.time[i0], cal.quarter[i0]
		for i := i0; i < len(f) && cal.quarter[i] == q; i++ {
			f[i] -= d * (1 - rec*(1-math.Exp(-(cal.time[i]-te)/tau)))
		}
	}
}

// addOutliers adds the calendar's unflagged cosmic-ray hits (positive) and impulsive outliers (a share
// NegativeOutliers of them negative), of OutlierSigma times the white-noise σ.
func addOutliers(r *rand.Rand, nk *NoiseKnobs, cal *calendar, sigma float64, f []float64) {
	for _, i := range cal.outliers {
		a := logUniform(r, nk.OutlierSigma.Lo, nk.OutlierSigma.Hi) * sigma
		if cal.quality[i]&lc.QImpulsiveOutlier != 0 && r.Float64() < nk.NegativeOutliers {
			a = -a
		}
		f[i] += a
	}
}

// addRollingBands adds a sinusoidal ripple A·sin(2πt/P + φ) inside each rolling-band episode.
func addRollingBands(r *rand.Rand, nk *NoiseKnobs, cal *calendar, f []float64) {
	for _, b := range cal.bands {
		a := logUniform(r, nk.RollingBandAmp.Lo, nk.RollingBandAmp.Hi)
		p := uniform(r, nk.RollingBandDays.Lo, nk.RollingBandDays.Hi)
		ph := 2 * math.Pi * r.Float64()
		for i := sort.SearchFloat64s(cal.time, b.Start); i < len(f) && cal.time[i] < b.End; i++ {
			f[i] += a * math.Sin(2*math.Pi*cal.time[i]/p+ph)
		}
	}
}
