package noise

import (
	"errors"
	"fmt"
	"math"

	"transitbench/engine/transit"
)

// ErrNoTransitData is returned by RpRsForMES when no transit of the model has data.
var ErrNoTransitData = errors.New("noise: no transit of the model falls on valid cadences")

// RpRsForMES returns p with RpRs changed so that the planet's MES (MES of p.Flux on t, flat) equals target
// within a relative 1e-3, and that Signal. Every other parameter of p is kept; the duration used for MES is
// the model's T14, which grows with RpRs as (1 + k). flat should be the planet-free detrended flux (NaN for a
// cadence that is not valid).
//
// The MES is nearly proportional to k² (the depth), so the search iterates k ← k·√(target/MES(k)) from
// p.RpRs (or 0.01 when that is not positive), which converges in a few steps; k is kept in (0, 2]. It fails
// with ErrNoTransitData when no transit has data, and with an error when σ_D cannot be measured or the
// target needs k > 2.
func RpRsForMES(t, flat []float64, p transit.Params, target float64) (transit.Params, Signal, error) {
	if !(target > 0) {
		return p, Signal{}, fmt.Errorf("noise: target MES %v must be positive", target)
	}
	if !(p.RpRs > 0) {
		p.RpRs = 0.01
	}
	model := make([]float64, len(t))
	var s Signal
	for range 40 {
		p.Flux(model, t)
		s = MES(t, flat, model, p.PeriodDays, p.T0Days, p.DurationDays())
		switch {
		case s.NTransits == 0:
			return p, s, ErrNoTransitData
		case math.IsNaN(s.MES) || !(s.MES > 0):
			return p, s, fmt.Errorf("noise: cannot measure the MES at Rp/R★ %.4g (σ_D %v): too few valid cadences", p.RpRs, s.SigmaD)
		case math.Abs(s.MES/target-1) <= 1e-3:
			return p, s, nil
		}
		k := p.RpRs * math.Sqrt(target/s.MES)
		if k > 2 {
			if p.RpRs == 2 {
				return p, s, fmt.Errorf("noise: MES %.3g needs Rp/R★ > 2 (reached MES %.3g at 2)", target, s.MES)
			}
			k = 2
		}
		p.RpRs = k
	}
	return p, s, fmt.Errorf("noise: MES search did not converge (MES %.4g at Rp/R★ %.4g, target %.4g)", s.MES, p.RpRs, target)
}
