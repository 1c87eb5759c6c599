package transit

import (
	"math"
)

// Binary describes an eclipsing binary on a circular orbit: star 1 (the primary, radius R1) and star 2
// (radius k·R1). Lengths are in units of R1, times in days. The sky separation of the centres is the planet's,
// z = √(ARs² sin²φ + B² cos²φ) with φ = 2π(t − T0Days)/PeriodDays; at φ = 0 star 2 passes in front of star 1
// (the primary eclipse), at φ = π star 1 in front of star 2 (the secondary eclipse). The normalised flux is
//
//	F = (1 − ThirdLight) · [F1 + LightRatio·F2] / (1 + LightRatio) + ThirdLight,
//
// F1 = QuadraticFlux(z, K, U1, U2) while star 2 is in front, F2 = QuadraticFlux(z/K, 1/K, U1b, U2b) while star 1
// is, each 1 otherwise. LightRatio is L2/L1 in the band; ThirdLight the share of the total flux from unrelated
// stars in the aperture (a background binary's dilution). Reflection, beaming and ellipsoidal variations are
// not modelled.
type Binary struct {
	PeriodDays float64
	T0Days     float64 // mid-time of a primary eclipse
	K          float64 // R2 / R1
	ARs        float64 // semi-major axis / R1
	B          float64 // impact parameter in units of R1, ARs·cos i
	LightRatio float64 // L2 / L1
	ThirdLight float64 // share of the total flux not from the binary, in [0, 1)
	U1, U2     float64 // quadratic limb darkening of star 1
	U1b, U2b   float64 // quadratic limb darkening of star 2

	ExposureDays float64 // as Params.ExposureDays
	Supersample  int     // as Params.Supersample
}

// Flux writes the binary's flux at times t into dst, averaged over the exposure as Params.Flux does; cadences
// farther than the eclipse half-duration plus half an exposure from both conjunctions are 1 without
// evaluating the model. It panics if len(dst) != len(t).
func (b Binary) Flux(dst, t []float64) {
	if len(dst) != len(t) {
		panic("transit: Binary.Flux: len(dst) != len(t)")
	}
	// Both eclipses last the same on a circular orbit: contact at z = 1 + K.
	half := Params{PeriodDays: b.PeriodDays, RpRs: b.K, ARs: b.ARs, B: b.B}.halfContactDays()
	o, ok := newOrbit(half, b.Supersample, b.ExposureDays, b.PeriodDays, b.ARs, b.B, dst)
	if !ok {
		return
	}
	n, period, window, a2, b2 := o.n, o.period, o.window, o.a2, o.b2
	norm := (1 - b.ThirdLight) / (1 + b.LightRatio)
	for i, ti := range t {
		dt := ti - b.T0Days
		dt -= period * math.Floor(dt/period+0.5) // from the nearest primary eclipse, in [−P/2, P/2)
		ds := math.Abs(dt) - period/2            // from the nearest secondary, ≤ 0
		if !(math.Abs(dt) <= window || -ds <= window) {
			dst[i] = 1
			continue
		}
		var sum float64
		for j := range n {
			sin, cos := o.phase(dt, j)
			z := math.Sqrt(a2*sin*sin + b2*cos*cos)
			f1, f2 := 1.0, 1.0
			if cos > 0 {
				f1 = QuadraticFlux(z, b.K, b.U1, b.U2)
			} else {
				f2 = QuadraticFlux(z/b.K, 1/b.K, b.U1b, b.U2b)
			}
			sum += (f1 + b.LightRatio*f2) * norm
		}
		dst[i] = sum/float64(n) + b.ThirdLight
	}
}
