package data

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/engine/stat"
	"transitbench/internal/testutil"
)

// dvDir holds five whole-mission detrended Kepler light curves as IPAC tables (see ../shared/data/README.md).
const dvDir = "../../shared/data/kepler/dv"

// dvTables are the five tables as astropy 5.2.1 reads them (astropy.io.ascii, format="ipac"): row count,
// flux column, first and last TIME (the files are sorted, without duplicates or nulls), and the robust
// point-to-point scatter 1.4826·MAD(diff)/√2 of the flux column computed with numpy.
var dvTables = []struct {
	file        string
	rows        int
	column      string
	first, last float64
	scatter     float64
}{
	{"KIC005881688.tbl", 64422, "LC_DETREND", 131.5123462, 1591.0012831, 0.00042154911396848993},
	{"KIC006922244.tbl", 64433, "LC_INIT", 131.5130456, 1591.0021751, 0.00018924794661854085},
	{"KIC007950644.tbl", 64421, "LC_DETREND", 131.5125316, 1591.0016170, 0.0002016494609707155},
	{"KIC008359498.tbl", 64420, "LC_DETREND", 131.5124183, 1591.0015134, 0.00019387498341135703},
	{"KIC010418224.tbl", 51425, "LC_DETREND", 131.5118164, 1591.0009765, 0.0002669149808106672},
}

func TestReadIPACKeplerDV(t *testing.T) {
	for _, tb := range dvTables {
		p := filepath.Join(dvDir, tb.file)
		c, err := ReadLightCurve(p) // detection must pick the IPAC reader
		if err != nil {
			t.Fatal(err)
		}
		if c.Len() != tb.rows {
			t.Errorf("%s: %d rows, want %d", tb.file, c.Len(), tb.rows)
		}
		if first, last := c.Span(); first != tb.first || last != tb.last {
			t.Errorf("%s: span %.7f–%.7f, want %.7f–%.7f", tb.file, first, last, tb.first, tb.last)
		}
		assertSorted(t, c)
		// Fractional flux with 0 at the mean becomes relative flux around 1: the median of a detrended curve
		// lies within a few scatter units of 1.
		if m := stat.Median(append([]float64(nil), c.Flux...)); math.Abs(m-1) > 10*tb.scatter {
			t.Errorf("%s: median flux %v, want ≈ 1", tb.file, m)
		}
		// Scatter from 1+x instead of x differs only by rounding.
		if math.Abs(c.FluxErr[0]/tb.scatter-1) > 1e-6 || c.FluxErr[0] != c.FluxErr[c.Len()-1] {
			t.Errorf("%s: flux error %v … %v, want %v everywhere", tb.file, c.FluxErr[0], c.FluxErr[c.Len()-1], tb.scatter)
		}
		for i, q := range c.Quality {
			if q != 0 {
				t.Fatalf("%s: quality %d at %d, want 0", tb.file, q, i)
			}
		}
	}
}

