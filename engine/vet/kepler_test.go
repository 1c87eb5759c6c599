package vet_test

import (
	"math"
	"testing"

	"transitbench/data/kepref"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/vet"
)

// TestKeplerDVPlanets vets the five confirmed hot Jupiters of the whole-mission DV light curves at their KOI
// ephemerides (period, t0, duration from koi_cumulative.csv; stellar radius from koi_srad and mass from
// koi_slogg: M/M☉ = 10^(logg − 4.438) (R/R☉)², 4.438 being the Sun's log g). Each must look like a planet:
// no secondary eclipse, no dominant single event, a box-like rather than V-shaped transit, a duration a
// circular orbit around that star allows. The odd/even significance is logged, not asserted: on Kepler-77
// (KIC 8359498) it reaches ≈ 5σ, all of it from the transits of BKJD 900–1200, a data feature of that year.
func TestKeplerDVPlanets(t *testing.T) {
	tb, kois, err := kepref.KOIs()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	err = kepref.EachDV(func(kic string, c *lc.LightCurve) {
		var row []string
		if rows := kois[kic]; len(rows) > 0 {
			row = rows[0]
		}
		get := func(name string) float64 {
			v, err := tb.Float(row, name)
			if err != nil {
				t.Fatalf("KIC %s %s: %v", kic, name, err)
			}
			return v
		}
		dur := get("koi_duration") / 24
		flat, _ := detrend.Flatten(c.Time, c.Flux, detrend.Options{WindowDays: detrend.WindowFor(dur)})
		radius := get("koi_srad")
		star := &vet.Star{RadiusRsun: radius, MassMsun: math.Pow(10, get("koi_slogg")-4.438) * radius * radius}
		ft := vet.Compute(c.Time, flat, get("koi_period"), get("koi_time0bk"), dur, star)
		t.Logf("KIC %-8s depth %5.0f ppm  MES %6.0f  odd/even %4.1fσ  secondary MES %4.1f  V %.2f (%+.0fσ)  single %.3f  duration ratio %.2f",
			kic, ft.Depth*1e6, ft.MES, ft.OddEvenSigma, ft.SecondaryMES, ft.VShape, ft.VShapeSigma, ft.SingleEventFraction, ft.DurationRatio)
		if ft.SecondaryMES >= 7.1 {
			t.Errorf("KIC %s: secondary MES %.1f: a planet shows no secondary eclipse at Kepler's precision", kic, ft.SecondaryMES)
		}
		if ft.SingleEventFraction > 0.05 {
			t.Errorf("KIC %s: single-event fraction %.3f with %d transits", kic, ft.SingleEventFraction, ft.NTransits)
		}
		if ft.VShapeSigma >= 0 {
			t.Errorf("KIC %s: the fit prefers a V (%.1fσ) for a planet's transit", kic, ft.VShapeSigma)
		}
		// ≤ 1 for a planet (b > 0 shortens it), with room for the catalogue's stellar parameters (measured 0.71–0.99).
		if !(ft.DurationRatio > 0.5 && ft.DurationRatio < 1.2) {
			t.Errorf("KIC %s: duration ratio %.2f", kic, ft.DurationRatio)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
