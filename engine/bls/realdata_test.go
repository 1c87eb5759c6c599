package bls_test

import (
	"math"
	"testing"

	"transitbench/data/kepref"
	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
)

// koi is a catalogued planet: period (days), mid-transit time (BKJD) and duration (hours).
type koi struct{ period, t0, durationHours float64 }

// readKOIs returns the cumulative KOI table's ephemerides by Kepler ID (the last KOI of each star).
func readKOIs(t *testing.T) map[string]koi {
	t.Helper()
	tb, byKIC, err := kepref.KOIs()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]koi{}
	for id, rows := range byKIC {
		r := rows[len(rows)-1]
		p, _ := tb.Float(r, "koi_period")
		t0, _ := tb.Float(r, "koi_time0bk")
		d, _ := tb.Float(r, "koi_duration")
		out[id] = koi{p, t0, d}
	}
	return out
}

// TestRealKeplerPlanets searches one year (BKJD 170–540) of each whole-mission DV light curve in
// ../shared/data/kepler/dv with the default pipeline (quality mask, biweight detrending, default grid) and
// requires the catalogued planet as the strongest peak: period within 0.1 %, mid-transit time within half a
// duration (modulo the period).
func TestRealKeplerPlanets(t *testing.T) {
	kois := readKOIs(t)
	err := kepref.EachDV(func(kic string, c *lc.LightCurve) {
		want, ok := kois[kic]
		if !ok {
			t.Fatalf("KIC %s is not in the KOI table", kic)
		}
		c = c.Clean(lc.DefaultQualityMask)
		var tt, f, e []float64
		for i, x := range c.Time {
			if x >= 170 && x <= 540 {
				tt, f, e = append(tt, x), append(f, c.Flux[i]), append(e, c.FluxErr[i])
			}
		}
		flat, trend := detrend.Flatten(tt, f, detrend.Options{})
		for i := range e {
			e[i] /= trend[i]
		}
		g, err := bls.DefaultGrid(tt, bls.GridOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.Workers = 2
		r, err := bls.Search(tt, flat, e, g, bls.SNR)
		if err != nil {
			t.Fatalf("KIC %s: %v", kic, err)
		}
		pk := r.Peaks(1)
		if len(pk) == 0 {
			t.Fatalf("KIC %s: no peak", kic)
		}
		p := pk[0]
		dur := want.durationHours / 24
		dt := math.Remainder(p.T0Days-want.t0, want.period)
		t.Logf("KIC %s: %d points; peak P = %.5f d (KOI %.5f), t0 off by %.4f d, duration %.2f h (KOI %.2f), depth %.0f ppm, SNR %.0f, %d transits",
			kic, len(tt), p.PeriodDays, want.period, dt, p.DurationDays*24, want.durationHours, p.Depth*1e6, p.SNR, p.NTransits)
		if math.Abs(p.PeriodDays/want.period-1) > 1e-3 {
			t.Errorf("KIC %s: strongest peak at %.5f d, catalogued period %.5f d", kic, p.PeriodDays, want.period)
		}
		if math.Abs(dt) > dur/2 {
			t.Errorf("KIC %s: t0 %.4f is %.4f d from the catalogued ephemeris, more than half the %.2f h duration", kic, p.T0Days, dt, want.durationHours)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
