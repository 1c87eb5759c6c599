package transit

import "math"

// cel is Bulirsch's general complete elliptic integral (Bulirsch 1969, Numer. Math. 13, 305; the form of
// Numerical Recipes 2nd ed., §6.11):
//
//	cel(kc, p, a, b) = ∫₀^{π/2} (a cos²φ + b sin²φ) / ((cos²φ + p sin²φ) √(cos²φ + kc² sin²φ)) dφ
//
// with kc = √(1−k²) the complementary modulus. It gives the three complete integrals in the convention of
// Mandel & Agol (2002):
//
//	K(k)    = cel(kc, 1, 1, 1)
//	E(k)    = cel(kc, 1, 1, kc²)
//	Π(n, k) = ∫₀^{π/2} dφ / ((1 + n sin²φ) √(1 − k² sin²φ)) = cel(kc, 1+n, 1, 1)
//
// and any combination A·K + B·E in one call: cel(kc, 1, A+B, A+B·kc²). For p ≤ 0 it returns the Cauchy
// principal value. kc must be non-zero (k < 1); cel returns +Inf for kc = 0 and a ≠ 0.
func cel(kc, p, a, b float64) float64 {
	const ca = 1e-8 // the relative error of the result is about ca², i.e. at the level of rounding
	if kc == 0 {
		return math.Inf(1)
	}
	kc = math.Abs(kc)
	e := kc
	em := 1.0
	if p > 0 {
		p = math.Sqrt(p)
		b /= p
	} else {
		f := kc * kc
		q := 1 - f
		g := 1 - p
		f -= p
		q *= b - a*p
		p = math.Sqrt(f / g)
		a = (a - b) / g
		b = -q/(g*g*p) + a*p
	}
	for range 64 {
		f := a
		a += b / p
		g := e / p
		b += f * g
		b += b
		p += g
		g = em
		em += kc
		if math.Abs(g-kc) <= g*ca {
			break
		}
		kc = 2 * math.Sqrt(e)
		e = kc * em
	}
	return math.Pi / 2 * (b + a*em) / (em * (em + p))
}

// ellipticK is the complete elliptic integral of the first kind K(k) = ∫₀^{π/2} dφ/√(1−k² sin²φ), modulus k < 1.
func ellipticK(k float64) float64 { return cel(math.Sqrt((1-k)*(1+k)), 1, 1, 1) }

// ellipticE is the complete elliptic integral of the second kind E(k) = ∫₀^{π/2} √(1−k² sin²φ) dφ, modulus k ≤ 1.
func ellipticE(k float64) float64 {
	if k == 1 {
		return 1
	}
	kc2 := (1 - k) * (1 + k)
	return cel(math.Sqrt(kc2), 1, 1, kc2)
}

// ellipticPi is the complete elliptic integral of the third kind in Mandel & Agol's sign convention,
// Π(n, k) = ∫₀^{π/2} dφ / ((1 + n sin²φ) √(1 − k² sin²φ)), for n > −1 and k < 1.
func ellipticPi(n, k float64) float64 { return cel(math.Sqrt((1-k)*(1+k)), 1+n, 1, 1) }
