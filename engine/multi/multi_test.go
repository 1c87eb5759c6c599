package multi_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"transitbench/data"
	"transitbench/data/kepref"
	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/multi"
	"transitbench/engine/transit"
)

// fastSearch is a BLS search of (t, ·, dy) on a coarse grid (oversampling 1, duration step 1.5, periods up to
// pmax): a few seconds for a year of Kepler data.
func fastSearch(t *testing.T, times, dy []float64, pmax float64) multi.Searcher {
	t.Helper()
	g, err := bls.DefaultGrid(times, bls.GridOptions{Oversample: 1, DurStep: 1.5, PMaxDays: pmax})
	if err != nil {
		t.Fatal(err)
	}
	g.Workers = 2
	return func(y []float64) ([]bls.Peak, error) {
		r, err := bls.Search(times, y, dy, g, bls.SNR)
		if err != nil {
			return nil, err
		}
		return r.Peaks(5), nil
	}
}

// near reports whether a peak's period is within tol (relative) of p or of a ratio 1/2, 2 of it.
func near(pk bls.Peak, p, tol float64) bool {
	return math.Abs(pk.PeriodDays/p-1) < tol
}

// TestKepler90Quarters iterates on Kepler-90's quarters 3–5 (BKJD ≈ 256–532, 270 d). The KOI table lists
// eight planets; within 270 d: h (331.6 d) and g (210.6 d) transit once each, f (124.9 d), e (91.9 d) at most
// twice and d (59.74 d, 566 ppm, 4 transits, SNR ≈ 43.5·√(270/1460) ≈ 19) four times, c (8.72 d, 160 ppm)
// and b (7.01 d, 116 ppm) about 30 times each with SNR ≈ 10 and 8. A search over periods up to 70 d must find
// d, and c after masking what is deeper; the transits of h, g, f and e, one or two each, are masked first as
// few-transit events (paired up at periods between them). b (SNR 7.6 with the command's full grid) stays
// below 7.1 on this coarse grid and is only logged.
func TestKepler90Quarters(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fits", "kic011442793", "*.fits"))
	if len(files) != 3 {
		t.Fatalf("want Kepler-90's three quarters, found %d", len(files))
	}
	c, err := data.ReadKeplerFITS(files...)
	if err != nil {
		t.Fatal(err)
	}
	c = c.Clean(lc.DefaultQualityMask)
	flat, _ := detrend.Flatten(c.Time, c.Flux, detrend.Options{})
	found, err := multi.Iterate(c.Time, flat, fastSearch(t, c.Time, c.FluxErr, 70), multi.Options{Planets: 3})
	if err != nil {
		t.Fatal(err)
	}
	var d, c8, b bool
	for _, p := range found {
		t.Logf("P %8.4f d  t0 %.3f  SNR %6.1f  transits %2d  T14 %.2f h  single %v", p.Peak.PeriodDays, p.Peak.T0Days,
			p.Peak.SNR, p.Peak.NTransits, 24*p.Fit.T14Days, p.Single)
		d = d || near(p.Peak, 59.737, 0.01) && !p.Single
		c8 = c8 || near(p.Peak, 8.7198, 0.002) && !p.Single
		b = b || near(p.Peak, 7.0082, 0.002)
	}
	if !d || !c8 {
		t.Errorf("Kepler-90 d found %v, c found %v", d, c8)
	}
	t.Logf("Kepler-90 b found: %v", b)
}

