package sim

import (
	"errors"
	"math"
	"math/rand/v2"

	"transitbench/data"
	"transitbench/engine/transit"
)

// errNoPeriod is returned when no period in the knobs' range leaves enough transits with data.
var errNoPeriod = errors.New("no period in the planet range leaves the required transits with data; widen Planet.PeriodDays or lower Planet.MinTransits")

// meanDepth returns the model's mean in-transit depth, (1/T14) ∫ (1 − F(t)) dt over first to fourth contact,
// with the instantaneous (not exposure-averaged) flux on 256 midpoint samples.
func meanDepth(p transit.Params) float64 {
	const n = 256
	d := p.DurationDays()
	if d <= 0 {
		return 0
	}
	p.Supersample = 1
	var t, f [n]float64
	for i := range t {
		t[i] = p.T0Days + d*((float64(i)+0.5)/n-0.5)
	}
	p.Flux(f[:], t[:])
	s := 0.0
	for _, v := range f {
		s += 1 - v
	}
	return s / n
}

// transitsWithData counts the epochs t0 + nP whose window ±halfDays holds at least one of the sorted valid
// times t (SPEC A5's "observed" transit).
func transitsWithData(t []float64, period, t0, halfDays float64) int {
	if len(t) == 0 || period <= 0 {
		return 0
	}
	n := 0
	first := math.Ceil((t[0] - halfDays - t0) / period)
	for e := first; ; e++ {
		mid := t0 + e*period
		if mid-halfDays > t[len(t)-1] {
			break
		}
		i := lowerBound(t, mid-halfDays)
		if i < len(t) && t[i] <= mid+halfDays {
			n++
		}
	}
	return n
}

// mesOf returns the MES of planet p on the meter's flux (SPEC A4): MES = δ̄ / σ_D(T14) · √N, with δ̄ the mean
// in-transit depth of the model and N the transits with data. It also returns T14 and N.
func (m *meter) mesOf(p transit.Params) (mes, t14 float64, n int) {
	t14 = p.DurationDays()
	if t14 <= 0 {
		return 0, 0, 0
	}
	n = transitsWithData(m.t, p.PeriodDays, p.T0Days, t14/2)
	return meanDepth(p) / m.sigmaD(t14) * math.Sqrt(float64(n)), t14, n
}

// solveRpRs returns the radius ratio k for which the MES of p (with RpRs = k) is target: bisection on k over
// (0, kMax] of δ̄(k)/σ_D(T14(k))·√N(T14(k)). σ_D is re-measured at the new T14 in an outer loop (three rounds),
// since it changes slowly with the duration. It returns NaN when even kMax falls short.
func (m *meter) solveRpRs(p transit.Params, target, kMax, tol float64) float64 {
	k := 0.01
	for range 3 {
		p.RpRs = k
		t14 := p.DurationDays()
		if t14 <= 0 {
			return math.NaN()
		}
		sd := m.sigmaD(t14)
		n := transitsWithData(m.t, p.PeriodDays, p.T0Days, t14/2)
		if n == 0 {
			return math.NaN()
		}
		want := target * sd / math.Sqrt(float64(n)) // the mean depth that gives the target MES
		p.RpRs = kMax
		if meanDepth(p) < want {
			return math.NaN()
		}
		lo, hi := 0.0, kMax
		for hi-lo > 1e-7 {
			mid := (lo + hi) / 2
			p.RpRs = mid
			if meanDepth(p) < want {
				lo = mid
			} else {
				hi = mid
			}
		}
		k = (lo + hi) / 2
		p.RpRs = k
		if mes, _, _ := m.mesOf(p); math.Abs(mes/target-1) < tol {
			return k
		}
	}
	return k
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
		half := p.DurationDays() / 2
		if transitsWithData(m.t, p.PeriodDays, p.T0Days, half) >= pk.MinTransits {
			return p, nil
		}
	}
	return transit.Params{}, errNoPeriod
}

// injectPlanet adds one planet to signal (SPEC A4, stream "planet"): MES uniform in Planet.MES, orbit from
// drawOrbit, limb darkening from the star's Teff and log g, and Rp/R★ solved so that the MES measured on the
// planet-free flux equals the drawn MES. A draw needing Rp/R★ above MaxRpRs is redrawn (up to Redraws times).
func injectPlanet(spec Spec, k *Knobs, cal *calendar, st star, m *meter, signal []float64) (*data.Planet, error) {
	r := stream(spec.Seed, "planet")
	pk := &k.Planet
	target := uniform(r, pk.MES.Lo, pk.MES.Hi)
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
	return applyPlanet(best, m, cal, signal), nil
}

// applyPlanet multiplies signal by planet p's exposure-averaged flux and returns its answer.
func applyPlanet(p transit.Params, m *meter, cal *calendar, signal []float64) *data.Planet {
	model := make([]float64, len(cal.time))
	p.Flux(model, cal.time)
	for i := range signal {
		signal[i] *= model[i]
	}
	mes, t14, n := m.mesOf(p)
	return &data.Planet{
		PeriodDays:   p.PeriodDays,
		T0Days:       p.T0Days,
		DurationDays: t14,
		Depth:        p.Depth(),
		RpRs:         p.RpRs,
		B:            p.B,
		MES:          mes,
		NTransits:    n,
	}
}
