package sim_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"

	"transitbench/data"
	"transitbench/data/kepref"
	"transitbench/data/sim"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/noise"
)

// keplerDir is the shared real Kepler data, relative to this package.
var keplerDir = filepath.Join("..", "..", "..", "shared", "data", "kepler")

// koi is one KOI's ephemeris from the cumulative table.
type koi struct {
	kepmag, periodDays, t0Days, durationDays float64
}

// readKOIs returns the KOIs of the cumulative table by KIC number.
func readKOIs(t *testing.T) map[int][]koi {
	t.Helper()
	tb, byKIC, err := kepref.KOIs()
	if err != nil {
		t.Fatal(err)
	}
	num := func(r []string, name string) float64 {
		v, err := tb.Float(r, name)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	out := map[int][]koi{}
	for kic, rows := range byKIC {
		id, _ := strconv.Atoi(kic)
		for _, r := range rows {
			out[id] = append(out[id], koi{num(r, "koi_kepmag"), num(r, "koi_period"), num(r, "koi_time0bk"), num(r, "koi_duration") / 24})
		}
	}
	return out
}

// residuals returns the valid cadences between BKJD lo and hi with every KOI transit (±T14) masked,
// detrended by engine/detrend.Flatten with its default window.
func residuals(c *lc.LightCurve, kois []koi, lo, hi float64) (tv, flat []float64) {
	var fv []float64
	for i := range c.Time {
		if c.Time[i] < lo || c.Time[i] > hi || !c.Good(i, lc.DefaultQualityMask) {
			continue
		}
		masked := false
		for _, k := range kois {
			dt := c.Time[i] - k.t0Days
			dt -= k.periodDays * math.Floor(dt/k.periodDays+0.5)
			masked = masked || math.Abs(dt) < k.durationDays
		}
		if !masked {
			tv = append(tv, c.Time[i])
			fv = append(fv, c.Flux[i])
		}
	}
	flat, _ = detrend.Flatten(tv, fv, detrend.Options{})
	return tv, flat
}

// psdSlope returns the slope of log power against log frequency of flat − 1 between loCPD and hiCPD cycles
// per day: the residuals on the long-cadence grid (gaps as zeros), an FFT of the next power-of-two length,
// power averaged in 12 log-spaced bins, and a least-squares line through them. White noise gives 0, red
// noise a negative slope.
func psdSlope(tv, flat []float64, loCPD, hiCPD float64) float64 {
	n := 1
	for float64(n) < (tv[len(tv)-1]-tv[0])/lc.CadenceDays+1 {
		n *= 2
	}
	x := make([]float64, n)
	for i := range tv {
		x[int(math.Round((tv[i]-tv[0])/lc.CadenceDays))] = flat[i] - 1
	}
	c := fourier.NewFFT(n).Coefficients(nil, x)
	df := 1 / (float64(n) * lc.CadenceDays)
	const bins = 12
	var lx, ly []float64
	for b := range bins {
		f0 := loCPD * math.Pow(hiCPD/loCPD, float64(b)/bins)
		f1 := loCPD * math.Pow(hiCPD/loCPD, float64(b+1)/bins)
		s, m := 0.0, 0
		for k := int(math.Ceil(f0 / df)); float64(k)*df < f1; k++ {
			s += real(c[k])*real(c[k]) + imag(c[k])*imag(c[k])
			m++
		}
		lx = append(lx, math.Log10(math.Sqrt(f0*f1)))
		ly = append(ly, math.Log10(s/float64(m)))
	}
	mx, my := mean(lx), mean(ly)
	var sxy, sxx float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	return sxy / sxx
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func medianOf(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestRealismAgainstKeplerDV is issue 3's realism check. On the five detrended whole-mission DV light curves
// in shared/data/kepler/dv (first year, BKJD 170–540, as long as a simulated year) and on 12 simulated
// untouched random stars within ±0.3 mag of each real star's Kepler magnitude, both with KOI transits masked
// and detrended alike (engine/detrend.Flatten, default 1.5-d window):
//   - CDPP at 3, 6 and 12 h (engine/noise.CDPP) of each real star and the median of its simulated peers agree
//     within a factor of 2;
//   - the power-spectrum slope of the residuals between 1 and 10 cycles per day (periods of 2.4 h to 1 d, the
//     transit timescales), median over the real stars and median over all simulated stars, agree within a
//     factor of 2 (both are red: the real median is ≈ −0.14).
func TestRealismAgainstKeplerDV(t *testing.T) {
	if _, err := os.Stat(keplerDir); err != nil {
		t.Skipf("the shared Kepler data are not here (%v)", err)
	}
	kois := readKOIs(t)
	files, err := kepref.DVFiles()
	if err != nil {
		t.Fatal(err)
	}
	hours := []float64{3, 6, 12}
	var realSlopes, simSlopes []float64
	for fi, f := range files {
		kic, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(filepath.Base(f), ".tbl"), "KIC"))
		ks := kois[kic]
		if len(ks) == 0 {
			t.Fatalf("KIC %d is not in the KOI table", kic)
		}
		c, err := data.ReadLightCurve(f)
		if err != nil {
			t.Fatal(err)
		}
		tv, flat := residuals(c, ks, 170, 540)
		realSlopes = append(realSlopes, psdSlope(tv, flat, 1, 10))
		var realCDPP [3]float64
		for i, h := range hours {
			realCDPP[i] = noise.CDPP(tv, flat, h)
		}

		k := sim.DefaultKnobs()
		k.Star.Kepmag = sim.Range{Lo: ks[0].kepmag - 0.3, Hi: ks[0].kepmag + 0.3}
		var simCDPP [3][]float64
		for i := range 12 {
			spec := sim.Spec{Set: "realism", Index: i, Seed: uint64(10000*fi + i), Category: data.CategoryUntouched,
				Population: data.PopulationRandom, ID: "realism"}
			r := generate(t, spec, k)
			stv, sflat := residuals(r.Curve, nil, 0, 1e9)
			simSlopes = append(simSlopes, psdSlope(stv, sflat, 1, 10))
			for j, h := range hours {
				simCDPP[j] = append(simCDPP[j], noise.CDPP(stv, sflat, h))
			}
		}
		for j, h := range hours {
			s := medianOf(simCDPP[j])
			t.Logf("KIC %d (Kp %.2f): CDPP %2.0f h real %6.1f ppm, simulated median %6.1f ppm (ratio %.2f)", kic, ks[0].kepmag, h, realCDPP[j], s, s/realCDPP[j])
			if r := s / realCDPP[j]; r < 0.5 || r > 2 {
				t.Errorf("KIC %d: simulated CDPP at %.0f h is %.2f × the real one, want within a factor of 2", kic, h, r)
			}
		}
	}
	rs, ss := medianOf(realSlopes), medianOf(simSlopes)
	t.Logf("PSD slope 1–10 c/d: real %v (median %.3f), simulated median %.3f", realSlopes, rs, ss)
	if rs >= 0 || ss >= 0 || ss/rs < 0.5 || ss/rs > 2 {
		t.Errorf("PSD slope: simulated median %.3f, real median %.3f; want both red and within a factor of 2", ss, rs)
	}
}
