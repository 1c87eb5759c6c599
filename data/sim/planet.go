package sim

import (
	"errors"
	"math"
	"math/rand/v2"

	"transitbench/data"
	"transitbench/engine/noise"
	"transitbench/engine/transit"
)

// errNoPeriod is returned when no period in the knobs' range leaves enough transits with data.
var errNoPeriod = errors.New("no period in the planet range leaves the required transits with data; widen Planet.PeriodDays or lower Planet.MinTransits")

// transits counts the epochs t0 + nP with data on the meter's cadences: at least max(1, ⌈D/(2c)⌉) of them
// within ±D/2 of the mid-time, c the meter's cadence (engine/noise.CountTransits).
func (m *meter) transits(period, t0, durationDays float64) int {
	return noise.CountTransits(m.t, m.cadence(), period, t0, durationDays)
}

// signal returns the MES statistics of planet p on the meter's flux as engine/noise.MES defines them (SPEC A4,
// engine/noise.MESInto on the meter's buffers): the mean in-transit depth of p's exposure-averaged model at
// the valid cadences within ±T14/2 of a mid-time, σ_D(T14) of the flux with every cadence within T14/2 + one
// cadence of a mid-time masked, and the transits with data; MES = depth/σ_D·√N.
func (m *meter) signal(p transit.Params) noise.Signal {
	cad := m.cadence()
	if m.model == nil {
		m.model = make([]float64, len(m.t))
	}
	p.Flux(m.model, m.t)
	return noise.MESInto(m.work, m.t, m.flat, m.model, cad, p.PeriodDays, p.T0Days, p.DurationDays())
}

// solveRpRs returns the radius ratio k at which the MES of p (with RpRs = k) is within tol of target, or NaN
// when that needs k > kMax. Since the mean depth grows about as k², it iterates k ← k·√(target/MES(k)) from
// k = √(target·σ_D/√N) (at most 8 rounds).
func (m *meter) solveRpRs(p transit.Params, target, kMax, tol float64) float64 {
	p.RpRs = 0.01
	d := p.DurationDays()
	n := m.transits(p.PeriodDays, p.T0Days, d)
	if n == 0 {
		return math.NaN()
	}
	k := math.Sqrt(noise.RequiredMeanDepth(target, m.sigmaD(d), n))
	for range 8 {
		if !(k > 0) || k > kMax {
			return math.NaN()
		}
		p.RpRs = k
		mes := m.signal(p).MES
		if !(mes > 0) {
			return math.NaN()
		}
		if math.Abs(mes/target-1) < tol {
			return k
		}
		k *= math.Sqrt(target / mes)
	}
	return math.NaN()
}

// drawOrbit draws a period (log-uniform in PeriodDays, kept when it leaves MinTransits transits with data), a
// first mid-transit time uniform over one period from the start of data, and b uniform in B.
func drawOrbit(r *rand.Rand, pk *PlanetKnobs, m *meter, st star, prange Range) (transit.Params, error) {
	u1, u2 := transit.LimbDarkening(st.teff, st.logg)
	for range 1000 {
		p := transit.Params{
			PeriodDays: logUniform(r, prange.Lo, prange.Hi),
			B:          uniform(r, pk.B.Lo, pk.B.Hi),
			U1:         u1, U2: u2,
		}
		p.T0Days = m.t[0] + p.PeriodDays*r.Float64()
		p.ARs = transit.ARs(p.PeriodDays, st.mass, st.radius)
		if !(p.ARs > 2) { // the orbit must clear the star comfortably
			continue
		}
		p.RpRs = 0.01
		if m.transits(p.PeriodDays, p.T0Days, p.DurationDays()) >= pk.MinTransits {
			return p, nil
		}
	}
	return transit.Params{}, errNoPeriod
}

// injectPlanet adds one planet to signal (SPEC A4, stream "planet"): MES uniform in Planet.MES (at quantile q
// of it when 0 < q < 1; log-uniform in Planet.HighMES for a share Planet.HighMESShare of the stars), orbit from drawOrbit, limb darkening from the star's Teff and log g, and Rp/R★ solved so
// that the MES measured on the planet-free flux equals the drawn MES. A draw needing Rp/R★ above MaxRpRs is
// redrawn (up to Redraws times).
func injectPlanet(seed uint64, q float64, k *Knobs, times []float64, st star, m *meter, signal []float64) (*data.Planet, error) {
	r := stream(seed, "planet")
	pk := &k.Planet
	target := uniform(r, pk.MES.Lo, pk.MES.Hi) // drawn in every case, so the stream's later draws do not depend on q
	if q > 0 && q < 1 {
		target = pk.MES.Lo + q*(pk.MES.Hi-pk.MES.Lo)
	}
	if pk.HighMESShare > 0 {
		if h := stream(seed, "planet-high"); h.Float64() < pk.HighMESShare {
			target = logUniform(h, pk.HighMES.Lo, pk.HighMES.Hi)
		}
	}
	var best transit.Params
	for try := 0; try <= pk.Redraws; try++ {
		p, err := drawOrbit(r, pk, m, st, pk.PeriodDays)
		if err != nil {
			return nil, err
		}
		kk := m.solveRpRs(p, target, pk.MaxRpRs, pk.MESTolerance)
		if !math.IsNaN(kk) {
			p.RpRs = kk
			best = p
			break
		}
		if try == pk.Redraws {
			// Every draw needed more than MaxRpRs: accept the last orbit at the largest radius ratio allowed,
			// with the (lower) MES it then has.
			p.RpRs = pk.MaxRpRs
			best = p
		}
	}
	return applyPlanet(best, m, times, signal), nil
}

// applyPlanet multiplies signal (at times) by planet p's exposure-averaged flux and returns its answer.
func applyPlanet(p transit.Params, m *meter, times, signal []float64) *data.Planet {
	model := make([]float64, len(times))
	p.Flux(model, times)
	for i := range signal {
		signal[i] *= model[i]
	}
	sig := m.signal(p)
	return &data.Planet{
		PeriodDays:   p.PeriodDays,
		T0Days:       p.T0Days,
		DurationDays: p.DurationDays(),
		Depth:        p.Depth(),
		RpRs:         p.RpRs,
		B:            p.B,
		MES:          sig.MES,
		NTransits:    sig.NTransits,
	}
}
