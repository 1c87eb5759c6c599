package pipeline_test

import (
	"math"
	"strings"
	"testing"

	"transitbench/data/kepref"
	"transitbench/engine/lc"
	"transitbench/engine/pipeline"
)

// TestLearnedVetterKeepsKeplerDV runs learned_vetter with the embedded model on one year (BKJD 170–540) of the
// five Kepler DV hot Jupiters (Kepler-8, 40, 77, 427, 696; BLS SNR 120–1,100), with the KOI table's stellar
// radius and the mass from its log g: each planet must be among the rows, kept at p ≥ 0.5 at its catalogue
// period. None of these stars was used in building the vetter (it is trained on simulated stars alone); the
// vetter trained without strong planets in its pool gave them p = 0.001–0.04.
func TestLearnedVetterKeepsKeplerDV(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the search on five real light curves")
	}
	m, err := pipeline.EmbeddedVetter()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	kepref.EachDVKOI(t, func(koi kepref.KOI, whole *lc.LightCurve) {
		seen++
		kic, period := koi.KIC, koi.Get("koi_period")
		star := pipeline.Star{RadiusRsun: koi.Get("koi_srad"), MassMsun: koi.MassMsun(), Teff: koi.Get("koi_steff"),
			Logg: koi.Get("koi_slogg")}
		c := kepref.Window(whole, 170, 540)
		cands, err := pipeline.Candidates(c, star)
		if err != nil {
			t.Fatalf("KIC %s: %v", kic, err)
		}
		best := 0.0
		for i := range cands {
			p := m.Model.Predict(cands[i].Vector())
			t.Logf("KIC %-8s candidate %d: P %.5f d SNR %.0f p %.3f", kic, i, cands[i].Peak.PeriodDays, cands[i].Peak.SNR, p)
			if math.Abs(cands[i].Peak.PeriodDays/period-1) < 1e-3 {
				best = math.Max(best, p)
			}
		}
		rows, err := pipeline.LearnedVetter(c, star, m)
		if err != nil {
			t.Fatalf("KIC %s: %v", kic, err)
		}
		kept := false
		for _, r := range rows {
			kept = kept || math.Abs(r.PeriodDays/period-1) < 1e-3 && r.Score >= 0.5
		}
		if !kept {
			t.Errorf("KIC %s: the planet at P %.5f d is not kept (best p at its period %.3f)", kic, period, best)
		}
	})
	if seen != 5 {
		t.Fatalf("%d DV light curves, want 5", seen)
	}
}

// TestParseVetterRefusesOtherFormat: a model of another format (trained on other features) is refused with an
// error that says to retrain.
func TestParseVetterRefusesOtherFormat(t *testing.T) {
	_, err := pipeline.ParseVetter([]byte(`{"training": {}, "model": {"features": ["snr"]}}`))
	if err == nil {
		t.Fatal("a format-0 model was accepted")
	}
	if want := "retrain it with 'transitbench baselines train-vetter'"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}
