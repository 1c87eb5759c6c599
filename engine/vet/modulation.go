package vet

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"transitbench/engine/noise"
	"transitbench/engine/stat"
)

// Modulation is the out-of-eclipse brightness modulation at the orbital period, from a least-squares fit of
//
//	f(t) = c0 + a1 cos φ + b1 sin φ + a2 cos 2φ + b2 sin 2φ,   φ = 2π (t − t0) / P,
//
// to the cadences outside the primary and the phase-0.5 windows (each D/2 + one cadence wide). The second
// harmonic is the ellipsoidal variation of a close binary (two minima per orbit, at the conjunctions), the
// first the reflection (and Doppler beaming) of an irradiated companion. Amplitudes are √(a² + b²), fractions
// of the flux; each SNR divides by the coefficients' error, σ·√(2/n_eff), where σ is noise.SigmaD over
// windows of P/4 (at most 5 d) and n_eff the number of such windows the n cadences span: the noise on the
// signal's own time scale, measured on the fit's residuals, so red noise (spots, granulation) does not pass for
// a detection and the modulation itself does not inflate its error.
type Modulation struct {
	EllipsoidalAmp float64 `json:"ellipsoidal_amp"`
	EllipsoidalSNR float64 `json:"ellipsoidal_snr"`
	ReflectionAmp  float64 `json:"reflection_amp"`
	ReflectionSNR  float64 `json:"reflection_snr"`
}

// MeasureModulation fits the Modulation of a light curve at the candidate's period: t the times in days, flux
// the relative flux (NaN for invalid cadences). A detrended light curve has lost most of any modulation slower
// than the detrending window, so for binaries pass the flux before detrending (normalised by its median).
// The zero Modulation is returned when the fit is not possible (fewer than 20 cadences, bad period).
func MeasureModulation(t, flux []float64, periodDays, t0Days, durationDays float64) Modulation {
	var m Modulation
	if len(t) != len(flux) {
		panic("vet: time and flux differ in length")
	}
	if !(periodDays > 0) || !(durationDays >= 0) {
		return m
	}
	tv := make([]float64, 0, len(t)) // valid times
	for i := range t {
		if stat.Finite(t[i]) && stat.Finite(flux[i]) {
			tv = append(tv, t[i])
		}
	}
	if len(tv) < 20 {
		return m
	}
	c := noise.CadenceDays(tv)
	half := durationDays/2 + c
	// resid holds the flux of the fitted cadences (their residuals once the fit is known), NaN elsewhere.
	resid := make([]float64, len(flux))
	xs := make([]float64, 0, len(t))
	ys := make([]float64, 0, len(t))
	idx := make([]int, 0, len(t))
	for i, ti := range t {
		resid[i] = math.NaN()
		if !stat.Finite(ti) || !stat.Finite(flux[i]) {
			continue
		}
		ph := (ti - t0Days) / periodDays
		ph -= math.Floor(ph) // phase in [0, 1)
		dt := math.Min(ph, 1-ph) * periodDays
		if dt <= half || math.Abs(ph-0.5)*periodDays <= half {
			continue
		}
		xs = append(xs, 2*math.Pi*ph)
		ys = append(ys, flux[i])
		idx = append(idx, i)
	}
	n := len(xs)
	if n < 20 {
		return m
	}
	// Normal equations of the five-term harmonic model (upper triangle, mirrored), one Sincos per cadence.
	const k = 5
	var ata [k * k]float64
	var aty [k]float64
	rows := make([][k]float64, n)
	for i, x := range xs {
		s1, c1 := math.Sincos(x)
		r := [k]float64{1, c1, s1, c1*c1 - s1*s1, 2 * s1 * c1}
		rows[i] = r
		y := ys[i]
		for a := range k {
			aty[a] += r[a] * y
			for b := a; b < k; b++ {
				ata[a*k+b] += r[a] * r[b]
			}
		}
	}
	for a := range k {
		for b := range a {
			ata[a*k+b] = ata[b*k+a]
		}
	}
	var coef mat.VecDense
	if err := coef.SolveVec(mat.NewDense(k, k, ata[:]), mat.NewVecDense(k, aty[:])); err != nil {
		return m
	}
	for j, r := range rows {
		var model float64
		for a := range k {
			model += coef.AtVec(a) * r[a]
		}
		resid[idx[j]] = 1 + ys[j] - model
	}
	window := math.Min(periodDays/4, 5)
	sigma := noise.SigmaD(t, resid, window)
	if !(sigma > 0) {
		return m
	}
	nEff := float64(n) * c / window
	errCoef := sigma * math.Sqrt(2/nEff)
	m.ReflectionAmp = math.Hypot(coef.AtVec(1), coef.AtVec(2))
	m.EllipsoidalAmp = math.Hypot(coef.AtVec(3), coef.AtVec(4))
	m.ReflectionSNR = m.ReflectionAmp / errCoef
	m.EllipsoidalSNR = m.EllipsoidalAmp / errCoef
	return m
}
