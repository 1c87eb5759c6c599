package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/engine/lc"
)

// realSeed is the beginning of a real light curve as a star directory's bytes: lightcurve.csv and star.json.
type realSeed struct{ csv, star []byte }

// realSeeds returns star-directory bytes made from the real Kepler-90 files: the first 60 cadences of Q3, 150
// of Q4 and 300 of Q5 (small seeds keep the mutator fast), each with the star's header values as star.json.
func realSeeds(t testing.TB) []realSeed {
	t.Helper()
	var out []realSeed
	for i, n := range []int{60, 150, 300} {
		c, err := ReadKeplerFITS(keplerPath(t, i))
		if err != nil {
			t.Fatal(err)
		}
		if n < c.Len() {
			c = &lc.LightCurve{Time: c.Time[:n], Flux: c.Flux[:n], FluxErr: c.FluxErr[:n], Quality: c.Quality[:n]}
		}
		csv, star, err := EncodeStarDir(c, kepler90Star())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, realSeed{csv, star})
	}
	return out
}

// headLines returns the first n lines of the file at path.
func headLines(t testing.TB, path string, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
	}
	end := 0
	for k := 0; k < n && end < len(b); k++ {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			end = len(b)
			break
		}
		end += i + 1
	}
	return b[:end]
}

// FuzzReadStarDir writes the two files of a star directory from the fuzzer's bytes and reads the directory as
// ReadLightCurve does. It must fail with an error naming the directory's file, or return a valid light curve
// (finite increasing BKJD times within the limits, a finite flux somewhere, consistent lengths) and a star whose
// fields pass parseStar's checks; what it returns must also come back unchanged through WriteStarDir.
func FuzzReadStarDir(f *testing.F) {
	for _, s := range realSeeds(f) {
		f.Add(s.csv, s.star)
	}
	f.Add([]byte("time,flux\n170,1\n171,1.01\n"), []byte(`{"id":"x","time_system":"BKJD","cdpp_ppm":{"6.0":60}}`))
	f.Add([]byte("time,flux\n170,1\n"), []byte(`{"time_system":"BJD"}`))
	f.Add([]byte("time,flux\n170,1\n"), []byte(`null`))
	f.Fuzz(func(t *testing.T, csv, star []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, LightCurveFile), csv, 0o644)
		os.WriteFile(filepath.Join(dir, StarFile), star, 0o644)
		c, s, err := ReadStarDir(dir)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, dir) || len(msg) > 800+len(dir) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line of at most 800 bytes naming the directory's file", err)
			}
			return
		}
		checkParsed(t, c)
		first, last := c.Time[0], c.Time[c.Len()-1]
		if last-first > MaxSpanDays || math.Abs(first) > MaxAbsTimeDays || math.Abs(last) > MaxAbsTimeDays {
			t.Fatalf("times %g to %g accepted", first, last)
		}
		if s == nil || s.TimeSystem != "" && s.TimeSystem != "BKJD" || s.CadenceDays < 0 || s.RadiusRsun < 0 || s.MassMsun < 0 {
			t.Fatalf("star %+v accepted", s)
		}
		// Writing what was read and reading it again must succeed (times are rounded to 10⁻⁷ d, which can merge
		// cadences and leave only NaN flux, the one allowed failure).
		again := filepath.Join(t.TempDir(), "again")
		if err := WriteStarDir(again, c, s); err != nil {
			t.Fatalf("writing back: %v", err)
		}
		c2, s2, err := ReadStarDir(again)
		if err != nil {
			if errors.Is(err, ErrNoValidCadences) || errors.Is(err, ErrFluxScale) {
				return
			}
			t.Fatalf("re-reading: %v", err)
		}
		if c2.Len() > c.Len() || s2.ID != s.ID {
			t.Fatalf("re-read %d cadences from %d, id %q from %q", c2.Len(), c.Len(), s2.ID, s.ID)
		}
		js1, _ := json.Marshal(s)
		js2, _ := json.Marshal(s2)
		if !bytes.Equal(js1, js2) {
			t.Fatalf("star.json changed: %s -> %s", js1, js2)
		}
	})
}
