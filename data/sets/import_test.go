package sets

import (
	"bufio"
	"fmt"
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
		if _, err := Import(t.TempDir(), "k", ImportOptions{FITSDir: kepler90, Labels: labels}); err == nil {
			t.Errorf("%s: accepted", name)
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
