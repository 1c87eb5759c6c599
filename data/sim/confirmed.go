package sim

import (
	"math"

	"transitbench/data"
)

// earthRadiiPerSolar is R☉/R⊕ = 6.957e8 m / 6.3781e6 m (IAU 2015 nominal values).
const earthRadiiPerSolar = 109.08

// addConfirmed gives a confirmed-planet host 1–3 planets (stream "confirmed"; never scored): periods and radii
// drawn jointly from the fitted confirmed Kepler planets (confirmedCopula), kept when the period lies in
// Confirmed.PeriodDays and leaves Planet.MinTransits transits with data and Rp/R★ ≤ MaxRpRs; b uniform in
// Planet.B; limb darkening and a/R★ from the star. Their answers carry the MES measured as for injected planets.
func addConfirmed(spec Spec, k *Knobs, cal *calendar, st star, m *meter, signal []float64) ([]data.Planet, error) {
	r := stream(spec.Seed, "confirmed")
	ck := &k.Confirmed
	w := ck.Multiplicity
	u := r.Float64() * (w[0] + w[1] + w[2])
	count := 1
	if u >= w[0] {
		count = 2
	}
	if u >= w[0]+w[1] {
		count = 3
	}
	var out []data.Planet
	for range count {
		for range 200 {
			x := confirmedCopula.sample(r)
			period := math.Pow(10, x[0])
			kk := math.Pow(10, x[1]) / earthRadiiPerSolar / st.radius
			if period < ck.PeriodDays.Lo || period > ck.PeriodDays.Hi || kk > ck.MaxRpRs {
				continue
			}
			p, err := drawOrbit(r, &k.Planet, m, st, Range{period, period})
			if err != nil {
				continue
			}
			p.RpRs = kk
			out = append(out, *applyPlanet(p, m, cal.time, signal))
			break
		}
	}
	if len(out) == 0 {
		return nil, errNoPeriod
	}
	return out, nil
}
