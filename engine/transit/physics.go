package transit

import "math"

// Physical constants (IAU 2015 Resolution B3 nominal values).
const (
	GMSun         = 1.3271244e20 // solar mass parameter G·M☉, m³ s⁻²
	RSunMeters    = 6.957e8      // nominal solar radius R☉, m
	secondsPerDay = 86400.0
)

// ARs returns the semi-major axis in stellar radii of a circular orbit of the given period (days) around a
// star of the given mass (M☉) and radius (R☉), from Kepler's third law with the planet's mass neglected:
//
//	a = (G M★ P² / 4π²)^{1/3},   ARs = a / R★.
//
// The Earth's orbit (P = 365.25 d, M★ = R★ = 1) gives 215.0. It returns NaN for non-positive arguments.
func ARs(periodDays, massMsun, radiusRsun float64) float64 {
	if !(periodDays > 0 && massMsun > 0 && radiusRsun > 0) {
		return math.NaN()
	}
	pSec := periodDays * secondsPerDay
	a := math.Cbrt(GMSun * massMsun * pSec * pSec / (4 * math.Pi * math.Pi))
	return a / (radiusRsun * RSunMeters)
}

// DurationT14 returns the time in days between first and fourth contact of a transit on a circular orbit
// (Seager & Mallén-Ornelas 2003, eq. 3; Winn 2010, eq. 14):
//
//	T14 = (P/π) · asin( √((1+k)² − b²) / (aRs · sin i) ),   sin i = √(1 − (b/aRs)²),
//
// with k = Rp/R★ and b the impact parameter. It is 0 when b ≥ 1 + k (no transit) and P/2 when the asin
// argument exceeds 1 (a companion so close that it covers the star during half the orbit).
func DurationT14(periodDays, aRs, rpRs, b float64) float64 {
	return Params{PeriodDays: periodDays, ARs: aRs, RpRs: rpRs, B: math.Abs(b)}.DurationDays()
}

// DurationT23 returns the time in days between second and third contact (the flat bottom),
//
//	T23 = (P/π) · asin( √((1−k)² − b²) / (aRs · sin i) ),
//
// or 0 for a grazing transit (b ≥ 1 − k). T23/T14 near 1 is a box-shaped transit, near 0 a V shape.
func DurationT23(periodDays, aRs, rpRs, b float64) float64 {
	b = math.Abs(b)
	if !(periodDays > 0) || aRs <= b || b >= 1-rpRs {
		return 0
	}
	s2 := ((1-rpRs)*(1-rpRs) - b*b) / ((aRs - b) * (aRs + b))
	if s2 >= 1 {
		return periodDays / 2
	}
	return periodDays / math.Pi * math.Asin(math.Sqrt(s2))
}

// Inclination returns the orbital inclination in radians for impact parameter b on an orbit of aRs stellar
// radii: i = acos(b / aRs). It is NaN when b > aRs.
func Inclination(aRs, b float64) float64 { return math.Acos(b / aRs) }

// StellarDensity returns the mean stellar density in g cm⁻³ implied by a circular orbit of period P (days)
// and scaled semi-major axis aRs (Seager & Mallén-Ornelas 2003, eq. 9, planet mass neglected):
//
//	ρ★ = 3π aRs³ / (G P²).
//
// The Sun's density, 1.41 g cm⁻³, follows from ARs(365.25, 1, 1).
func StellarDensity(periodDays, aRs float64) float64 {
	const gSI = 6.6743e-11 // CODATA 2018, m³ kg⁻¹ s⁻²
	pSec := periodDays * secondsPerDay
	rhoSI := 3 * math.Pi * aRs * aRs * aRs / (gSI * pSec * pSec) // kg m⁻³
	return rhoSI / 1000
}
