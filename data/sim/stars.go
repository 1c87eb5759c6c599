package sim

import (
	"math"
	"math/rand/v2"
	"sort"
)

//go:generate go run ./internal/fitgen -tables ../../../shared/data/kepler/tables -out fitted.go

// copula is a Gaussian copula: quantiles[j] is variable j's quantile table at probabilities 0, 1/(n−1), …, 1,
// and chol the Cholesky factor of the correlation matrix of the variables' normal scores. Fitted values live in
// fitted.go, written by internal/fitgen.
type copula struct {
	quantiles [][]float64
	chol      [][]float64
}

// sample draws one vector: z = L·ε with ε standard normal, u = Φ(z), x_j = Q_j(u_j).
func (c *copula) sample(r *rand.Rand) []float64 {
	d := len(c.quantiles)
	eps := make([]float64, d)
	for j := range eps {
		eps[j] = r.NormFloat64()
	}
	x := make([]float64, d)
	for j := range d {
		z := 0.0
		for k := 0; k <= j; k++ {
			z += c.chol[j][k] * eps[k]
		}
		x[j] = quantileAt(c.quantiles[j], 0.5*math.Erfc(-z/math.Sqrt2))
	}
	return x
}

// quantileAt interpolates a quantile table linearly at probability u.
func quantileAt(q []float64, u float64) float64 {
	p := u * float64(len(q)-1)
	i := int(p)
	if i >= len(q)-1 {
		return q[len(q)-1]
	}
	if i < 0 {
		return q[0]
	}
	return q[i] + (p-float64(i))*(q[i+1]-q[i])
}

// cdppTable is log10 CDPP at 6 h [ppm] versus Kepler magnitude (fitted.go).
type cdppTable struct {
	kepmag, logMedian, logSigma []float64
}

// at interpolates the median and scatter of log10 CDPP_6h at Kepler magnitude kp, clamping at the table's ends.
func (t *cdppTable) at(kp float64) (logMedian, logSigma float64) {
	n := len(t.kepmag)
	if kp <= t.kepmag[0] {
		return t.logMedian[0], t.logSigma[0]
	}
	if kp >= t.kepmag[n-1] {
		return t.logMedian[n-1], t.logSigma[n-1]
	}
	i := sort.SearchFloat64s(t.kepmag, kp)
	f := (kp - t.kepmag[i-1]) / (t.kepmag[i] - t.kepmag[i-1])
	return t.logMedian[i-1] + f*(t.logMedian[i]-t.logMedian[i-1]), t.logSigma[i-1] + f*(t.logSigma[i]-t.logSigma[i-1])
}

// star holds a simulated star's parameters.
type star struct {
	kepmag  float64 // Kepler magnitude
	teff    float64 // effective temperature, K
	logg    float64 // log10 surface gravity, cgs
	radius  float64 // R☉
	mass    float64 // M☉
	cdpp6   float64 // target CDPP at 6 h, relative flux (the measured value is reported in star.json)
	density float64 // mean density, ρ☉
}

// loggSun is log10 of the Sun's surface gravity in cgs (g☉ = 27,400 cm s⁻²).
const loggSun = 4.438

// drawStar draws the star from the fitted Kepler target copula (stream "star"): Kepler magnitude, Teff, log g
// and radius jointly; mass M = 10^(log g − log g☉) · R² (M☉, R☉); draws outside the Star knobs' ranges are
// redrawn. CDPP at 6 h is log-normal about the fitted median at that magnitude.
func drawStar(spec Spec, k *Knobs) star {
	r := stream(spec.Seed, "star")
	sk := &k.Star
	var s star
	for try := 0; ; try++ {
		x := starCopula.sample(r)
		s = star{kepmag: x[0], teff: x[1], logg: x[2], radius: math.Pow(10, x[3])}
		s.mass = math.Pow(10, s.logg-loggSun) * s.radius * s.radius
		ok := s.kepmag >= sk.Kepmag.Lo && s.kepmag <= sk.Kepmag.Hi &&
			s.mass >= sk.MassMsun.Lo && s.mass <= sk.MassMsun.Hi &&
			s.radius >= sk.RadiusRsun.Lo && s.radius <= sk.RadiusRsun.Hi
		if ok || try == 1000 {
			break
		}
	}
	s.mass = clamp(s.mass, sk.MassMsun.Lo, sk.MassMsun.Hi)
	s.radius = clamp(s.radius, sk.RadiusRsun.Lo, sk.RadiusRsun.Hi)
	s.kepmag = clamp(s.kepmag, sk.Kepmag.Lo, sk.Kepmag.Hi)
	s.logg = loggSun + math.Log10(s.mass/(s.radius*s.radius))
	s.density = s.mass / (s.radius * s.radius * s.radius)
	lm, ls := cdppFit.at(s.kepmag)
	s.cdpp6 = sk.CDPPScale * math.Pow(10, lm+sk.CDPPScatterScale*ls*r.NormFloat64()) * 1e-6
	return s
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }
