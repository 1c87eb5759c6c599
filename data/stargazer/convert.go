package stargazer

import (
	"math"

	"transitbench/engine/rv"
)

// Convert applies the original environment's load-time conversion to a synthetic task (real tasks and tasks
// already converted are left alone). The published synthetic RVs were made by N-body integration under an
// unusual element mapping (see rv.StargazerOrbit); the conversion keeps the noise realisation and makes the
// truth an exact analytic Keplerian:
//
//	noise = stored RV − γ − (N-body RV of the stored configuration)
//	l′ = (l − Ω) mod 2π, Ω′ = 0
//	new RV = Keplerian of the converted truth (t_ref = times[0], M0 = l′ − ω) + γ + noise
//
// with γ the instrument plus systemic velocity. The N-body RV is replaced by non-interacting Jacobi Keplerian
// orbits (rv.JacobiStarVX), which differ from the integration by far less than the noise over a task's span.
// A stored m_true_mjup, when present, gives the true mass instead of m sin i / sin i.
func (t *Task) Convert() {
	if t.Real || t.Converted {
		return
	}
	o := &t.Observations
	n := len(o.TimesDays)
	orbits := make([]rv.Orbit3D, len(t.Config.Planets))
	for i, p := range t.Config.Planets {
		orbits[i] = rv.StargazerOrbit(p.MSinIMJup, p.PDays, p.E, p.OmegaRad, p.OmegaNodeRad, p.LRad, p.IncRad)
		if p.MTrueMJup != nil && *p.MTrueMJup > 0 {
			orbits[i].MassSun = *p.MTrueMJup * rv.MJupKg / rv.MSunKg
		}
	}
	old := make([]float64, n)
	rv.JacobiStarVX(old, o.TimesDays, t.Config.Star.MStarSun, orbits)
	for i := range t.Config.Planets {
		p := &t.Config.Planets[i]
		p.LRad = math.Mod(p.LRad-p.OmegaNodeRad, 2*math.Pi)
		if p.LRad < 0 {
			p.LRad += 2 * math.Pi
		}
		p.OmegaNodeRad = 0
	}
	kep := make([]float64, n)
	rv.ModelRV(kep, o.TimesDays, o.TimesDays[0], t.TruthPlanets())
	rvs := make([]float64, n)
	for i := range rvs {
		rvs[i] = o.RVsMS[i] - old[i] + kep[i] // γ cancels: it is in both the stored and the new RV
	}
	o.RVsMS = rvs
	if t.Meta == nil {
		t.Meta = map[string]any{}
	}
	t.Meta["rv_only_compat_applied"] = true
	t.Meta["rv_semantics"] = "rv_only_compat"
	t.Converted = true
}

// NoiseResidual returns the stored (unconverted) RVs minus the N-body stand-in of the stored configuration,
// i.e. the noise realisation the conversion keeps. It must be called before Convert; it is the quantity SPEC
// B1 checks (its std over √(σ_white² + σ_jitter²) is ≈ 1 without correlated noise).
func (t *Task) NoiseResidual() []float64 {
	o := t.Observations
	orbits := make([]rv.Orbit3D, len(t.Config.Planets))
	for i, p := range t.Config.Planets {
		orbits[i] = rv.StargazerOrbit(p.MSinIMJup, p.PDays, p.E, p.OmegaRad, p.OmegaNodeRad, p.LRad, p.IncRad)
	}
	m := make([]float64, len(o.TimesDays))
	rv.JacobiStarVX(m, o.TimesDays, t.Config.Star.MStarSun, orbits)
	for i := range m {
		m[i] = o.RVsMS[i] - m[i]
	}
	return m
}
