package stargazer

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hd164922Path is HD 164922's published series (radvel's example data; see ../shared/data/rv-public/README.md).
const hd164922Path = "../../../shared/data/rv-public/hd164922_radvel.txt"

func readHD164922(t testing.TB) []byte {
	b, err := os.ReadFile(hd164922Path)
	if err != nil {
		t.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
	}
	return b
}

func TestParseSeriesRadvel(t *testing.T) {
	s, err := ParseSeries(readHD164922(t), "hd164922_radvel.txt", "x")
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "radvel" || !s.Header || len(s.Times) != 401 {
		t.Fatalf("format %q header %v, %d points; want radvel with a header, 401 points", s.Format, s.Header, len(s.Times))
	}
	count := map[string]int{}
	for _, in := range s.Instruments {
		count[in]++
	}
	if len(count) != 3 || count["k"] == 0 || count["j"] == 0 || count["a"] == 0 {
		t.Fatalf("instruments %v, want k, j and a", count)
	}
	if s.Time.Name != "BJD" || s.Time.Offset != 0 || !s.Time.Known {
		t.Fatalf("time system %+v, want BJD as given", s.Time)
	}
	if s.Times[0] != 2450275.9700771 || s.RVs[0] != 10.865898802 || s.Sigmas[0] != 1.14224851131 {
		t.Fatalf("first point %g %g %g", s.Times[0], s.RVs[0], s.Sigmas[0])
	}
}

// reduced rewrites HD 164922's first n points as another format: sep joins the fields, header is the first line
// ("" for none), offset is subtracted from the times, and withInst keeps the instrument column.
func reduced(t *testing.T, n int, sep, header string, offset float64, withInst bool) ([]byte, *Series) {
	ref, err := ParseSeries(readHD164922(t), "ref", "x")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if header != "" {
		b.WriteString(header + "\n")
	}
	for i := range n {
		f := []string{fmt.Sprint(ref.Times[i] - offset), fmt.Sprint(ref.RVs[i]), fmt.Sprint(ref.Sigmas[i])}
		if withInst {
			f = append(f, ref.Instruments[i])
		}
		b.WriteString(strings.Join(f, sep) + "\n")
	}
	return []byte(b.String()), ref
}

func TestParseSeriesFormats(t *testing.T) {
	cases := []struct {
		name, sep, header, format string
		offset                    float64
		inst                      bool
		system                    string
	}{
		{"csv header BJD-2450000", ",", "bjd-2450000,rv,err,instrument", "csv", 2450000, true, "BJD - 2450000"},
		{"csv header unit BJD-2450000", ",", "time [BJD - 2450000],rv,err,instrument", "csv", 2450000, true, "BJD - 2450000"},
		{"csv header bkjd", ",", "bkjd,rv,err", "csv", 2454833, false, "BKJD (BJD - 2454833)"},
		{"csv header unit BTJD", ",", "Time (BTJD),rv,err", "csv", 2457000, false, "BTJD (BJD - 2457000)"},
		{"csv header units", ",", "BJD_TDB [d], RV [m/s], e_RV [m/s]", "csv", 0, false, "BJD"},
		{"csv no header JD", ",", "", "csv", 0, true, "BJD"},
		{"csv no header 3 columns", ",", "", "csv", 2400000, false, "BJD - 2400000"},
		{"table no header", "  ", "", "table", 0, true, "BJD"},
		{"table header jd", "\t", "# HD 164922\njd vrad svrad", "table", 0, false, "JD"},
		{"mjd header", ",", "mjd,rv,sigma", "csv", 2400000.5, false, "MJD (JD - 2400000.5)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, ref := reduced(t, 40, c.sep, c.header, c.offset, c.inst)
			s, err := ParseSeries(b, "f.txt", "mine")
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != c.format || len(s.Times) != 40 || s.Time.Name != c.system {
				t.Fatalf("format %q, %d points, time %q; want %q, 40, %q", s.Format, len(s.Times), s.Time.Name, c.format, c.system)
			}
			for i := range 40 {
				if math.Abs(s.Times[i]+s.Time.Offset-ref.Times[i]) > 1e-6 || s.RVs[i] != ref.RVs[i] || s.Sigmas[i] != ref.Sigmas[i] {
					t.Fatalf("point %d: %g %g %g, want %g %g %g", i, s.Times[i]+s.Time.Offset, s.RVs[i], s.Sigmas[i], ref.Times[i], ref.RVs[i], ref.Sigmas[i])
				}
				want := "mine"
				if c.inst {
					want = ref.Instruments[i]
				}
				if s.Instruments[i] != want {
					t.Fatalf("point %d instrument %q, want %q", i, s.Instruments[i], want)
				}
			}
		})
	}
}

