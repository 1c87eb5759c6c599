package data

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"transitbench/engine/lc"
)

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestParseCSVForms(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name, text string
		want       lc.LightCurve
	}{
		{"full header", "time,flux,flux_err,quality\n1.5,1.001,0.0002,0\n2.5,0.999,0.0003,32\n",
			lc.LightCurve{Time: []float64{1.5, 2.5}, Flux: []float64{1.001, 0.999}, FluxErr: []float64{2e-4, 3e-4}, Quality: []int32{0, 32}}},
		{"no header, four columns", "1.5,1.001,0.0002,0\n2.5,0.999,0.0003,1024\n",
			lc.LightCurve{Time: []float64{1.5, 2.5}, Flux: []float64{1.001, 0.999}, FluxErr: []float64{2e-4, 3e-4}, Quality: []int32{0, 1024}}},
		{"header in another order, extra column, any case, spaces", "# made by hand\n\nQUALITY, Flux_Err, flux, x, TIME\n8, 0.1, 2.0, foo, 10\n0.0, 0.2, 3.0, bar, 11\n",
			lc.LightCurve{Time: []float64{10, 11}, Flux: []float64{2, 3}, FluxErr: []float64{0.1, 0.2}, Quality: []int32{8, 0}}},
		{"nan and empty fields", "time,flux,flux_err,quality\n1,nan,NaN,\n2,,,0\n3,1.0,0.1,2048\n\n",
			lc.LightCurve{Time: []float64{1, 2, 3}, Flux: []float64{nan, nan, 1}, FluxErr: []float64{nan, nan, 0.1}, Quality: []int32{0, 0, 2048}}},
		{"blank-separated with a numpy.savetxt header", "# time flux flux_err\n1.500000000000000000e+00 1.001e+00 2e-04\n2.5\t0.999   3e-04\n",
			lc.LightCurve{Time: []float64{1.5, 2.5}, Flux: []float64{1.001, 0.999}, FluxErr: []float64{2e-4, 3e-4}, Quality: []int32{0, 0}}},
		{"quoted header names", "\"time\",\"flux\",\"flux_err\",\"quality\"\n1,2,0.5,0\n",
			lc.LightCurve{Time: []float64{1}, Flux: []float64{2}, FluxErr: []float64{0.5}, Quality: []int32{0}}},
		{"unsorted, duplicates keep the first, NaN time dropped, CRLF", "time,flux,flux_err\r\n3,1.3,0.1\r\n1,1.1,0.1\r\nnan,5,5\r\n3,9.9,0.1\r\n2,1.2,0.1\r\n",
			lc.LightCurve{Time: []float64{1, 2, 3}, Flux: []float64{1.1, 1.2, 1.3}, FluxErr: []float64{0.1, 0.1, 0.1}, Quality: []int32{0, 0, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseCSV(tc.text, "x.csv")
			if err != nil {
				t.Fatal(err)
			}
			if c.Len() != tc.want.Len() {
				t.Fatalf("%d cadences, want %d", c.Len(), tc.want.Len())
			}
			for i := range c.Time {
				if !same(c.Time[i], tc.want.Time[i]) || !same(c.Flux[i], tc.want.Flux[i]) ||
					!same(c.FluxErr[i], tc.want.FluxErr[i]) || c.Quality[i] != tc.want.Quality[i] {
					t.Errorf("cadence %d: %v %v %v %v, want %v %v %v %v", i, c.Time[i], c.Flux[i], c.FluxErr[i], c.Quality[i],
						tc.want.Time[i], tc.want.Flux[i], tc.want.FluxErr[i], tc.want.Quality[i])
				}
			}
		})
	}
}

func TestParseCSVTwoColumnsEstimatesError(t *testing.T) {
	text := "0,1.000\n1,1.002\n2,0.999\n3,1.003\n4,1.000\n5,1.001\n"
	c, err := parseCSV(text, "two.csv")
	if err != nil {
		t.Fatal(err)
	}
	// Differences: +0.002, −0.003, +0.004, −0.003, +0.001; median +0.001; absolute deviations
	// 0.001, 0.004, 0.003, 0.004, 0 → MAD 0.003; σ = 1.4826 · 0.003 / √2.
	want := 1.4826 * 0.003 / math.Sqrt2
	for i, e := range c.FluxErr {
		if math.Abs(e-want) > 1e-12 || c.Quality[i] != 0 {
			t.Fatalf("cadence %d: error %v quality %d, want %v and 0", i, e, c.Quality[i], want)
		}
	}
}

