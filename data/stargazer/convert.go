package stargazer

import (
	"fmt"
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
// with γ the instrument plus systemic velocity. The N-body RV is recomputed by integrating the stored
// configuration (rv.NBodyStarVX: the planets start on Jacobi Keplerian orbits at t = 0, as the original's
// integrator was set up, and then interact). A non-interacting Keplerian stand-in (rv.JacobiStarVX) would do
// for most tasks, but a few hold massive pairs near a mean-motion resonance (2:1, 4:3, or two orbits of nearly
// one period) whose mutual perturbations reach 2–3 m/s within a task's span, and 22 m/s in seed10_diff10,
// several times the noise; left in, they would show as a systematic residual that no Keplerian fit of the truth
// can absorb. A stored m_true_mjup, when present, gives
// the true mass instead of m sin i / sin i.
//
// The integration is bounded (rv.MaxNBodySteps); a configuration that would need more steps fails with an
// error wrapping rv.ErrNBodySteps and the task is left unchanged. Parse's checks keep every task that passes
// them well inside the bound.
func (t *Task) Convert() error {
	if t.Real || t.Converted {
		return nil
	}
	o := &t.Observations
	n := len(o.TimesDays)
	old := make([]float64, n)
	if err := storedSignal(old, o.TimesDays, t.Config.Star.MStarSun, t.Config.Planets); err != nil {
		return fmt.Errorf("task %s: the load-time conversion failed: %w (a task with absolute JD times is a real task: name it real_*.json or set meta.rv_semantics to \"rv_only\")", t.TaskID, err)
	}
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
	return nil
}

// NoiseResidual returns the stored (unconverted) RVs minus the N-body RV of the stored configuration (the
// signal Convert removes), i.e. the noise realisation the conversion keeps. It must be called before Convert;
// it is the quantity SPEC B1 checks (its std over √(σ_white² + σ_jitter²) is ≈ 1 without correlated noise).
// It fails as Convert does when the integration is out of bounds.
func (t *Task) NoiseResidual() ([]float64, error) {
	o := t.Observations
	m := make([]float64, len(o.TimesDays))
	if err := storedSignal(m, o.TimesDays, t.Config.Star.MStarSun, t.Config.Planets); err != nil {
		return nil, err
	}
	for i := range m {
		m[i] = o.RVsMS[i] - m[i]
	}
	return m, nil
}

// storedSignal sets dst to the star's x velocity (m/s) at times under the original generator's reading of
// planets (rv.StargazerOrbit; a stored m_true_mjup, when present, gives the true mass), integrated as an
// interacting system (rv.NBodyStarVX). The published RVs are this signal plus noise; Generate stores the same.
func storedSignal(dst, times []float64, mStarSun float64, planets []TruthPlanet) error {
	orbits := make([]rv.Orbit3D, len(planets))
	for i, p := range planets {
		orbits[i] = rv.StargazerOrbit(p.MSinIMJup, p.PDays, p.E, p.OmegaRad, p.OmegaNodeRad, p.LRad, p.IncRad)
		if p.MTrueMJup != nil && *p.MTrueMJup > 0 {
			orbits[i].MassSun = *p.MTrueMJup * rv.MJupKg / rv.MSunKg
		}
	}
	return rv.NBodyStarVX(dst, times, mStarSun, orbits)
}
