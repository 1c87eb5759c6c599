package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/internal/testutil"
)

func unitFlux(int) float64 { return 1 }

// TestReadRefusesTimesNotBKJD feeds the readers the time axes of the findings: 17,000 cadences in seconds
// (the Kepler cadence, 1,765.5 s, gives a span of 3·10⁷), times near 1e300, Julian dates and an infinite time.
func TestReadRefusesTimesNotBKJD(t *testing.T) {
	cases := []struct {
		name, path, want string
	}{
		{"seconds", testutil.WriteLightCurveCSV(t, 17000, 0, CadenceSeconds, unitFlux), "times look like seconds or JD; BKJD days expected"},
		{"1e300", testutil.WriteLightCurveCSV(t, 100, 1e300, 1e285, unitFlux), "times look like seconds or JD; BKJD days expected"},
		{"JD", testutil.WriteLightCurveCSV(t, 1000, 2455064.5, 0.0204336, unitFlux), "times look like JD (first 2455064.5000): BKJD days expected; subtract 2454833"},
	}
	inf := filepath.Join(t.TempDir(), "inf.csv")
	os.WriteFile(inf, []byte("time,flux\n1,1\n2,1\ninf,1\n"), 0o644)
	cases = append(cases, struct{ name, path, want string }{"inf", inf, "a time is infinite"})
	for _, c := range cases {
		_, err := ReadLightCurve(c.path)
		if !errors.Is(err, ErrTimeUnits) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: got %v, want ErrTimeUnits saying %q", c.name, err, c.want)
		}
	}
	// A year of BKJD days and negative BKJD are fine.
	if _, err := ReadLightCurve(testutil.WriteLightCurveCSV(t, 17000, -20, 0.0204336, unitFlux)); err != nil {
		t.Errorf("BKJD year refused: %v", err)
	}
}

// CadenceSeconds is Kepler's long cadence, 29.4244 min, in seconds.
const CadenceSeconds = 29.4244 * 60

// TestReadRefusesStandardisedFlux reads a zero-mean, unit-variance flux (a standardised light curve) and a
// differenced one: both are refused with what to do; a raw positive flux in e⁻/s is read as given.
func TestReadRefusesStandardisedFlux(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	std := testutil.WriteLightCurveCSV(t, 2000, 170, 0.0204336, func(int) float64 { return rng.NormFloat64() })
	_, err := ReadLightCurve(std)
	if !errors.Is(err, ErrFluxScale) || !strings.Contains(err.Error(), "flux looks standardised or differenced (median") ||
		!strings.Contains(err.Error(), "relative flux around 1 expected") {
		t.Errorf("standardised flux: %v", err)
	}
	// Median positive but a third of the values ≤ 0: still not a relative flux.
	off := testutil.WriteLightCurveCSV(t, 2000, 170, 0.0204336, func(int) float64 { return 0.5 + rng.NormFloat64() })
	if _, err := ReadLightCurve(off); !errors.Is(err, ErrFluxScale) {
		t.Errorf("flux with 31%% of values ≤ 0: %v", err)
	}
	raw := testutil.WriteLightCurveCSV(t, 2000, 170, 0.0204336, func(i int) float64 { return 15234 + 3*rng.NormFloat64() })
	c, err := ReadLightCurve(raw)
	if err != nil || math.Abs(c.Flux[0]-15234) > 30 {
		t.Errorf("raw positive flux: %v", err)
	}
	// The IPAC reader applies the same check (flux = 1 + LC_DETREND; a column of −2 gives −1).
	ipac := filepath.Join(t.TempDir(), "neg.tbl")
	os.WriteFile(ipac, []byte("|TIME |LC_DETREND|\n 1.0  -2\n 2.0  -2\n 3.0  -2\n"), 0o644)
	if _, err := ReadLightCurve(ipac); !errors.Is(err, ErrFluxScale) {
		t.Errorf("IPAC with flux −1: %v", err)
	}
}

// TestFITSErrorsAreShort checks that a garbage file and a damaged header give one short line: a file without
// the FITS magic says "not a FITS file" and quotes at most 80 printable bytes; a header the decoder rejects
// (an extension without XTENSION, whose error lists every keyword) is cut to maxDetailBytes.
func TestFITSErrorsAreShort(t *testing.T) {
	dir := t.TempDir()
	garbage := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	_, _, err := decodeKeplerFITS(garbage, "g.fits")
	if err == nil || !strings.Contains(err.Error(), "not a FITS file") || len(err.Error()) > 300 {
		t.Errorf("garbage: %d bytes: %v", len(err.Error()), err)
	}
	// A primary header, then an extension whose first card is not XTENSION and with 30 garbage keywords.
	card := func(s string) string { return fmt.Sprintf("%-80s", s) }
	block := func(cards ...string) string {
		s := strings.Join(cards, "") + card("END")
		return s + strings.Repeat(" ", (2880-len(s)%2880)%2880)
	}
	var ext []string
	ext = append(ext, card("BITPIX  =                    8"), card("NAXIS   =                    0"), card("EXTNAME = 'LIGHTCURVE'"))
	for i := range 30 {
		ext = append(ext, card(fmt.Sprintf("K%07d= 1", i)))
	}
	raw := block(card("SIMPLE  =                    T"), card("BITPIX  =                    8"), card("NAXIS   =                    0"),
		card("KEPLERID=             11442793")) + block(ext...)
	p := filepath.Join(dir, "bad.fits")
	os.WriteFile(p, []byte(raw), 0o644)
	_, err = ReadLightCurve(p)
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), p) {
		t.Errorf("damaged header: %d bytes: %v", len(err.Error()), err)
	}
}

// TestGarbageFITSNamedFile reads random bytes named .fits, the finding's garbage FITS file: it is read as FITS
// (by its name) and the error says "not a FITS file" quoting at most 80 bytes, instead of a CSV error quoting
// its whole first "line".
func TestGarbageFITSNamedFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	b := make([]byte, 5000)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	p := filepath.Join(t.TempDir(), "kplr000000001-2009350155506_llc.fits")
	os.WriteFile(p, b, 0o644)
	_, err := ReadLightCurve(p)
	if err == nil || !strings.Contains(err.Error(), "not a FITS file (it starts with") || len(err.Error()) > 500 {
		t.Errorf("%d bytes: %v", len(err.Error()), err)
	}
	// The same bytes named .csv give a CSV error whose quoted header is cut to 80 bytes.
	q := filepath.Join(t.TempDir(), "lc.csv")
	os.WriteFile(q, b, 0o644)
	if _, err := ReadLightCurve(q); err == nil || len(err.Error()) > 600 {
		t.Errorf("%d bytes: %v", len(err.Error()), err)
	}
}