// TestParseSeriesTimeSystems checks the time systems ParseSeriesAs takes by name or offset, and the refusal of
// 4-digit times that nothing names: HD 164922's first 40 points (BJD 2450275.97 to 2452777.96) written as
// BJD − 2450000 (275.97 to 2777.96), numbers that BKJD and BTJD would also give.
func TestParseSeriesTimeSystems(t *testing.T) {
	b, ref := reduced(t, 40, ",", "time,rv,err", 2450000, false)
	_, err := ParseSeries(b, "f.csv", "x")
	if !errors.Is(err, ErrBadSeries) || !errors.Is(err, ErrAmbiguousTime) || !strings.Contains(err.Error(), "f.csv") ||
		!strings.Contains(err.Error(), "--time-system BJD-2450000, BKJD or BTJD") || !strings.Contains(err.Error(), "--time-offset") {
		t.Fatalf("4-digit times with a plain header: %v, want a refusal naming the file and what to pass", err)
	}
	// The same times in each named system, and the same as an offset: the first time lands where the
	// system puts it.
	cases := []struct {
		tm    ImportTime
		name  string
		first float64
	}{
		{ImportTime{System: "BJD-2450000"}, "BJD - 2450000", ref.Times[0]},
		{ImportTime{System: "bkjd"}, "BKJD (BJD - 2454833)", ref.Times[0] - 2450000 + 2454833},
		{ImportTime{System: "BTJD"}, "BTJD (BJD - 2457000)", ref.Times[0] - 2450000 + 2457000},
		{ImportTime{Offset: 2450000, OffsetSet: true}, "days + 2450000", ref.Times[0]},
	}
	for _, c := range cases {
		s, err := ParseSeriesAs(b, "f.csv", "x", c.tm)
		if err != nil {
			t.Fatalf("%+v: %v", c.tm, err)
		}
		if s.Time.Name != c.name || !s.Time.Known || math.Abs(s.Times[0]+s.Time.Offset-c.first) > 1e-6 || s.Time.Reason == "" {
			t.Errorf("%+v: %+v, first time %.4f; want %s, first %.4f", c.tm, s.Time, s.Times[0]+s.Time.Offset, c.name, c.first)
		}
	}
	// Full-day files by name: JD, and MJD from JD − 2400000.5.
	full, _ := reduced(t, 40, ",", "time,rv,err", 0, false)
	if s, err := ParseSeriesAs(full, "f.csv", "x", ImportTime{System: "JD"}); err != nil || s.Time.Name != "JD" || s.Time.Offset != 0 {
		t.Errorf("JD by name: %+v, %v", s, err)
	}
	mjd, _ := reduced(t, 40, ",", "time,rv,err", 2400000.5, false)
	if s, err := ParseSeriesAs(mjd, "f.csv", "x", ImportTime{System: "MJD"}); err != nil || math.Abs(s.Times[0]+s.Time.Offset-ref.Times[0]) > 1e-6 {
		t.Errorf("MJD by name: %+v, %v", s, err)
	}
	// Refused: an unknown name, both a name and an offset, and an offset that puts the times outside 1800–2300.
	for _, c := range []struct {
		tm   ImportTime
		want string
	}{
		{ImportTime{System: "GPS"}, `time system "GPS" is not one of BJD, JD, HJD, MJD, RJD, BJD-2450000, BKJD, BTJD`},
		{ImportTime{System: "BJD", Offset: 1, OffsetSet: true}, "not both"},
		{ImportTime{System: "BJD"}, "outside the years 1800–2300"},
		{ImportTime{Offset: 2000000, OffsetSet: true}, "outside the years 1800–2300"},
	} {
		if _, err := ParseSeriesAs(b, "f.csv", "x", c.tm); !errors.Is(err, ErrBadSeries) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.tm, err, c.want)
		}
	}
	// A header naming plain BJD does not resolve 4-digit times: the offset is still unknown.
	bjd, _ := reduced(t, 40, ",", "bjd,rv,err", 2450000, false)
	if _, err := ParseSeries(bjd, "f.csv", "x"); !errors.Is(err, ErrAmbiguousTime) {
		t.Errorf("4-digit times under a bjd header: %v, want ErrAmbiguousTime", err)
	}
}

