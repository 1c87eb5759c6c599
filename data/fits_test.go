package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"transitbench/engine/lc"
	"transitbench/engine/stat"
	"transitbench/internal/testutil"
)

// keplerDir holds three real Kepler-90 (KIC 11442793) long-cadence files, DR25 (see ../shared/data/README.md).
const keplerDir = "../../shared/data/kepler/fits/kic011442793"

// kepler90Quarters are the facts of the three files as astropy 5.2.1 reads them
// (astropy.io.fits: len(TIME), TIME[isfinite(TIME)][0] and [-1], counts of finite and valid PDCSAP_FLUX, and
// numpy.median of PDCSAP_FLUX over valid cadences, valid = finite TIME and flux, SAP_QUALITY & default mask 0;
// relErr is stat.Median(PDCSAP_FLUX_ERR) / stat.Median(PDCSAP_FLUX) over the same cadences).
var kepler90Quarters = []struct {
	file              string
	quarter           int
	rows, kept        int // table rows; rows with a finite TIME
	finiteFlux, valid int
	first, last       float64
	medianFlux        float64 // e⁻/s
	relErr            float64
}{
	{"kplr011442793-2009350155506_llc.fits", 3, 4370, 4228, 4134, 4134, 260.2241719882586, 349.4959231954781, 39939.177734375, 0.0001676543403140641},
	{"kplr011442793-2010009091648_llc.fits", 4, 1021, 1021, 1008, 1008, 352.37699388519104, 373.2189587726825, 43252.470703125, 0.00019211739948274496},
	{"kplr011442793-2010174085026_llc.fits", 5, 4634, 4538, 4486, 4486, 443.4908437049962, 538.1623755153923, 39273.875, 0.0001766326271587778},
}

func keplerPath(t testing.TB, i int) string {
	t.Helper()
	p := filepath.Join(keplerDir, kepler90Quarters[i].file)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
	}
	return p
}