func TestReadIPACFirstValue(t *testing.T) {
	// The first data row of KIC005881688.tbl is " 0   131.5123462  2.6340675e-04".
	c, err := ReadIPAC(filepath.Join(dvDir, "KIC005881688.tbl"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Time[0] != 131.5123462 || c.Flux[0] != 1+2.6340675e-04 {
		t.Errorf("first cadence %v, %v; want 131.5123462, 1.00026340675", c.Time[0], c.Flux[0])
	}
}

const ipacSmall = `\fixlen = T
\ a comment
|set|TIME        |LC_DETREND    |
|int|double      |double        |
|   |d           |              |
|   |            |null          |
 0   3.0          1.0e-03
 0   1.0          -2.0e-03
 0   2.0          null
 0   1.0          5.0e-03
 0   4.0          0.0
`

func TestParseIPACNullsSortingDuplicates(t *testing.T) {
	c, err := parseIPAC(ipacSmall, "small.tbl")
	if err != nil {
		t.Fatal(err)
	}
	wantT := []float64{1, 2, 3, 4}
	wantF := []float64{1 - 2e-3, math.NaN(), 1 + 1e-3, 1} // the second row at t = 1 is a duplicate: dropped
	if c.Len() != 4 {
		t.Fatalf("%d cadences, want 4: %v", c.Len(), c.Time)
	}
	for i := range wantT {
		if c.Time[i] != wantT[i] || !(c.Flux[i] == wantF[i] || math.IsNaN(c.Flux[i]) && math.IsNaN(wantF[i])) {
			t.Errorf("cadence %d: %v, %v; want %v, %v", i, c.Time[i], c.Flux[i], wantT[i], wantF[i])
		}
	}
}

func TestParseIPACBadInput(t *testing.T) {
	checkBadInputs(t, "bad.tbl", parseIPAC, []badInput{
		{"no flux column", "|TIME |FLUX |\n 1.0   2.0\n", "lack TIME or a flux column", ErrFormat},
		{"no time column", "|T   |LC_INIT |\n 1.0   2.0\n", "lack TIME", ErrFormat},
		{"non-numeric", "|TIME |LC_INIT |\n 1.0   0.1\n 2.0   abc\n", "bad.tbl:3", ErrFormat},
		{"header only", "\\fixlen = T\n|TIME |LC_INIT |\n|double|double|\n", "no data rows", ErrEmptyFile},
		{"keywords only", "\\fixlen = T\n", "no '|' header line", ErrFormat},
		{"data before header", "\\x\n 1.0 2.0\n|TIME |LC_INIT |\n", "before the '|' header", ErrFormat},
		{"header after data", "|TIME |LC_INIT |\n 1.0   0.1\n|TIME |LC_INIT |\n", "after the data rows", ErrFormat},
		{"all null", "|TIME |LC_INIT |\n 1.0   null\n 2.0   nan\n", "no valid cadences", ErrNoValidCadences},
		{"short row", "|TIME       |LC_INIT |\n 1.0\n", "ends before", ErrFormat},
	})
}

func TestReadIPACTruncatedFile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(dvDir, "KIC010418224.tbl"))
	if err != nil {
		t.Fatal(err)
	}
	// Data rows of these tables look like " 0   131.5118164  -9.9789533e-05 ": TIME spans bytes 4–16 and the
	// flux column starts at byte 17. Cut the file inside data row k+1's TIME and inside its flux.
	const k = 1000
	row := 0
	for range 3 + k { // 3 header lines, then k data rows
		row += strings.IndexByte(string(raw[row:]), '\n') + 1
	}
	dir := t.TempDir()

	inTime := filepath.Join(dir, "cut-time.tbl")
	if err := os.WriteFile(inTime, raw[:row+10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLightCurve(inTime); err == nil || !strings.Contains(err.Error(), "cut-time.tbl:1004") ||
		!strings.Contains(err.Error(), "ends before") {
		t.Errorf("cut inside TIME: error %v, want one naming line 1004 (3 header lines + %d rows + 1)", err, k)
	}

	inFlux := filepath.Join(dir, "cut-flux.tbl")
	if err := os.WriteFile(inFlux, raw[:row+24], 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadLightCurve(inFlux)
	if err != nil {
		t.Fatal(err)
	}
	// The partial last row still holds a number: k whole rows plus it.
	if c.Len() != k+1 {
		t.Errorf("%d rows, want %d", c.Len(), k+1)
	}
}

func FuzzParseIPAC(f *testing.F) {
	f.Add([]byte(ipacSmall))
	f.Add([]byte("|TIME |LC_INIT |\n 1.0   0.1\n"))
	f.Add([]byte("|TIME|LC_DETREND|\n1 2\n"))
	f.Add([]byte("\\\n|"))
	for _, tb := range dvTables {
		f.Add(headLines(f, filepath.Join(dvDir, tb.file), 120))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		parsedOrRefused(t, parseIPAC, b, "fuzz.tbl")
	})
}

// BenchmarkReadIPAC reads a whole-mission DV table (64,422 rows).
func BenchmarkReadIPAC(b *testing.B) {
	p := filepath.Join(dvDir, dvTables[0].file)
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		if _, err := ReadIPAC(p); err != nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, start)
}