func TestParseSeriesRefuses(t *testing.T) {
	good, _ := reduced(t, 20, ",", "time,rv,err", 0, false)
	lines := strings.Split(strings.TrimSpace(string(good)), "\n")
	with := func(i int, row string) []byte {
		l := append([]string(nil), lines...)
		l[i] = row
		return []byte(strings.Join(l, "\n"))
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"nan rv", with(5, "2450275.9,NaN,1.1"), "f.csv:6: rv is NaN"},
		{"zero sigma", with(7, "2450275.9,3.2,0"), "f.csv:8: error 0 is not positive"},
		{"negative sigma", with(7, "2450275.9,3.2,-1"), "f.csv:8: error -1 is not positive"},
		{"too few", []byte(strings.Join(lines[:6], "\n")), "f.csv: 5 points; an RV fit needs at least 10"},
		{"mixed columns", with(3, "2450275.9,3.2,1.1,k"), "f.csv:4: 4 columns where the first row has 3"},
		{"mixed separators", with(3, "2450275.9 3.2 1.1"), "f.csv:4: mixes comma-separated"},
		{"word", with(9, "2450275.9,abc,1.1"), `f.csv:10: rv "abc" is not a number`},
		{"header without error", with(0, "time,rv,snr"), "f.csv:1: header"},
		{"binary", []byte("\x00\x01"), "f.csv: binary data"},
		{"empty", nil, "f.csv: 0 points"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSeries(c.b, "f.csv", "x")
			if err == nil || !errors.Is(err, ErrBadSeries) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line wrapping ErrBadSeries containing %q", err, c.want)
			}
		})
	}
}

