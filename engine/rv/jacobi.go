package rv

import "math"

// GMSunSI is G·M☉ in m³/s² with G = 6.674e-11 m³ kg⁻¹ s⁻² and M☉ = 1.98847e30 kg (the N-body code's units).
const GMSunSI = 6.674e-11 * MSunKg

const daySeconds = 86400.0

// Orbit3D is a planet on a fixed Keplerian orbit in three dimensions, for the Jacobi stand-in.
type Orbit3D struct {
	MassSun    float64 // planet's true mass, solar masses
	PeriodDays float64
	E          float64
	IncRad     float64 // inclination to the reference (xy) plane
	NodeRad    float64 // longitude of the ascending node Ω, measured from +x
	PomegaRad  float64 // longitude of periastron ϖ = Ω + ω
	LRad       float64 // mean longitude at t = 0
}

// JacobiStarVX returns the star's barycentric x velocity (m/s) at times t (days, from the epoch of the
// elements) for planets on non-interacting Jacobi Keplerian orbits, added in order around a star of mStarSun:
// planet k orbits the centre of mass of the star and planets 0..k−1 with G(η_{k−1} + m_k), η_k = M★ + Σ_{j≤k} m_j,
// and the star's barycentric velocity is −Σ_k (m_k/η_k) v′_k, with v′_k the Jacobi velocity of planet k. The
// orbital velocity in the perifocal frame is √(G M / (a(1−e²))) (−sin ν, e + cos ν, 0), rotated by Ω, i and
// ω = ϖ − Ω. It stands in for an N-body integration over the few hundred days of a task, where the planets'
// mutual perturbations are far below the noise.
func JacobiStarVX(dst, t []float64, mStarSun float64, planets []Orbit3D) {
	for i := range dst {
		dst[i] = 0
	}
	eta := mStarSun
	for _, p := range planets {
		gm := GMSunSI * (eta + p.MassSun)
		eta += p.MassSun
		Ps := p.PeriodDays * daySeconds
		a := math.Cbrt(gm * Ps * Ps / (4 * math.Pi * math.Pi))
		e := p.E
		vScale := math.Sqrt(gm / (a * (1 - e*e)))
		w := p.PomegaRad - p.NodeRad
		sO, cO := math.Sincos(p.NodeRad)
		sw, cw := math.Sincos(w)
		ci := math.Cos(p.IncRad)
		// First row of R_z(Ω) R_x(i) R_z(ω): the x components of the perifocal unit vectors.
		px := cO*cw - sO*sw*ci
		qx := -cO*sw - sO*cw*ci
		M0 := p.LRad - p.PomegaRad
		n := 2 * math.Pi / p.PeriodDays
		sq := math.Sqrt(1 - e*e)
		f := p.MassSun / eta
		for i, ti := range t {
			E := SolveKepler(M0+n*ti, e)
			sE, cE := math.Sincos(E)
			den := 1 - e*cE
			cosNu := (cE - e) / den
			sinNu := sq * sE / den
			vx := vScale * (-sinNu*px + (e+cosNu)*qx)
			dst[i] -= f * vx
		}
	}
}

// StargazerOrbit maps a Stargazer planet (m sin i in M_J, P, e, ω, Ω, l, i as stored in a task) to the orbit its
// original N-body generator actually integrated. That generator passed the Pal coordinates h = e sin ω,
// k = e cos ω, ix = sin(i/2) sin Ω, iy = sin(i/2) cos Ω, l, whereas Pal's definitions are ix = 2 sin(i′/2) cos Ω′,
// iy = 2 sin(i′/2) sin Ω′ and h, k built on the longitude of periastron ϖ. So the integrated orbit has
// ϖ = ω, inclination i′ = 2 asin(sin(i/2)/2), node Ω′ = π/2 − Ω and mean longitude l at t = 0, with the true mass
// m sin i / sin i.
func StargazerOrbit(mSinIMJup, periodDays, e, omegaRad, bigOmegaRad, lRad, incRad float64) Orbit3D {
	mTrue := mSinIMJup / math.Sin(incRad)
	return Orbit3D{
		MassSun:    mTrue * MJupKg / MSunKg,
		PeriodDays: periodDays,
		E:          e,
		IncRad:     2 * math.Asin(math.Sin(incRad/2)/2),
		NodeRad:    math.Pi/2 - bigOmegaRad,
		PomegaRad:  omegaRad,
		LRad:       lRad,
	}
}
