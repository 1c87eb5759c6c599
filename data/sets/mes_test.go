package sets

import (
	"math"
	"testing"

	"transitbench/data"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/noise"
	"transitbench/engine/transit"
)

// TestDevMESAsMeasured checks SPEC A4 on every injected star of the real dev set: the MES measured with the
// engine (engine/detrend.Flatten with its defaults, then engine/noise.MES of the answer's transit model about the
// true star, which
// masks the transits to measure σ_D) is within 5 % of the answer's MES, and the answers' MES values span the
// drawn range [4, 20] (with the 5 % tolerance at the edges).
func TestDevMESAsMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the 196-star dev set")
	}
	set, err := Open(t.TempDir(), Dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var n, worst int
	var worstDev float64
	for _, id := range set.IDs {
		ans := set.Answers[id]
		if ans.Category != data.CategoryInjected {
			continue
		}
		p := ans.Planet
		c, _, err := set.Star(id)
		if err != nil {
			t.Fatal(err)
		}
		// The transit was drawn around the true star; star.json holds catalogue estimates (SPEC A1).
		st := ans.TrueStar
		if st == nil {
			t.Fatalf("%s: the answer has no true_star", id)
		}
		clean := c.Clean(lc.DefaultQualityMask)
		flat, _ := detrend.Flatten(clean.Time, clean.Flux, detrend.Options{})
		u1, u2 := transit.LimbDarkening(st.Teff, st.Logg)
		model := make([]float64, clean.Len())
		transit.Params{PeriodDays: p.PeriodDays, T0Days: p.T0Days, RpRs: p.RpRs, B: p.B, U1: u1, U2: u2,
			ARs: transit.ARs(p.PeriodDays, st.MassMsun, st.RadiusRsun)}.Flux(model, clean.Time)
		got := noise.MES(clean.Time, flat, model, p.PeriodDays, p.T0Days, p.DurationDays).MES
		dev := math.Abs(got/p.MES - 1)
		if dev > 0.05 {
			t.Errorf("%s: measured MES %.2f, answer %.2f (%.1f %% off; SPEC A4 allows 5 %%)", id, got, p.MES, 100*dev)
		}
		if p.MES < 4*0.95 || p.MES > 20*1.05 {
			t.Errorf("%s: answer MES %.2f outside the drawn range [4, 20]", id, p.MES)
		}
		if dev > worstDev {
			worstDev, worst = dev, n
		}
		n++
	}
	if n != DevComposition.Injected {
		t.Fatalf("%d injected stars, want %d", n, DevComposition.Injected)
	}
	t.Logf("%d injected dev stars: largest MES deviation %.2f %% (star #%d)", n, 100*worstDev, worst)
}
