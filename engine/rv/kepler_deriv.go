package rv

import "math"

// addRVAndGrad adds the planet's velocity at times t to v and writes its partial derivatives with respect to
// the fit parameters (ln P, ln K, h = e cos ω, k = e sin ω, λ = M0 + ω) into g[0..4] (each of length
// len(t)), for mean anomaly M = λ − ω + 2π (t − t_ref)/P and v = K (cos(ν+ω) + e cos ω):
//
//	∂v/∂M = −K sin(ν+ω) · (1 + e cos ν)² / (1 − e²)^{3/2}
//	∂v/∂ln P = −∂v/∂M · 2π (t − t_ref)/P,  ∂v/∂ln K = v,  ∂v/∂λ = ∂v/∂M
//	∂v/∂e = K (−sin(ν+ω) · sin ν (2 + e cos ν)/(1 − e²) + cos ω),  ∂v/∂ω|λ = −K (sin(ν+ω) + e sin ω) − ∂v/∂M
//	∂/∂h = cos ω ∂/∂e − (sin ω/e) ∂/∂ω,  ∂/∂k = sin ω ∂/∂e + (cos ω/e) ∂/∂ω
//
// Below e = 1e-9 the derivatives are taken at e = 1e-9 in the direction ω (their limit at e = 0 is finite).
// When anom is not nil it receives the eccentric anomalies, and with warm set its values on entry (those of a
// nearby orbit) start Kepler's equation at each time.
func (p Planet) addRVAndGrad(v []float64, g [5][]float64, t []float64, tRef float64, anom []float64, warm bool) {
	n := 2 * math.Pi / p.PeriodDays
	sw, cw := math.Sincos(p.OmegaRad)
	e := math.Max(p.E, 1e-9)
	e2 := 1 - e*e
	sq := math.Sqrt(e2)
	dhE, dhW := cw, -sw/e
	dkE, dkW := sw, cw/e
	K := p.KMS
	for i, ti := range t {
		E0 := -1.0
		if warm {
			E0 = anom[i]
		}
		E, sE, cE := solveKeplerSC(p.M0Rad+n*(ti-tRef), e, E0)
		if anom != nil {
			anom[i] = E
		}
		den := 1 - e*cE
		cosNu := (cE - e) / den
		sinNu := sq * sE / den
		c := cosNu*cw - sinNu*sw // cos(ν+ω)
		s := sinNu*cw + cosNu*sw // sin(ν+ω)
		val := K * (c + e*cw)
		v[i] += val
		q := 1 + e*cosNu
		dM := -K * s * q * q / (e2 * sq)
		dE := K * (-s*sinNu*(2+e*cosNu)/e2 + cw)
		dW := -K*(s+e*sw) - dM
		g[0][i] = -dM * n * (ti - tRef)
		g[1][i] = val
		g[2][i] = dhE*dE + dhW*dW
		g[3][i] = dkE*dE + dkW*dW
		g[4][i] = dM
	}
}
