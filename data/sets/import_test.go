package sets

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
)

// kepler90 is the directory of Kepler-90's Q3–Q5 files in the shared reference data.
const kepler90 = "../../../shared/data/kepler/fits/kic011442793"

// koiRows returns the KOI table's rows for one KIC as a label table body (kepid,category,koi_period,
// koi_time0bk,koi_duration,koi_depth), read from the shared reference data.
func koiRows(t *testing.T, kic string) []string {
	t.Helper()
	f, err := os.Open("../../../shared/data/kepler/tables/koi_cumulative.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var col map[string]int
	var rows []string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		fields := strings.Split(line, ",")
		if col == nil {
			col = map[string]int{}
			for i, h := range fields {
				col[h] = i
			}
			continue
		}
		if fields[col["kepid"]] == kic && fields[col["koi_disposition"]] == "CONFIRMED" {
			rows = append(rows, fmt.Sprintf("%s,confirmed,%s,%s,%s,%s", kic, fields[col["koi_period"]],
				fields[col["koi_time0bk"]], fields[col["koi_duration"]], fields[col["koi_depth"]]))
		}
	}
	return rows
}

func TestImportKepler90(t *testing.T) {
	if _, err := os.Stat(kepler90); err != nil {
		t.Fatalf("reference data missing: %v", err)
	}
	rows := koiRows(t, "11442793")
	// Kepler-90 has eight confirmed planets, seven of them in the KOI table (K00351.01–.07; Kepler-90 i was
	// found later by Shallue & Vanderburg 2018).
	if len(rows) != 7 {
		t.Fatalf("KOI table gives %d confirmed planets of Kepler-90, want 7", len(rows))
	}
	labels := filepath.Join(t.TempDir(), "labels.csv")
	os.WriteFile(labels, []byte("kepid,category,koi_period,koi_time0bk,koi_duration,koi_depth\n"+
		strings.Join(rows, "\n")+"\n"), 0o644)

	home := t.TempDir()
	var last Progress
	res, err := Import(home, "kepler", ImportOptions{FITSDir: kepler90, Labels: labels,
		Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Set
	if len(s.IDs) != 1 || s.IDs[0] != "kepler-0000" || s.Kind != KindImported || last.Done != 1 {
		t.Fatalf("imported %v (kind %s), progress %+v", s.IDs, s.Kind, last)
	}
	id := s.IDs[0]
	in, _ := s.Info(id)
	// Q3 4,370 + Q4 1,021 + Q5 4,634 rows (shared data README), all within a year of Q3's start, less the
	// rows without a time, which the reader drops.
	rowsWithTime := 0
	fits, _ := filepath.Glob(filepath.Join(kepler90, "kplr*_llc.fits"))
	for _, f := range fits {
		_, h, err := data.ReadKeplerFITSFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rowsWithTime += h.Rows - h.NaNTimes
	}
	if in.KIC != 11442793 || in.Cadences != rowsWithTime || rowsWithTime < 9000 {
		t.Errorf("KIC %d with %d cadences, want 11442793 with %d", in.KIC, in.Cadences, rowsWithTime)
	}
	// The FITS header's stellar parameters reach star.json; Kepler-90 is a Kp 13.8 G dwarf.
	if in.Star.Kepmag < 13 || in.Star.Kepmag > 15 || in.Star.Teff < 5500 || in.Star.Teff > 6500 {
		t.Errorf("star.json %+v", in.Star)
	}
	// CDPP measured on the data: a Kp 13.8 star has tens to a few hundred ppm at 6 h (SIMULATOR-NOTES).
	if c6 := in.Star.CDPPppm["6.0"]; c6 < 20 || c6 > 500 || in.Star.CDPPppm["3.0"] < c6 {
		t.Errorf("CDPP %v", in.Star.CDPPppm)
	}
	a := s.Answers[id]
	if a.Category != data.CategoryConfirmed || a.Scored || len(a.Confirmed) != 7 {
		t.Fatalf("answer %+v", a)
	}
	// Kepler-90 h (P = 331.6 d, depth 8,322 ppm, the KOI table) transits once in these 260 days at most, and its
	// deep transit gives a large MES; the 7.0-d planet b transits about 30 times.
	h, b := a.Confirmed[6], a.Confirmed[0]
	if h.PeriodDays < 331 || h.Depth < 8e-3 || h.NTransits > 1 {
		t.Errorf("Kepler-90 h: %+v", h)
	}
	if b.PeriodDays > 7.1 || b.NTransits < 25 || b.NTransits > 38 || !(b.MES > 0) {
		t.Errorf("Kepler-90 b: %+v", b)
	}
	// Each planet's MES is measured on these quarters, not computed from the catalogue's depth. The KOI table's
	// model SNR is over the whole mission (Q1–Q17, about 0.9 × 1,470 d / P transits with data): scaled by
	// √(transits here / transits there) it predicts the MES of these quarters, to the unit scatter of a
	// measured MES and the few per cent of the duty cycle's guess. Checked on the planets with three transits
	// or more (b, c, d; the MES of one or two deep transits depends on how the trend is bridged under them).
	modelSNR := map[float64]float64{7.008: 19.2, 8.720: 22.7, 59.74: 43.5}
	checked := 0
	for _, p := range a.Confirmed {
		for per, snr := range modelSNR {
			if math.Abs(p.PeriodDays/per-1) > 1e-3 || p.NTransits < 3 {
				continue
			}
			want := snr * math.Sqrt(float64(p.NTransits)/(0.9*1470/p.PeriodDays))
			t.Logf("P %.3f d: %d transits, MES %.1f, from the KOI model SNR %.1f", p.PeriodDays, p.NTransits, p.MES, want)
			if math.Abs(p.MES-want) > 3+0.15*want {
				t.Errorf("P %.3f d: MES %.1f measured, %.1f expected from the KOI table's model SNR", p.PeriodDays, p.MES, want)
			}
			checked++
		}
	}
	if checked != 3 {
		t.Errorf("%d planets checked against the KOI model SNR, want 3", checked)
	}
	// The stored star reads back and matches its digest; ValidTimes are its good cadences.
	c, _, err := s.Star(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteStarDir(id, filepath.Join(t.TempDir(), "star")); err != nil {
		t.Fatal(err)
	}
	vt, _ := s.ValidTimes(id)
	good := 0
	for i := range c.Time {
		if c.Good(i, lc.DefaultQualityMask) {
			good++
		}
	}
	if len(vt) != good || good != in.ValidCadences || good < 9000 {
		t.Errorf("%d valid times, %d good cadences, info %d", len(vt), good, in.ValidCadences)
	}
	// Opening it again loads the stored set; importing again needs force and gives the same fingerprint.
	s2, err := Open(home, "kepler", Options{gen: &fakeGen{}})
	if err != nil || s2.Fingerprint != s.Fingerprint {
		t.Fatalf("reopen: %v", err)
	}
	if _, err := Import(home, "kepler", ImportOptions{FITSDir: kepler90, Labels: labels}); err == nil {
		t.Error("import over an existing set without force")
	}
	res2, err := Import(t.TempDir(), "kepler", ImportOptions{FITSDir: kepler90, Labels: labels})
	if err != nil || res2.Set.Fingerprint != s.Fingerprint {
		t.Errorf("a second import differs: %v", err)
	}
}

func TestImportLabelErrors(t *testing.T) {
	cases := map[string]string{
		"no kic column":  "category\nconfirmed\n",
		"bad category":   "kic,category\n11442793,planet\n",
		"unknown star":   "kic,category\n12345678,untouched\n",
		"bad number":     "kic,category,period\n11442793,injected,abc\n",
		"two rows":       "kic,category\n11442793,untouched\n11442793,untouched\n",
		"planet no data": "kic,category,period\n11442793,injected,7.0\n",
	}
	for name, body := range cases {
		labels := filepath.Join(t.TempDir(), "labels.csv")
		os.WriteFile(labels, []byte(body), 0o644)
		home := t.TempDir()
		if _, err := Import(home, "k", ImportOptions{FITSDir: kepler90, Labels: labels}); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if _, err := os.Stat(buildDir(home, "k")); !os.IsNotExist(err) {
			t.Errorf("%s: a failed import left %s behind", name, buildDir(home, "k"))
		}
	}
}

func TestFirstYear(t *testing.T) {
	// Two Kepler years of long cadence; the first 372 days are kept.
	c := &lc.LightCurve{}
	for i := range 2 * 17800 {
		c.Time = append(c.Time, 131.5+float64(i)*lc.CadenceDays)
		c.Flux = append(c.Flux, 1)
		c.FluxErr = append(c.FluxErr, 1e-4)
		c.Quality = append(c.Quality, 0)
	}
	y := firstYear(c)
	last := y.Time[y.Len()-1]
	if last >= 131.5+YearDays || last < 131.5+YearDays-lc.CadenceDays || y.Validate() != nil {
		t.Errorf("first year ends at %.4f with %d cadences", last, y.Len())
	}
}

func TestImportInjects(t *testing.T) {
	labels := filepath.Join(t.TempDir(), "labels.csv")
	os.WriteFile(labels, []byte("kic,category,population\n11442793,injected,random\n"), 0o644)
	var fps []string
	var planet *data.Planet
	var injected *Set
	for range 2 {
		res, err := Import(t.TempDir(), "inj", ImportOptions{FITSDir: kepler90, Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Set
		injected = s
		fps = append(fps, s.Fingerprint)
		a := s.Answers[s.IDs[0]]
		planet = a.Planet
		if a.Category != data.CategoryInjected || !a.Scored || planet == nil || s.Generator != importWithSim {
			t.Fatalf("answer %+v, generator %s", a, s.Generator)
		}
	}
	if fps[0] != fps[1] {
		t.Error("two imports with injection differ")
	}
	// SPEC A2: the injected MES is drawn from [4, 20] and measured within 5 % (A4).
	if planet.MES < 4*0.95 || planet.MES > 20*1.05 || planet.NTransits < 3 || !(planet.Depth > 0) {
		t.Errorf("injected planet %+v", planet)
	}
	// The injection changed the flux: the import without it differs.
	plain := filepath.Join(t.TempDir(), "plain.csv")
	os.WriteFile(plain, []byte("kic,category\n11442793,untouched\n"), 0o644)
	res, err := Import(t.TempDir(), "inj", ImportOptions{FITSDir: kepler90, Labels: plain})
	if err != nil {
		t.Fatal(err)
	}
	in0, _ := res.Set.Info(res.Set.IDs[0])
	if in0.Digest == "" || res.Set.Generator != ImportVersion {
		t.Errorf("plain import: %+v, generator %s", in0, res.Set.Generator)
	}
	// The ratio of the two light curves is the transit model: 1 outside the transits, down to 1 − depth inside.
	cp, _, _ := res.Set.Star(res.Set.IDs[0])
	ci, _, _ := injected.Star(injected.IDs[0])
	lowest, outside := 1.0, 0.0
	for i := range cp.Time {
		if !cp.Good(i, lc.DefaultQualityMask) {
			continue
		}
		r := ci.Flux[i] / cp.Flux[i]
		k := math.Round((cp.Time[i] - planet.T0Days) / planet.PeriodDays)
		if math.Abs(cp.Time[i]-planet.T0Days-k*planet.PeriodDays) > planet.DurationDays {
			outside = math.Max(outside, math.Abs(r-1))
		}
		lowest = math.Min(lowest, r)
	}
	// lightcurve.csv keeps 8 significant digits of flux (data.AppendCSV): ratios outside transits are 1 to 1e-7.
	if outside > 1e-7 || math.Abs((1-lowest)-planet.Depth) > 0.2*planet.Depth {
		t.Errorf("flux ratio: %.2g off 1 outside transits, lowest %.6f for depth %.6f", outside, lowest, planet.Depth)
	}
}