func TestParseCSVBadInput(t *testing.T) {
	checkBadInputs(t, "bad.csv", parseCSV, []badInput{
		{"empty", "", "no data rows", ErrEmptyFile},
		{"blank and comments only", "\n# nothing\n\n", "no data rows", ErrEmptyFile},
		{"header only", "time,flux,flux_err,quality\n", "no data rows", ErrEmptyFile},
		{"missing flux column", "time,brightness\n1,2\n", "lacks a time or a flux column", ErrFormat},
		{"non-numeric with line number", "time,flux\n1,1.0\n2,1.0\n3,abc\n", "bad.csv:4", ErrFormat},
		{"non-numeric time", "1,1.0\nx1,1.0\n", "bad.csv:2: data: malformed light-curve file: field 1 (time)", ErrFormat},
		{"bad quality", "time,flux,flux_err,quality\n1,1,0.1,0.5\n", "quality", ErrFormat},
		{"wrong field count", "time,flux\n1,1.0\n2,1.0,3\n", "bad.csv:3", ErrFormat},
		{"too many unnamed columns", "1,2,3,4,5\n", "no header line", ErrFormat},
		{"one unnamed column", "1\n2\n", "no header line", ErrFormat},
		{"all NaN flux", "time,flux\n1,nan\n2,\n", "no valid cadences", ErrNoValidCadences},
		{"no finite time", "time,flux\nnan,1\nnan,1\n", "finite time", ErrEmptyFile},
		{"infinite time", "time,flux\nnan,1\ninf,1\n", "a time is infinite", ErrTimeUnits},
		{"overflow", "time,flux\n1,1e999\n", "not a number", ErrFormat},
		{"binary junk", "\x00\x01\x02,\xff\n", "lacks a time", ErrFormat},
		{"line too long", "time,flux\n1," + strings.Repeat("1", maxLineBytes+10) + "\n", "longer than", ErrFormat},
	})
}

func TestReadLightCurveCSVAndErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(p, []byte("100.0,1.0\n100.5,0.98\n101.0,1.01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadLightCurve(p)
	if err != nil || c.Len() != 3 || c.Flux[1] != 0.98 {
		t.Fatalf("plain CSV: %v, %+v", err, c)
	}
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLightCurve(empty); !errors.Is(err, ErrEmptyFile) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v", err)
	}
	missing := filepath.Join(dir, "nope.csv")
	if _, err := ReadLightCurve(missing); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}

func TestDetectFormat(t *testing.T) {
	cases := map[string]fileFormat{
		"SIMPLE  =                    T": formatFITS,
		"\\fixlen = T\n|TIME|":           formatIPAC,
		"  \n|TIME|LC_INIT|":             formatIPAC,
		"time,flux\n":                    formatCSV,
		"SIMPLE = T":                     formatCSV, // not the FITS card layout
	}
	for head, want := range cases {
		if got := detectFormat([]byte(head)); got != want {
			t.Errorf("detectFormat(%q) = %v, want %v", head, got, want)
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("time,flux,flux_err,quality\n1.5,1.001,0.0002,0\n2.5,0.999,0.0003,32\n"))
	f.Add([]byte("1,2\n2,3\n"))
	f.Add([]byte("quality,flux,time\n1,nan,3\n"))
	f.Add([]byte("# c\n\n1,2,3\n"))
	for _, b := range realSeeds(f) {
		f.Add(b.csv)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := parsedOrRefused(t, parseCSV, b, "fuzz.csv")
		if c == nil {
			return
		}
		// What was read must survive a write and a re-read unchanged up to the written precision.
		// Times written with 7 decimals can merge into duplicates, which may leave only NaN flux behind.
		back, err := parseCSV(string(AppendCSV(nil, c)), "again.csv")
		if err != nil && !errors.Is(err, ErrNoValidCadences) {
			t.Fatalf("re-reading written CSV: %v", err)
		}
		if back.Len() > c.Len() {
			t.Fatalf("re-read %d cadences from %d", back.Len(), c.Len())
		}
	})
}

// TestAppendCSVRepeatedErrors checks that copying the text of a repeated flux_err gives the bytes that
// formatting every field gives, on runs of equal values and on values that compare equal with different bits
// (+0 and −0) or differ only in their last bit.
func TestAppendCSVRepeatedErrors(t *testing.T) {
	errs := []float64{1e-4, 1e-4, 1e-4, math.Nextafter(1e-4, 1), 1e-4, 0, math.Copysign(0, -1), math.Copysign(0, -1),
		math.NaN(), math.NaN(), math.Inf(1), 2.5e-5, 2.5e-5}
	c := &lc.LightCurve{}
	for i, e := range errs {
		c.Time = append(c.Time, 131.5+float64(i)*lc.CadenceDays)
		c.Flux = append(c.Flux, 1+1e-5*float64(i))
		c.FluxErr = append(c.FluxErr, e)
		c.Quality = append(c.Quality, int32(i%3))
	}
	want := []byte(CSVHeader + "\n")
	for i := range c.Time {
		for _, f := range []struct {
			x      float64
			format byte
			prec   int
		}{{c.Time[i], 'f', 7}, {c.Flux[i], 'g', 9}, {c.FluxErr[i], 'g', 9}} {
			want = append(appendNum(want, f.x, f.format, f.prec), ',')
		}
		want = append(strconv.AppendInt(want, int64(c.Quality[i]), 10), '\n')
	}
	if got := AppendCSV(nil, c); !bytes.Equal(got, want) {
		t.Errorf("AppendCSV:\n%s\nformatting every field:\n%s", got, want)
	}
}
