package transit

import "math"

// snapTol is the distance in stellar radii within which z is moved onto a case boundary of Mandel & Agol's
// table (z = 0, z = p, z = 1−p) or p onto 1/2. There the general expressions hold singular terms that cancel
// (a logarithmically divergent K(k) as k → 1, q/a as a → 0), and the boundary's closed form is both exact and
// stable. The flux is continuous with a bounded derivative in z, so the snap moves it by less than ~1e-10.
const snapTol = 1e-10

// QuadraticFlux returns the relative flux F ∈ [0, 1] of a star with the quadratic limb-darkening law
//
//	I(μ)/I(1) = 1 − u1 (1 − μ) − u2 (1 − μ)²,   μ = √(1 − r²),
//
// occulted by an opaque disk of radius p (in stellar radii) whose centre lies a projected distance z from the
// star's centre (Mandel & Agol 2002, ApJ 580, L171, section 4 and table 1, with the corrections of Eastman,
// Gaudi & Agol 2013). With c2 = u1 + 2u2, c4 = −u2 and Ω = 1 − u1/3 − u2/6,
//
//	F = 1 − [(1 − c2) λe + c2 (λd + ⅔ Θ(p − z)) − c4 ηd] / Ω,
//
// where λe is the fraction of a uniform disk that is covered and λd, ηd are the paper's functions, evaluated
// with complete elliptic integrals of the first, second and third kind (Bulirsch's algorithm, see cel). Every
// case of the table is handled: no overlap (z ≥ 1+p), the disk inside the star (z ≤ 1−p, including z = 0 and
// z = p), the limb crossing (|1−p| < z < 1+p), the boundaries z = p and z = 1−p, p = 1/2, and a companion
// larger than the star (p > 1, zero flux when z ≤ p−1). z is used as |z|; p ≤ 0 gives 1. The law must be
// physical (u1 + u2 ≤ 1, so that I ≥ 0 at the limb): the result is clamped to [0, 1] to remove the rounding
// residue near the contact points, which would also clip the brightening a negative intensity implies.
func QuadraticFlux(z, p, u1, u2 float64) float64 {
	lambdaE, lambdaD, etaD := occultation(math.Abs(z), p)
	switch {
	case lambdaE == 0:
		return 1
	case lambdaE == 1:
		return 0
	}
	omega := 1 - u1/3 - u2/6
	c2 := u1 + 2*u2
	deficit := (1-c2)*lambdaE + c2*lambdaD + u2*etaD
	// Near the contact points the deficit is a difference of nearly equal terms; clamp the rounding residue.
	return clamp(1-deficit/omega, 0, 1)
}

// UniformFlux returns 1 − λe: the flux of a uniform (not limb-darkened) star occulted by a disk of radius p at
// separation z (Mandel & Agol 2002, eq. 1).
func UniformFlux(z, p float64) float64 {
	lambdaE, _, _ := occultation(math.Abs(z), p)
	return 1 - lambdaE
}

// occultation returns Mandel & Agol's λe, λd + ⅔Θ(p−z) and ηd for separation z ≥ 0 and radius ratio p.
func occultation(z, p float64) (lambdaE, lambdaD, etaD float64) {
	if p <= 0 || z >= 1+p || math.IsNaN(z) || math.IsNaN(p) {
		return 0, 0, 0
	}
	if p >= 1 && z <= p-1 { // case 11: the star is hidden
		return 1, 2.0 / 3, 0.5
	}
	// Snap onto the boundaries of the case table (see snapTol).
	if math.Abs(p-0.5) < snapTol {
		p = 0.5
	}
	switch {
	case z < snapTol:
		z = 0
	case math.Abs(z-p) < snapTol:
		z = p
	case math.Abs(z-(1-p)) < snapTol:
		z = 1 - p
	}
	if p >= 1 && z <= p-1 { // snapped onto case 11 (p = 1 at z ≈ 0): the star is hidden to within rounding
		return 1, 2.0 / 3, 0.5
	}

	a := (z - p) * (z - p)
	b := (z + p) * (z + p)
	q := (p - z) * (p + z) // p² − z², factored to keep its relative precision near z = p
	eta2 := p * p / 2 * (p*p + 2*z*z)
	inside := p < 1 && z <= 1-p // the disk lies wholly on the star

	if inside {
		lambdaE, etaD = p*p, eta2
	} else {
		// root = √(4z² − (1+z²−p²)²) = √((1−a)(b−1)), from factors that keep their relative precision near the
		// contact points; the angles κ0, κ1 (cos κ0 = (p²+z²−1)/(2pz), cos κ1 = (1−p²+z²)/(2z)) through atan2,
		// which, unlike acos near ±1, does not lose half the digits there.
		root := math.Sqrt(math.Max((1-z+p)*(1+z-p)*(z+p-1)*(z+p+1), 0))
		kappa0 := math.Atan2(root, (p-1)*(p+1)+z*z)
		kappa1 := math.Atan2(root, (1-p)*(1+p)+z*z)
		lambdaE = (p*p*kappa0 + kappa1 - 0.5*root) / math.Pi
		etaD = (kappa1 + 2*eta2*kappa0 - 0.25*(1+5*p*p+z*z)*root) / (2 * math.Pi) // η1
	}

	switch {
	case p < 1 && z == 1-p: // case 4 (and case 6 when p = 1/2)
		lambdaD = lambda5(p)
	case z == p && p < 0.5: // case 5
		lambdaD = lambda4(p)
	case z == p && p == 0.5: // case 6
		lambdaD = 1.0/3 - 4/(9*math.Pi)
		etaD = 3.0 / 32
	case z == p: // case 7
		lambdaD = lambda3(p)
	case !inside: // cases 2 and 8
		lambdaD = lambda1(z, p, a, b, q)
	case z == 0: // case 10
		lambdaD = -2.0 / 3 * math.Pow(1-p*p, 1.5)
	default: // cases 3 and 9
		lambdaD = lambda2(z, p, a, b, q)
	}
	if p > z {
		lambdaD += 2.0 / 3
	}
	return lambdaE, lambdaD, etaD
}

