package pipeline_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"transitbench/data/kepref"
	"transitbench/engine/lc"
	"transitbench/engine/pipeline"
)

// starVariants are the catalogue star and the star with its radius or its mass 20 % off: a real catalogue is off by
// 5–40 % (SPEC A1), and a vetter must not drop a planet because the star's density moved (a mass moved from 0.900
// to 0.899 once moved the duration grid a step and dropped a hot Neptune).
func starVariants(s pipeline.Star) map[string]pipeline.Star {
	out := map[string]pipeline.Star{"catalogue": s}
	for _, f := range []float64{0.8, 1.2} {
		r, m := s, s
		r.RadiusRsun *= f
		m.MassMsun *= f
		out[fmt.Sprintf("R×%.1f", f)] = r
		out[fmt.Sprintf("M×%.1f", f)] = m
	}
	return out
}

// koiStar is the KOI table's star: its radius, the mass from its log g, its Teff and log g.
func koiStar(k kepref.KOI) pipeline.Star {
	return pipeline.Star{RadiusRsun: k.Get("koi_srad"), MassMsun: k.MassMsun(), Teff: k.Get("koi_steff"), Logg: k.Get("koi_slogg")}
}

// koiPeriods are the periods of a star's KOIs.
func koiPeriods(kois []kepref.KOI) []float64 {
	var out []float64
	for _, k := range kois {
		out = append(out, k.Get("koi_period"))
	}
	return out
}

// relatedTo returns whether a period is one of known's, or a multiple or fraction up to 3 of one (within 1 %),
// which the grader half-credits.
func relatedTo(known []float64) func(float64) bool {
	return func(p float64) bool {
		for _, q := range known {
			for _, f := range []float64{1, 2, 3, 0.5, 1.0 / 3} {
				if math.Abs(p/(q*f)-1) < 0.01 {
					return true
				}
			}
		}
		return false
	}
}

// vetted runs learned_vetter's candidates on c for star and returns each one's period and p (the pipeline keeps
// those above pipeline.VetterThreshold as rows).
func vetted(t *testing.T, m *pipeline.VetterModel, c *lc.LightCurve, star pipeline.Star) (periods, p []float64) {
	t.Helper()
	cands, err := pipeline.Candidates(c, star)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cands {
		periods = append(periods, cands[i].Peak.PeriodDays)
		p = append(p, m.Model.Predict(cands[i].Vector()))
	}
	return periods, p
}

// keptAt reports whether a candidate within 0.1 % of period is kept (p above pipeline.VetterThreshold), with
// the best p at that period.
func keptAt(periods, p []float64, period float64) (bool, float64) {
	best := 0.0
	for i := range periods {
		if math.Abs(periods[i]/period-1) < 1e-3 {
			best = math.Max(best, p[i])
		}
	}
	return best > pipeline.VetterThreshold, best
}

// TestLearnedVetterKeepsKeplerDV runs learned_vetter with the embedded model on one year (BKJD 170–540) of the
// five Kepler DV hot Jupiters (Kepler-8, 40, 77, 427, 696; BLS SNR 120–1,100), with the KOI table's stellar
// radius and the mass from its log g, and with the radius or the mass 20 % off (starVariants). None of these
// stars was used in building the vetter (it is trained on simulated stars alone, with catalogue-error stellar
// parameters).
//
// What it asserts: the decision does not depend on the catalogue (the same side of the threshold in every
// variant, p within maxCatalogueShift of the catalogue star's), and every one of the five planets is kept in
// every variant. (A train
// pool whose strong planets stopped at MES 200 lost Kepler-8 b and Kepler-77 b, deeper than all but a few of its
// planets; the pool now reaches MES 2,000, sets.TrainPlanet.)
// maxCatalogueShift is the largest change of a DV planet's p that a 20 % error of the star's radius or mass
// may cause. Four of the five move by under 0.08; Kepler-40 b, whose transit depth varies from season to season
// (13.7 % per-transit scatter against 2–7 % for the others, which no simulated planet has), sits near the
// threshold where the trees' steps are steep: 0.505–0.709 with the model retrained after Candidates stopped
// dropping planets for their aliases (0.62–0.76 before), kept in every variant.
const maxCatalogueShift = 0.2

func TestLearnedVetterKeepsKeplerDV(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the search on five real light curves, five times each")
	}
	m, err := pipeline.EmbeddedVetter()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	kepref.EachDVKOI(t, func(koi kepref.KOI, whole *lc.LightCurve) {
		seen++
		kic, period := koi.KIC, koi.Get("koi_period")
		star := koiStar(koi)
		c := kepref.Window(whole, 170, 540)
		ps, pr := vetted(t, m, c, star)
		kept0, p0 := keptAt(ps, pr, period)
		for name, s := range starVariants(star) {
			ps, pr := vetted(t, m, c, s)
			kept, best := keptAt(ps, pr, period)
			t.Logf("KIC %-8s %-9s P %.5f d: kept %v (p %.3f)", kic, name, period, kept, best)
			if kept != kept0 || math.Abs(best-p0) > maxCatalogueShift {
				t.Errorf("KIC %s, star %s: p %.3f (kept %v), with the catalogue star %.3f (kept %v): the decision hangs on the catalogue",
					kic, name, best, kept, p0, kept0)
			}
			if !kept {
				t.Errorf("KIC %s, star %s: the planet at P %.5f d is not kept (best p at its period %.3f)", kic, name, period, best)
			}
		}
	})
	if seen != 5 {
		t.Fatalf("%d DV light curves, want 5", seen)
	}
}

