package sim

import (
	"errors"
	"fmt"
	"math"

	"transitbench/data"
	"transitbench/engine/lc"
)

// ErrStarParams is returned by InjectPlanet for a star without the radius, mass, Teff or log g the transit
// model needs.
var ErrStarParams = errors.New("sim: the star lacks the parameters a transit needs")

// InjectPlanet injects one planet into a light curve, in place, with the simulator's own injection (SPEC A2's
// injection recipe for real data, SPEC A4): from the stream "planet" of seed, MES uniform in Planet.MES, a
// period log-uniform in Planet.PeriodDays leaving Planet.MinTransits transits with data, b uniform in Planet.B,
// limb darkening from the star's Teff and log g, and Rp/R★ solved so that the MES measured on the curve's own
// detrended flux (before the injection) equals the drawn MES within Planet.MESTolerance. It multiplies the
// flux of every cadence with a finite flux by the planet's exposure-averaged model and returns the planet's
// answer. The curve's time must be sorted (readers sort it); the valid cadences are those lc.Good under
// lc.DefaultQualityMask. Same curve, star, seed and knobs give the same planet.
func InjectPlanet(c *lc.LightCurve, st data.Star, seed uint64, k *Knobs) (*data.Planet, error) {
	if k == nil {
		k = DefaultKnobs()
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("sim: cannot inject into this light curve: %w", err)
	}
	if !(st.RadiusRsun > 0 && st.MassMsun > 0 && st.Teff > 0) || math.IsNaN(st.Logg) {
		return nil, fmt.Errorf("%w: star %q has radius %v R☉, mass %v M☉, Teff %v K, log g %v; fill them in (star.json)",
			ErrStarParams, st.ID, st.RadiusRsun, st.MassMsun, st.Teff, st.Logg)
	}
	s := star{kepmag: st.Kepmag, teff: st.Teff, logg: st.Logg, radius: st.RadiusRsun, mass: st.MassMsun}
	s.density = s.mass / (s.radius * s.radius * s.radius)
	var t, f []float64
	for i := range c.Time {
		if c.Good(i, lc.DefaultQualityMask) {
			t = append(t, c.Time[i])
			f = append(f, c.Flux[i])
		}
	}
	if len(t) < 100 {
		return nil, fmt.Errorf("sim: star %q has only %d valid cadences; a transit search needs months of data", st.ID, len(t))
	}
	m := meterFrom(t, f, k)

	signal := make([]float64, len(c.Time))
	for i := range signal {
		signal[i] = 1
	}
	p, err := injectPlanet(seed, 0, k, c.Time, s, m, signal)
	if err != nil {
		return nil, fmt.Errorf("sim: star %q: %w", st.ID, err)
	}
	for i, v := range signal {
		if !math.IsNaN(c.Flux[i]) && !math.IsInf(c.Flux[i], 0) {
			c.Flux[i] *= v
		}
	}
	return p, nil
}
