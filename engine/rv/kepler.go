package rv

import "math"

// Physical constants of the semi-amplitude relation and of the N-body stand-in.
const (
	// KConstMS is the semi-amplitude of a 1 M_J planet on a circular 1-year orbit around a 1 M☉ star seen
	// edge-on, in m/s (the 28.4329 of Cumming et al. 1999 and of the Stargazer code).
	KConstMS = 28.4329
	// YearDays is the Julian year in days used by the semi-amplitude relation.
	YearDays = 365.25
	// MJupKg and MSunKg are the masses the original task generator used.
	MJupKg = 1.89813e27
	MSunKg = 1.98847e30
)

// Planet is one Keplerian orbit as the star sees it.
//
// The star's line-of-sight velocity is v(t) = K (cos(ν+ω) + e cos ω), where ν is the true anomaly at time t,
// reached from the mean anomaly M(t) = M0 + 2π (t − t_ref)/P through Kepler's equation M = E − e sin E.
type Planet struct {
	PeriodDays float64 // orbital period P, days
	KMS        float64 // semi-amplitude K, m/s
	E          float64 // eccentricity e, 0 ≤ e < 1
	OmegaRad   float64 // the star's argument of periastron ω, rad
	M0Rad      float64 // mean anomaly at the reference time t_ref, rad
}

// SemiAmplitude returns K in m/s for a planet of minimum mass mSinIMJup (Jupiter masses) on a period of
// periodDays around a star of mStarSun solar masses with eccentricity e:
//
//	K = 28.4329 · m sin i · M★^(−2/3) · (P / 365.25 d)^(−1/3) / √(1 − e²)   (planet mass neglected beside M★).
func SemiAmplitude(mSinIMJup, periodDays, e, mStarSun float64) float64 {
	return KConstMS * mSinIMJup * math.Pow(mStarSun, -2.0/3) * math.Pow(periodDays/YearDays, -1.0/3) / math.Sqrt(1-e*e)
}

// MSinI inverts SemiAmplitude: m sin i [M_J] = K √(1 − e²) M★^(2/3) (P / 365.25 d)^(1/3) / 28.4329.
func MSinI(kMS, periodDays, e, mStarSun float64) float64 {
	return kMS * math.Sqrt(1-e*e) * math.Pow(mStarSun, 2.0/3) * math.Pow(periodDays/YearDays, 1.0/3) / KConstMS
}

// SolveKepler returns the eccentric anomaly E in [0, 2π) with M = E − e sin E, for any mean anomaly M (rad)
// and 0 ≤ e < 1. It runs Newton's method from Danby's start E0 = M + 0.85 e sign(sin M), falling back to
// bisection whenever a Newton step leaves the bracket that holds the root, so it converges for e up to 0.999
// and beyond; the result is accurate to about 1e-14 rad.
func SolveKepler(M, e float64) float64 {
	E, _, _ := solveKeplerSC(M, e, -1)
	return E
}

// solveKeplerSC is SolveKepler returning sin E and cos E as well. A start E0 in [0, 2π) (a nearby solution, such as
// the one for the same time before a small change of the orbit) replaces Danby's start when it lies on the
// root's side of π; a negative E0 asks for Danby's. The Newton iteration evaluates them at each
// iterate; once a Newton step Δ falls below 1e-8 (Newton's next correction would be of order Δ², below the result's
// accuracy) it is applied to them by angle addition to second order (error |Δ|³/6), which saves the model a
// further sine and cosine per point.
func solveKeplerSC(M, e, E0 float64) (E, sinE, cosE float64) {
	M -= 2 * math.Pi * math.Floor(M/(2*math.Pi)) // faster than math.Mod; M in [0, 2π]
	if M >= 2*math.Pi {
		M = 0
	}
	if e == 0 {
		s, c := math.Sincos(M)
		return M, s, c
	}
	// Reduce to M in [0, π]; the root for M' = 2π − M is 2π − E (same cosine, opposite sine).
	flip := M > math.Pi
	if flip {
		M = 2*math.Pi - M
	}
	lo, hi := 0.0, math.Pi // f(E) = E − e sin E − M is increasing, f(0) ≤ 0 ≤ f(π)
	E = M + 0.85*e
	if E > math.Pi {
		E = math.Pi
	}
	if E0 >= 0 {
		if flip {
			E0 = 2*math.Pi - E0
		}
		if E0 > 0 && E0 < math.Pi {
			E = E0
		}
	}
	s, c := math.Sincos(E)
	for range 100 {
		f := E - e*s - M
		if f > 0 {
			hi = E
		} else {
			lo = E
		}
		if math.Abs(f) < 1e-15 {
			break
		}
		next := E - f/(1-e*c)
		newton := next > lo && next < hi
		if !newton {
			next = 0.5 * (lo + hi)
		}
		d := next - E
		E = next
		if newton && math.Abs(d) < 1e-8 {
			h := 0.5 * d * d
			s, c = s+c*d-s*h, c-s*d-c*h
			break
		}
		s, c = math.Sincos(E)
	}
	if flip {
		return 2*math.Pi - E, -s, c
	}
	return E, s, c
}

// AddRV adds the planet's velocity at times t (days) to dst (m/s), with mean anomaly M0Rad at tRef.
// dst and t must have the same length.
func (p Planet) AddRV(dst, t []float64, tRef float64) {
	if len(dst) != len(t) {
		panic("rv: AddRV: dst and t differ in length")
	}
	n := 2 * math.Pi / p.PeriodDays
	sw, cw := math.Sincos(p.OmegaRad)
	e := p.E
	sq := math.Sqrt(1 - e*e)
	ecw := e * cw
	for i, ti := range t {
		_, sE, cE := solveKeplerSC(p.M0Rad+n*(ti-tRef), e, -1)
		den := 1 - e*cE
		cosNu := (cE - e) / den
		sinNu := sq * sE / den
		dst[i] += p.KMS * (cosNu*cw - sinNu*sw + ecw)
	}
}

// ModelRV writes the summed velocity of planets at times t into dst: dst[i] = Σ_p v_p(t[i]) in m/s.
func ModelRV(dst, t []float64, tRef float64, planets []Planet) {
	for i := range dst {
		dst[i] = 0
	}
	for _, p := range planets {
		p.AddRV(dst, t, tRef)
	}
}

// M0FromLongitude returns the mean anomaly at t_ref from the mean longitude l, the node Ω and the argument of
// periastron ω: M0 = l − Ω − ω, wrapped to [0, 2π).
func M0FromLongitude(lRad, bigOmegaRad, omegaRad float64) float64 {
	return wrap(lRad - bigOmegaRad - omegaRad)
}

// M0FromPeriastron returns the mean anomaly at tRef of an orbit that passes periastron at tPeriDays:
// M0 = 2π (tRef − t_peri)/P, wrapped to [0, 2π).
func M0FromPeriastron(tPeriDays, periodDays, tRef float64) float64 {
	return wrap(2 * math.Pi * (tRef - tPeriDays) / periodDays)
}

// wrap returns x modulo 2π in [0, 2π).
func wrap(x float64) float64 {
	x = math.Mod(x, 2*math.Pi)
	if x < 0 {
		x += 2 * math.Pi
	}
	return x
}