// lambda1 is Mandel & Agol's λ1, the limb-crossing case |1−p| < z < 1+p, z ≠ p:
//
//	λ1 = 1/(9π√(pz)) {[(1−b)(2b+a−3) − 3q(b−2)] K(k) + 4pz(z²+7p²−4) E(k) − 3(q/a) Π((1−a)/a, k)},
//
// a = (z−p)², b = (z+p)², q = p²−z², k = √((1−a)/(4zp)).
func lambda1(z, p, a, b, q float64) float64 {
	kc := math.Sqrt(math.Max((z+p-1)*(z+p+1), 0) / (4 * z * p))
	cK := (1-b)*(2*b+a-3) - 3*q*(b-2)
	cE := 4 * z * p * (z*z + 7*p*p - 4)
	ke := cel(kc, 1, cK+cE, cK+cE*kc*kc)
	pi3 := cel(kc, 1/a, 1, 1)
	return (ke - 3*q/a*pi3) / (9 * math.Pi * math.Sqrt(p*z))
}

// lambda2 is Mandel & Agol's λ2, the disk inside the star, 0 < z < 1−p, z ≠ p:
//
//	λ2 = 2/(9π√(1−a)) {(1−5z²+p²+q²) K(1/k) + (1−a)(z²+7p²−4) E(1/k) − 3(q/a) Π((b−a)/a, 1/k)}.
func lambda2(z, p, a, b, q float64) float64 {
	oneMinusA := (1 - z + p) * (1 + z - p)
	kc := math.Sqrt((1 - b) / oneMinusA)
	cK := 1 - 5*z*z + p*p + q*q
	cE := oneMinusA * (z*z + 7*p*p - 4)
	ke := cel(kc, 1, cK+cE, cK+cE*kc*kc)
	pi3 := cel(kc, b/a, 1, 1)
	return 2 * (ke - 3*q/a*pi3) / (9 * math.Pi * math.Sqrt(oneMinusA))
}

// lambda3 is λ3, the edge of a large disk (p > 1/2) on the star's centre, z = p:
//
//	λ3 = 1/3 + 16p/(9π) (2p²−1) E(1/(2p)) − (1−4p²)(3−8p²)/(9πp) K(1/(2p)).
func lambda3(p float64) float64 {
	k := 1 / (2 * p)
	return 1.0/3 + 16*p/(9*math.Pi)*(2*p*p-1)*ellipticE(k) -
		(1-4*p*p)*(3-8*p*p)/(9*math.Pi*p)*ellipticK(k)
}

// lambda4 is λ4, the edge of a small disk (p < 1/2) on the star's centre, z = p:
//
//	λ4 = 1/3 + 2/(9π) [4(2p²−1) E(2p) + (1−4p²) K(2p)].
func lambda4(p float64) float64 {
	k := 2 * p
	return 1.0/3 + 2/(9*math.Pi)*(4*(2*p*p-1)*ellipticE(k)+(1-4*p*p)*ellipticK(k))
}

// lambda5 is λ5, the disk touching the limb from inside, z = 1−p:
//
//	λ5 = 2/(3π) acos(1−2p) − 4/(9π) (3+2p−8p²) √(p(1−p)) − ⅔ Θ(p − 1/2).
func lambda5(p float64) float64 {
	l := 2/(3*math.Pi)*math.Acos(1-2*p) - 4/(9*math.Pi)*(3+2*p-8*p*p)*math.Sqrt(p*(1-p))
	if p > 0.5 {
		l -= 2.0 / 3
	}
	return l
}

// clamp limits x to [lo, hi] (NaN passes through).
func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