// lightCurveFile returns the bytes of the second Kepler-90 file and the end of its LIGHTCURVE extension.
func lightCurveFile(t testing.TB) (raw []byte, end int) {
	t.Helper()
	raw, err := os.ReadFile(keplerPath(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if end, err = fitsLayout(raw, "LIGHTCURVE"); err != nil {
		t.Fatal(err)
	}
	return raw, end
}

func countFinite(c *lc.LightCurve) (finite, valid int) {
	for i := range c.Flux {
		if stat.Finite(c.Flux[i]) {
			finite++
		}
		if c.Good(i, lc.DefaultQualityMask) {
			valid++
		}
	}
	return
}

func assertSorted(t *testing.T, c *lc.LightCurve) {
	t.Helper()
	for i := 1; i < c.Len(); i++ {
		if !(c.Time[i] > c.Time[i-1]) {
			t.Fatalf("times not strictly increasing at %d: %v then %v", i, c.Time[i-1], c.Time[i])
		}
	}
}

func TestReadKeplerFITSFileQuarters(t *testing.T) {
	for i, q := range kepler90Quarters {
		c, h, err := ReadKeplerFITSFile(keplerPath(t, i))
		if err != nil {
			t.Fatal(err)
		}
		if h.KeplerID != 11442793 || h.Quarter != q.quarter {
			t.Errorf("%s: KEPLERID %d QUARTER %d, want 11442793, %d", q.file, h.KeplerID, h.Quarter, q.quarter)
		}
		if h.Rows != q.rows || h.NaNTimes != q.rows-q.kept || c.Len() != q.kept {
			t.Errorf("%s: rows %d, NaN times %d, kept %d; want %d, %d, %d", q.file, h.Rows, h.NaNTimes, c.Len(), q.rows, q.rows-q.kept, q.kept)
		}
		if first, last := c.Span(); first != q.first || last != q.last {
			t.Errorf("%s: span %.10f–%.10f, want %.10f–%.10f", q.file, first, last, q.first, q.last)
		}
		if f, v := countFinite(c); f != q.finiteFlux || v != q.valid {
			t.Errorf("%s: %d finite and %d valid flux values, want %d and %d", q.file, f, v, q.finiteFlux, q.valid)
		}
		if math.Abs(h.MedianFlux/q.medianFlux-1) > 1e-12 {
			t.Errorf("%s: median flux %v, want %v", q.file, h.MedianFlux, q.medianFlux)
		}
		// Primary-header stellar parameters of KIC 11442793 (KEPMAG 13.804, TEFF 5970 K, as astropy prints them).
		if h.Kepmag != 13.804 || h.Teff != 5970 {
			t.Errorf("%s: KEPMAG %v TEFF %v, want 13.804 and 5970", q.file, h.Kepmag, h.Teff)
		}
		assertSorted(t, c)
		for j := range c.Flux {
			if math.IsNaN(c.Flux[j]) != math.IsNaN(c.FluxErr[j]) {
				t.Fatalf("%s: cadence %d has flux %v but error %v", q.file, j, c.Flux[j], c.FluxErr[j])
			}
		}
	}
}

func TestReadKeplerFITSStitch(t *testing.T) {
	// Given out of order on purpose: the result must still be sorted.
	c, err := ReadKeplerFITS(keplerPath(t, 2), keplerPath(t, 0), keplerPath(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, q := range kepler90Quarters {
		want += q.kept
	}
	if c.Len() != want {
		t.Fatalf("stitched %d cadences, want %d", c.Len(), want)
	}
	assertSorted(t, c)
	for _, q := range kepler90Quarters {
		var v, e []float64
		for i := range c.Time {
			if c.Time[i] >= q.first && c.Time[i] <= q.last && c.Good(i, lc.DefaultQualityMask) {
				v = append(v, c.Flux[i])
				e = append(e, c.FluxErr[i])
			}
		}
		if len(v) != q.valid {
			t.Errorf("Q%d: %d valid cadences after stitching, want %d", q.quarter, len(v), q.valid)
		}
		if m := stat.Median(v); math.Abs(m-1) > 1e-12 {
			t.Errorf("Q%d: median normalised flux %v, want 1", q.quarter, m)
		}
		// The relative error is PDCSAP_FLUX_ERR divided by the same median: ≈ 1.7·10⁻⁴ for this Kp 13.8 star
		// (shot noise alone is 1/√(40,000 e⁻/s · 1766 s) ≈ 1.2·10⁻⁴).
		if m := stat.Median(e); math.Abs(m/q.relErr-1) > 1e-9 {
			t.Errorf("Q%d: median relative flux error %v, want %v", q.quarter, m, q.relErr)
		}
	}
}

func TestReadLightCurveDetectsFITS(t *testing.T) {
	c, err := ReadLightCurve(keplerPath(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != kepler90Quarters[1].kept || math.Abs(stat.Median(append([]float64(nil), validFlux(c)...))-1) > 1e-12 {
		t.Errorf("ReadLightCurve on a FITS file: %d cadences, want %d, normalised", c.Len(), kepler90Quarters[1].kept)
	}
}

func validFlux(c *lc.LightCurve) []float64 {
	var v []float64
	for i := range c.Flux {
		if c.Good(i, lc.DefaultQualityMask) {
			v = append(v, c.Flux[i])
		}
	}
	return v
}

// damaged writes a modified copy of the Q4 file into a temporary directory and returns its path.
func damaged(t *testing.T, modify func([]byte) []byte) string {
	t.Helper()
	raw, err := os.ReadFile(keplerPath(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "kplr011442793-2010009091648_llc.fits")
	if err := os.WriteFile(p, modify(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// replaceCard overwrites the 80-byte header card starting with key (the first after offset from) by card.
func replaceCard(t *testing.T, raw []byte, key, card string) []byte {
	t.Helper()
	i := bytes.Index(raw, []byte(key))
	if i < 0 || i%80 != 0 {
		t.Fatalf("card %q not found at a card boundary", key)
	}
	copy(raw[i:i+80], []byte(card+strings.Repeat(" ", 80-len(card))))
	return raw
}

func TestReadKeplerFITSDamaged(t *testing.T) {
	// swap returns the damage that overwrites the header card starting with key by card.
	swap := func(key, card string) func([]byte) []byte {
		return func(b []byte) []byte { return replaceCard(t, b, key, card) }
	}
	cases := []struct {
		name   string
		modify func([]byte) []byte
		want   string // a phrase the error must contain
	}{
		{"empty", func(b []byte) []byte { return b[:0] }, "empty"},
		{"not FITS", func(b []byte) []byte { return []byte("this is some text, not a light curve\n") }, "FITS magic"},
		{"cut inside the primary header", func(b []byte) []byte { return b[:1000] }, "truncated"},
		// The primary HDU of these files is two header blocks and no data, so this cut lands on an HDU boundary.
		{"cut after the primary header", func(b []byte) []byte { return b[:2880*2] }, "may be truncated"},
		{"cut inside the table", func(b []byte) []byte { return b[:len(b)/2] }, "truncated"},
		{"cut off mid-block", func(b []byte) []byte { return b[:len(b)/2+17] }, "truncated"},
		{"rows grown past the file", swap("NAXIS2  =                 1021", "NAXIS2  =             99999999"), "truncated"},
		{"absurd row count", swap("NAXIS2  =                 1021", "NAXIS2  = 99999999999999999999"), "NAXIS2"},
		{"absurd field count", swap("TFIELDS =                   20", "TFIELDS =           2000000000"), "TFIELDS"},
		{"not SIMPLE", swap("SIMPLE  =                    T", "SIMPLE  =                    F"), "SIMPLE"},
		{"flux column renamed", swap("TTYPE8  = 'PDCSAP_FLUX'", "TTYPE8  = 'PDCSAP_FLUY'"), "no PDCSAP_FLUX column"},
		{"time column of text", swap("TFORM1  = 'D       '", "TFORM1  = '8A      '"), "TIME"},
		{"no LIGHTCURVE extension", swap("EXTNAME = 'LIGHTCURVE'", "EXTNAME = 'SOMETHING '"), "no LIGHTCURVE extension"},
		{"no END card", func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("END"+strings.Repeat(" ", 77)), bytes.Repeat([]byte("X"), 80))
		}, "truncated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := damaged(t, tc.modify)
			_, _, err := ReadKeplerFITSFile(p)
			if err == nil {
				t.Fatal("damaged file read without error")
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q should name the file and say %q", err, tc.want)
			}
			if _, err := ReadLightCurve(p); err == nil {
				t.Error("ReadLightCurve read the damaged file")
			}
		})
	}
}

func TestReadKeplerFITSDamageAfterTableIgnored(t *testing.T) {
	// Cutting the file inside the APERTURE extension, which follows LIGHTCURVE, leaves the light curve whole.
	p := damaged(t, func(b []byte) []byte { return b[:len(b)-100] })
	c, _, err := ReadKeplerFITSFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != kepler90Quarters[1].kept {
		t.Errorf("%d cadences, want %d", c.Len(), kepler90Quarters[1].kept)
	}
}

func TestReadKeplerFITSAllNaNFlux(t *testing.T) {
	p := damaged(t, func(b []byte) []byte {
		end, err := fitsLayout(b, "LIGHTCURVE")
		if err != nil {
			t.Fatal(err)
		}
		// LIGHTCURVE rows are 100 bytes (NAXIS1); PDCSAP_FLUX (TFORM8 = E) starts at byte 32 of a row:
		// D(8) + E(4) + J(4) + 4 × E(4) before it.
		const rowBytes, fluxOffset, rows = 100, 32, 1021
		start := end - (rows*rowBytes+fitsBlock-1)/fitsBlock*fitsBlock
		for r := range rows {
			binary.BigEndian.PutUint32(b[start+r*rowBytes+fluxOffset:], math.Float32bits(float32(math.NaN())))
		}
		return b
	})
	_, _, err := ReadKeplerFITSFile(p)
	if !errors.Is(err, ErrNoValidCadences) || !strings.Contains(err.Error(), p) {
		t.Errorf("all-NaN flux: error %v, want ErrNoValidCadences naming the file", err)
	}
}

func TestReadKeplerFITSRandomDamageNeverPanics(t *testing.T) {
	raw, end := lightCurveFile(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		b := append([]byte(nil), raw[:end]...)
		// Damage concentrated on the headers, where the decoder trusts what it reads.
		for range 1 + rng.IntN(8) {
			i := rng.IntN(4 * fitsBlock)
			if rng.IntN(4) == 0 {
				i = rng.IntN(len(b))
			}
			b[i] = byte(rng.IntN(256))
		}
		if rng.IntN(3) == 0 {
			b = b[:rng.IntN(len(b))]
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("iteration %d: panic %v", iter, r)
				}
			}()
			c, _, err := decodeKeplerFITS(b, "damaged.fits")
			if err == nil {
				if verr := c.Validate(); verr != nil {
					t.Fatalf("iteration %d: %v", iter, verr)
				}
			}
		}()
	}
}

// checkParsed asserts what every successful read guarantees: equal column lengths, strictly increasing
// finite times and at least one finite flux.
func checkParsed(t *testing.T, c *lc.LightCurve) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	finite := 0
	for i := range c.Time {
		if !stat.Finite(c.Time[i]) || i > 0 && !(c.Time[i] > c.Time[i-1]) {
			t.Fatalf("time %v at %d is not finite and increasing", c.Time[i], i)
		}
		if stat.Finite(c.Flux[i]) {
			finite++
		}
	}
	if finite == 0 {
		t.Fatal("read succeeded without a finite flux")
	}
}

// BenchmarkReadKeplerFITS stitches the three Kepler-90 quarters (10,025 table rows).
func BenchmarkReadKeplerFITS(b *testing.B) {
	paths := []string{keplerPath(b, 0), keplerPath(b, 1), keplerPath(b, 2)}
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		if _, err := ReadKeplerFITS(paths...); err != nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, start)
}

func TestReadKeplerFITSGzip(t *testing.T) {
	raw, err := os.ReadFile(keplerPath(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	dir := t.TempDir()
	p := filepath.Join(dir, "kplr011442793-2010009091648_llc.fits.gz")
	if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	plain, err := ReadLightCurve(keplerPath(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadLightCurve(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != plain.Len() || c.Time[7] != plain.Time[7] || c.Flux[7] != plain.Flux[7] {
		t.Errorf("gzip-compressed file reads differently: %d cadences, want %d", c.Len(), plain.Len())
	}
	cut := filepath.Join(dir, "cut.fits.gz")
	if err := os.WriteFile(cut, z.Bytes()[:z.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLightCurve(cut); err == nil || !strings.Contains(err.Error(), "does not decompress") {
		t.Errorf("truncated gzip file: %v", err)
	}
}

func TestReadKeplerFITSRefusesMixedStars(t *testing.T) {
	other := damaged(t, func(b []byte) []byte {
		return replaceCard(t, b, "KEPLERID=             11442793", "KEPLERID=             11442794")
	})
	_, err := ReadKeplerFITS(keplerPath(t, 0), other)
	if err == nil || !strings.Contains(err.Error(), "KIC 11442794") || !strings.Contains(err.Error(), "one star") {
		t.Errorf("quarters of two stars stitched: %v", err)
	}
}

// cutFITS returns a Kepler light-curve file (primary HDU, LIGHTCURVE table) cut to its first rows table rows:
// NAXIS2 is rewritten and the data padded with zeros to a whole block, so the result is a valid smaller file.
func cutFITS(t testing.TB, raw []byte, rows int) []byte {
	t.Helper()
	card := func(hdr []byte, key string) (int, string) {
		for i := 0; i+80 <= len(hdr); i += 80 {
			if strings.TrimSpace(string(hdr[i:i+8])) == key {
				return i, strings.TrimSpace(string(hdr[i+10 : i+30]))
			}
		}
		t.Fatalf("no card %s", key)
		return 0, ""
	}
	// The primary header has no data (NAXIS = 0); the table's header ends at the block holding its END.
	prim := bytes.Index(raw, []byte("XTENSION="))
	endCard := prim
	for ; string(raw[endCard:endCard+3]) != "END" || endCard%80 != 0; endCard += 80 {
	}
	hdrEnd := (endCard/fitsBlock + 1) * fitsBlock
	hdr := append([]byte(nil), raw[:hdrEnd]...)
	_, w := card(hdr[prim:], "NAXIS1")
	width, err := strconv.Atoi(w)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := card(hdr[prim:], "NAXIS2")
	copy(hdr[prim+i:prim+i+80], fmt.Sprintf("%-8s= %20d", "NAXIS2", rows)+strings.Repeat(" ", 50))
	data := append([]byte(nil), raw[hdrEnd:hdrEnd+rows*width]...)
	data = append(data, make([]byte, (fitsBlock-len(data)%fitsBlock)%fitsBlock)...)
	return append(hdr, data...)
}

func FuzzDecodeKeplerFITS(f *testing.F) {
	raw, end := lightCurveFile(f)
	// Small seeds keep the mutator fast: the real file cut to its first rows (NAXIS2 rewritten, the table padded
	// to whole blocks), the primary header alone, and the cut file missing its last block.
	for _, rows := range []int{40, 200} {
		cut := cutFITS(f, raw[:end], rows)
		if _, h, err := decodeKeplerFITS(cut, "cut.fits"); err != nil || h.Rows != rows {
			f.Fatalf("the file cut to %d rows does not read: %d rows, %v", rows, h.Rows, err)
		}
		f.Add(cut)
	}
	f.Add(raw[:2*fitsBlock])
	small := cutFITS(f, raw[:end], 40)
	f.Add(small[:len(small)-fitsBlock])
	f.Fuzz(func(t *testing.T, b []byte) {
		c, h, err := decodeKeplerFITS(b, "fuzz.fits")
		if err != nil {
			// One short line: the file's name, at most maxDetailBytes of what came from the file or the decoder.
			if msg := err.Error(); !strings.Contains(msg, "fuzz.fits") || len(msg) > 400 || strings.Contains(msg, "\n") {
				t.Fatalf("error of %d bytes %q: want one line naming the file", len(msg), msg)
			}
			return
		}
		checkParsed(t, c)
		if c.Len() > h.Rows || h.NaNTimes > h.Rows || !(h.MedianFlux > 0) {
			t.Fatalf("%d cadences from %d rows (%d NaN times), median flux %g", c.Len(), h.Rows, h.NaNTimes, h.MedianFlux)
		}
	})
}