// TestSecondPlanetAfterMasking injects two planets into a Kepler-like year of white noise: a deep hot Jupiter
// at 3.1 d and a shallow planet at 11.7 d. Without masking, the strongest peaks are all the Jupiter and its
// aliases (subharmonics, the 11.7-d period folding part of the Jupiter's transits); after masking it the next
// search finds the small planet. A --mask of the Jupiter alone does the same in one search.
func TestSecondPlanetAfterMasking(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var times, flux []float64
	for i := range 17000 {
		x := 131.5 + float64(i)*lc.CadenceDays
		if math.Mod(x-131.5, 31) > 30 {
			continue
		}
		times = append(times, x)
		flux = append(flux, 1+100e-6*rng.NormFloat64())
	}
	jup := transit.Params{PeriodDays: 3.1, T0Days: 132.4, RpRs: 0.11, ARs: transit.ARs(3.1, 1, 1), B: 0.2, U1: 0.4, U2: 0.25}
	small := transit.Params{PeriodDays: 11.7, T0Days: 136.9, RpRs: 0.012, ARs: transit.ARs(11.7, 1, 1), B: 0.1, U1: 0.4, U2: 0.25}
	for _, p := range []transit.Params{jup, small} {
		m := make([]float64, len(times))
		p.Flux(m, times)
		for i := range flux {
			flux[i] *= m[i]
		}
	}
	dy := make([]float64, len(times))
	for i := range dy {
		dy[i] = 100e-6
	}
	search := fastSearch(t, times, dy, 40)
	first, err := search(flux)
	if err != nil {
		t.Fatal(err)
	}
	for _, pk := range first {
		if near(pk, small.PeriodDays, 0.002) {
			t.Fatalf("the small planet is among the unmasked search's peaks (%v): the test shows nothing", first)
		}
	}
	found, err := multi.Iterate(times, flux, search, multi.Options{Planets: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 2 || !near(found[0].Peak, jup.PeriodDays, 0.001) || !near(found[1].Peak, small.PeriodDays, 0.002) {
		t.Fatalf("found %+v", found)
	}
	if t14 := jup.DurationDays(); math.Abs(found[0].Fit.T14Days/t14-1) > 0.1 {
		t.Errorf("Jupiter's fitted T14 %.3f d, model %.3f d", found[0].Fit.T14Days, t14)
	}
	if len(found) == 3 && found[2].Peak.SNR >= multi.DefaultMinSNR {
		t.Logf("a third signal at %.3f d, SNR %.1f", found[2].Peak.PeriodDays, found[2].Peak.SNR)
	}
	// A strength in place of the SNR: the stop rule sees each best peak with the signals found before it, and
	// stops at the first below MinSNR (here: anything after the Jupiter).
	var seen []int
	strength := func(pk bls.Peak, before []multi.Planet) float64 {
		seen = append(seen, len(before))
		if len(before) > 0 {
			return 0
		}
		return pk.SNR
	}
	one, err := multi.Iterate(times, flux, search, multi.Options{Planets: 3, Strength: strength})
	if err != nil || len(one) != 1 || !near(one[0].Peak, jup.PeriodDays, 0.001) || len(seen) != 2 || seen[0] != 0 || seen[1] != 1 {
		t.Errorf("with a strength that stops after the first: %d found (%v), strengths asked with %v found", len(one), err, seen)
	}
	masked, err := search(multi.Apply(times, flux, []multi.Mask{{PeriodDays: 3.1, T0Days: 132.4, WindowDays: 2 * jup.DurationDays()}}))
	if err != nil || len(masked) == 0 || !near(masked[0], small.PeriodDays, 0.002) {
		t.Errorf("with the Jupiter masked: %v, %v", masked, err)
	}
}

// TestKeplerDVOneYear iterates on one year (BKJD 170–540) of Kepler-8's DV light curve: the hot Jupiter comes
// first at its catalogue period, and the next search, with its transits masked, has nothing at or near it.
func TestKeplerDVOneYear(t *testing.T) {
	kepref.EachDVKOI(t, func(koi kepref.KOI, whole *lc.LightCurve) {
		if koi.KIC != "6922244" {
			return
		}
		c := kepref.Window(whole, 170, 540).Clean(lc.DefaultQualityMask)
		flat, _ := detrend.Flatten(c.Time, c.Flux, detrend.Options{})
		p := koi.Get("koi_period")
		found, err := multi.Iterate(c.Time, flat, fastSearch(t, c.Time, c.FluxErr, 40), multi.Options{Planets: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(found) == 0 || !near(found[0].Peak, p, 0.001) {
			t.Fatalf("Kepler-8: found %+v, catalogue period %.5f d", found, p)
		}
		for _, f := range found[1:] {
			t.Logf("next: P %.4f d, SNR %.1f, %d transits", f.Peak.PeriodDays, f.Peak.SNR, f.Peak.NTransits)
			if r := f.Peak.PeriodDays / p; math.Abs(r-math.Round(r)) < 0.01 || math.Abs(1/r-math.Round(1/r)) < 0.01 {
				t.Errorf("after masking Kepler-8 b, a peak at %.4f d, a ratio of its period", f.Peak.PeriodDays)
			}
		}
	})
}