// TestLearnedVetterKeepsKepler90 runs learned_vetter on Kepler-90's three quarters (Q3–Q5, 270 d) with the KOI
// table's star and with its radius or mass 20 % off. Its strongest planet with a period in the window is d
// (59.74 d, 566 ppm, three or four transits); h and g transit once (no period), e and f at most twice. d must be
// kept in every variant, and no kept row may claim a period that is none of the eight planets' (or a multiple or
// fraction up to 3 of one). c (8.72 d, 160 ppm, SNR ≈ 10) is found by the iterative search (bls --planets) but
// is not among learned_vetter's three candidates, which come from one search and are filled by the deep
// planets' transits; it is logged.
func TestLearnedVetterKeepsKepler90(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the search on a real light curve five times")
	}
	m, err := pipeline.EmbeddedVetter()
	if err != nil {
		t.Fatal(err)
	}
	c, kois := kepref.Kepler90(t)
	star := koiStar(kois[0])
	periods := koiPeriods(kois)
	related := relatedTo(periods)
	for name, s := range starVariants(star) {
		ps, pr := vetted(t, m, c, s)
		for _, want := range []float64{59.737, 8.7198} {
			kept, best := keptAt(ps, pr, want)
			t.Logf("Kepler-90 %-9s P %.4f d: kept %v (p %.3f)", name, want, kept, best)
			if want == 59.737 && !kept {
				t.Errorf("Kepler-90, star %s: the planet at P %.4f d is not kept (best p at its period %.3f)", name, want, best)
			}
		}
		for i := range ps {
			if pr[i] > pipeline.VetterThreshold && !related(ps[i]) {
				t.Errorf("Kepler-90, star %s: a row at P %.4f d (p %.3f) is none of the known planets", name, ps[i], pr[i])
			}
		}
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

// expertKnownMisses are the real planets learned_vetter keeps and expert does not, with why. Each is checked to
// be still missed, so that the list shrinks when the expert gets it.
var expertKnownMisses = map[string]string{
	// Kepler-40 b: p 0.40 (learned_vetter 0.52). Its depth varies between seasons (13.7 % per-transit scatter,
	// log_event_chi2 0.95), which no simulated planet does, so both classifiers put it near their threshold.
	"KIC 10418224": "per-season depth variation",
}

// TestExpertKeepsWhatLearnedVetterKeepsOnKepler runs both classifier pipelines, with their embedded models, on
// the real light curves of the shared data: the five DV hot Jupiters (one year, BKJD 170–540) and Kepler-90
// (Q3–Q5), with the KOI table's stars. Every row of learned_vetter that claims a known planet must be claimed
// by expert too (within 0.1 % in period), but for expertKnownMisses, and no expert row may claim a period that is
// none of the star's known planets' (or a multiple or fraction up to 3 of one, which the grader half-credits).
func TestExpertKeepsWhatLearnedVetterKeepsOnKepler(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two pipelines on six real light curves")
	}
	check := func(name string, c *lc.LightCurve, star pipeline.Star, known []float64) {
		lv, err := pipeline.Run(pipeline.NameLearnedVetter, c, star)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := pipeline.Run(pipeline.NameExpert, c, star)
		if err != nil {
			t.Fatal(err)
		}
		related := relatedTo(known)
		claims := func(rows []pipeline.Row, p float64) bool {
			for _, r := range rows {
				if math.Abs(r.PeriodDays/p-1) < 1e-3 {
					return true
				}
			}
			return false
		}
		why, listed := expertKnownMisses[name]
		for _, r := range lv {
			missed := related(r.PeriodDays) && !claims(ex, r.PeriodDays)
			switch {
			case missed && listed:
				t.Logf("%s: learned_vetter claims P %.5f d (p %.3f), expert does not: a known miss (%s)", name, r.PeriodDays, r.Score, why)
			case missed:
				t.Errorf("%s: learned_vetter claims P %.5f d (p %.3f), expert does not (rows %+v)", name, r.PeriodDays, r.Score, ex)
			case listed && related(r.PeriodDays):
				t.Errorf("%s: expert now claims P %.5f d: take it off expertKnownMisses", name, r.PeriodDays)
			}
		}
		for _, r := range ex {
			t.Logf("%s: expert row P %.5f d, p %.3f", name, r.PeriodDays, r.Score)
			if !related(r.PeriodDays) {
				t.Errorf("%s: expert row at P %.5f d (p %.3f) is none of the known planets %v", name, r.PeriodDays, r.Score, known)
			}
		}
	}
	kepref.EachDVKOI(t, func(koi kepref.KOI, whole *lc.LightCurve) {
		star := koiStar(koi)
		check("KIC "+koi.KIC, kepref.Window(whole, 170, 540), star, []float64{koi.Get("koi_period")})
	})
	c, kois := kepref.Kepler90(t)
	star := koiStar(kois[0])
	periods := koiPeriods(kois)
	check("Kepler-90", c, star, periods)
}
