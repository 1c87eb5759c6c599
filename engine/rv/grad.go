package rv

// AddRVGrad adds the planet's velocity at times t to v and writes its partial derivatives with respect to Fit's
// parameters (ln P, ln K, h = e cos ω, k = e sin ω, λ = M0 + ω) into g[0..4], each of length len(t); the
// formulas are addRVAndGrad's. Callers use it for the Fisher information of a Keplerian model.
func (p Planet) AddRVGrad(v []float64, g [5][]float64, t []float64, tRef float64) {
	p.addRVAndGrad(v, g, t, tRef, nil, false)
}