func TestImportedTaskRoundTrip(t *testing.T) {
	s, err := ParseSeries(readHD164922(t), "hd164922_radvel.txt", "x")
	if err != nil {
		t.Fatal(err)
	}
	extra, _ := reduced(t, 12, ",", "time,rv,err", 2450000, false)
	s2, err := ParseSeriesAs(extra, "other.csv", "other", ImportTime{System: "BJD-2450000"})
	if err != nil {
		t.Fatal(err)
	}
	task, err := NewImportedTask("hd164922", []*Series{s, s2}, []string{"hd164922_radvel.txt", "other.csv"}, 0.874)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path, err := WriteImported(dir, task, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteImported(dir, task, false); !errors.Is(err, ErrTaskExists) {
		t.Fatalf("second write: %v, want a refusal", err)
	}
	tasks, skipped := LoadUserDir(dir)
	if len(tasks) != 1 || len(skipped) != 0 || filepath.Base(path) != "hd164922.json" {
		t.Fatalf("loaded %d, skipped %v", len(tasks), skipped)
	}
	got := tasks[0]
	if got.Tier() != TierUser || !got.Imported || len(got.Config.Planets) != 0 || got.Config.Star.MStarSun != 0.874 {
		t.Fatalf("tier %s imported %v planets %d mstar %g", got.Tier(), got.Imported, len(got.Config.Planets), got.Config.Star.MStarSun)
	}
	d := got.Data()
	if d.Len() != 413 || len(d.Instruments) != 4 {
		t.Fatalf("%d points, instruments %v; want 413 and 4", d.Len(), d.Instruments)
	}
	for i := 1; i < d.Len(); i++ {
		if d.Times[i] < d.Times[i-1] {
			t.Fatalf("times not sorted at %d", i)
		}
	}
	// A file in days from an unknown zero cannot be put beside one in BJD.
	var rel strings.Builder
	for i := range 12 {
		fmt.Fprintf(&rel, "%d,%g,1.5\n", 7*i, 3*math.Sin(float64(i)))
	}
	s3, err := ParseSeries([]byte(rel.String()), "rel.csv", "rel")
	if err != nil {
		t.Fatal(err)
	}
	if s3.Time.Known {
		t.Fatalf("times 0-77 detected as %+v", s3.Time)
	}
	if _, err := NewImportedTask("mix", []*Series{s, s3}, []string{"a", "rel.csv"}, 1); err == nil || !strings.Contains(err.Error(), "unknown zero") {
		t.Fatalf("mixing known and unknown times: %v", err)
	}
	if err := CheckTaskName("../x"); err == nil {
		t.Fatal("name ../x accepted")
	}
}

// FuzzParseSeries checks the RV importer's parser on arbitrary bytes, seeded with HD 164922's published file and
// small CSV and whitespace tables. It must fail with ErrBadSeries naming the file on one line, or return at least
// MinImportPoints points with finite times, velocities and σ > 0 within the task limits, one instrument each,
// and a time offset that keeps times within the task limits.
func FuzzParseSeries(f *testing.F) {
	f.Add(readHD164922(f))
	f.Add([]byte("time,rv,err\n1,2,3\n2,3,4\n3,4,5\n4,5,6\n5,6,7\n6,7,8\n7,8,9\n8,9,1\n9,1,2\n10,2,3\n"))
	f.Add([]byte("5001 1 1 a\n5002 2 1 a\n5003 3 1 b\n5004 4 1 b\n5005 1 1 a\n5006 1 1 a\n5007 1 1 a\n5008 1 1 a\n5009 1 1 a\n5010 1 1 a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSeries(b, "fuzz.txt", "x")
		if err != nil {
			if !errors.Is(err, ErrBadSeries) || !strings.Contains(err.Error(), "fuzz.txt") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line wrapping ErrBadSeries naming the file", err)
			}
			return
		}
		n := len(s.Times)
		if n < MinImportPoints || len(s.RVs) != n || len(s.Sigmas) != n || len(s.Instruments) != n {
			t.Fatalf("lengths %d %d %d %d", n, len(s.RVs), len(s.Sigmas), len(s.Instruments))
		}
		for i := range n {
			tt := s.Times[i] + s.Time.Offset
			if !(math.Abs(tt) <= MaxTimeDays) || !(math.Abs(s.RVs[i]) <= MaxVelocityMS) || !(s.Sigmas[i] >= MinSigmaMS) || s.Instruments[i] == "" {
				t.Fatalf("point %d accepted: t=%g rv=%g σ=%g inst=%q", i, tt, s.RVs[i], s.Sigmas[i], s.Instruments[i])
			}
		}
		task, err := NewImportedTask("fuzz", []*Series{s}, []string{"fuzz.txt"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if ev := task.Data().Evaluate(nil, 0); math.IsNaN(ev.LnL) || math.IsInf(ev.LnL, 0) {
			t.Fatalf("null model lnL %g", ev.LnL)
		}
	})
}
