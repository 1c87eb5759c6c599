package sim

import (
	"math"
	"testing"

	"transitbench/data"
	"transitbench/engine/noise"
	"transitbench/engine/transit"
)

// TestMeterMatchesEngineNoise checks that the meter's fast σ_D and MES equal engine/noise's on simulated
// stars (same definition, selection instead of sorting): relative difference below 1e-9.
func TestMeterMatchesEngineNoise(t *testing.T) {
	k := DefaultKnobs()
	for i := range 4 {
		spec := Spec{Seed: uint64(50 + i), Category: data.CategoryUntouched, Population: data.PopulationRandom}
		cal := newCalendar(spec, k)
		st := drawStar(spec, k)
		nz := newNoise(spec, k, cal, st)
		m := newMeter(cal, nz.flux, k)
		for _, d := range []float64{0.05, 0.125, 0.25, 0.5} {
			got, want := m.sigmaD(d), noise.SigmaD(m.t, m.flat, d)
			if math.Abs(got/want-1) > 1e-9 {
				t.Errorf("star %d, D=%v d: σ_D = %v, engine/noise gives %v", i, d, got, want)
			}
		}
		u1, u2 := transit.LimbDarkening(st.teff, st.logg)
		p := transit.Params{PeriodDays: 3.7 + float64(i), T0Days: m.t[0] + 1, RpRs: 0.03, B: 0.3, U1: u1, U2: u2,
			ARs: transit.ARs(3.7+float64(i), st.mass, st.radius)}
		model := make([]float64, len(m.t))
		p.Flux(model, m.t)
		want := noise.MES(m.t, m.flat, model, p.PeriodDays, p.T0Days, p.DurationDays())
		got := m.signal(p)
		if math.Abs(got.MES/want.MES-1) > 1e-9 || got.NTransits != want.NTransits {
			t.Errorf("star %d: MES %v (N=%d), engine/noise gives %v (N=%d)", i, got.MES, got.NTransits, want.MES, want.NTransits)
		}
	}
}
