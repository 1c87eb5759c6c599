package data

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/engine/lc"
	"transitbench/internal/testutil"
)

func kepler90Star() *Star {
	// KIC 11442793's primary-header values (KEPMAG 13.804, TEFF 5970, LOGG 4.317, RADIUS 1.2); the mass and
	// CDPP values are illustrative.
	return &Star{ID: "kic011442793", Kepmag: 13.804, Teff: 5970, Logg: 4.317, RadiusRsun: 1.2, MassMsun: 1.1,
		CDPPppm: map[string]float64{"3.0": 90.5, "6.0": 64.25, "12.0": 47}, CadenceDays: lc.CadenceDays, TimeSystem: "BKJD"}
}

func TestStarDirRoundTripRealData(t *testing.T) {
	c, err := ReadKeplerFITS(keplerPath(t, 0), keplerPath(t, 1), keplerPath(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	s := kepler90Star()
	dir := filepath.Join(t.TempDir(), "star")
	if err := WriteStarDir(dir, c, s); err != nil {
		t.Fatal(err)
	}
	back, s2, err := ReadStarDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != c.Len() {
		t.Fatalf("%d cadences back, wrote %d", back.Len(), c.Len())
	}
	for i := range c.Time {
		// %.7f rounds time to 5·10⁻⁸ d; %.9g rounds flux to 5·10⁻⁹ relative.
		if math.Abs(back.Time[i]-c.Time[i]) > 5.1e-8 || !closeRel(back.Flux[i], c.Flux[i], 5.1e-9) ||
			!closeRel(back.FluxErr[i], c.FluxErr[i], 5.1e-9) || back.Quality[i] != c.Quality[i] {
			t.Fatalf("cadence %d: wrote %v %v %v %d, read %v %v %v %d", i, c.Time[i], c.Flux[i], c.FluxErr[i], c.Quality[i],
				back.Time[i], back.Flux[i], back.FluxErr[i], back.Quality[i])
		}
	}
	if s2.ID != s.ID || s2.Kepmag != s.Kepmag || s2.CDPPppm["6.0"] != 64.25 || s2.TimeSystem != "BKJD" || s2.CadenceDays != s.CadenceDays {
		t.Errorf("star.json round trip: %+v, want %+v", s2, s)
	}
	// ReadLightCurve on the directory reads the same light curve.
	via, err := ReadLightCurve(dir)
	if err != nil || via.Len() != back.Len() {
		t.Errorf("ReadLightCurve(dir): %v", err)
	}
}

func closeRel(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Abs(b)
}

func TestWriteStarDirExactBytes(t *testing.T) {
	c := &lc.LightCurve{
		Time:    []float64{131.51234624, 131.5327809, -0.5},
		Flux:    []float64{1.00012345678, math.NaN(), 0.5},
		FluxErr: []float64{0.000123456789, math.NaN(), math.Inf(1)},
		Quality: []int32{0, 1024, 131072},
	}
	s := &Star{ID: "dev-0001", CDPPppm: map[string]float64{"6.0": 100, "12.0": 70, "3.0": 140}, TimeSystem: "BKJD"}
	// Worked by hand from the documented formats: %.7f time, %.9g flux and error, nan/inf spelled out.
	wantCSV := "time,flux,flux_err,quality\n" +
		"131.5123462,1.00012346,0.000123456789,0\n" +
		"131.5327809,nan,nan,1024\n" +
		"-0.5000000,0.5,inf,131072\n"
	// encoding/json sorts map keys as strings: "12.0" < "3.0" < "6.0".
	wantStar := `{
  "id": "dev-0001",
  "kepmag": 0,
  "teff": 0,
  "logg": 0,
  "radius_rsun": 0,
  "mass_msun": 0,
  "cdpp_ppm": {
    "12.0": 70,
    "3.0": 140,
    "6.0": 100
  },
  "cadence_days": 0,
  "time_system": "BKJD"
}
`
	dir := t.TempDir()
	if err := WriteStarDir(dir, c, s); err != nil {
		t.Fatal(err)
	}
	gotCSV, _ := os.ReadFile(filepath.Join(dir, LightCurveFile))
	gotStar, _ := os.ReadFile(filepath.Join(dir, StarFile))
	if string(gotCSV) != wantCSV {
		t.Errorf("lightcurve.csv:\n%s\nwant:\n%s", gotCSV, wantCSV)
	}
	if string(gotStar) != wantStar {
		t.Errorf("star.json:\n%s\nwant:\n%s", gotStar, wantStar)
	}
	csv, js, err := EncodeStarDir(c, s)
	if err != nil || !bytes.Equal(csv, gotCSV) || !bytes.Equal(js, gotStar) {
		t.Errorf("EncodeStarDir differs from the files written (%v)", err)
	}
}

func TestWriteStarDirDeterministic(t *testing.T) {
	c := synthCurve(17600, 7)
	s := kepler90Star()
	var first []byte
	for i := range 3 {
		dir := filepath.Join(t.TempDir(), "s")
		if err := WriteStarDir(dir, c, s); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, LightCurveFile))
		j, _ := os.ReadFile(filepath.Join(dir, StarFile))
		b = append(b, j...)
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatal("two writes of the same star differ")
		}
	}
	// Rewriting over an existing directory replaces the files.
	dir := filepath.Join(t.TempDir(), "s")
	if err := WriteStarDir(dir, synthCurve(100, 1), s); err != nil {
		t.Fatal(err)
	}
	if err := WriteStarDir(dir, c, s); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadStarDir(dir)
	if err != nil || back.Len() != 17600 {
		t.Fatalf("rewrite: %v, %d cadences", err, back.Len())
	}
}

func TestStarDirErrors(t *testing.T) {
	dir := t.TempDir()
	c := synthCurve(10, 1)
	if err := WriteStarDir(dir, nil, kepler90Star()); err == nil {
		t.Error("nil light curve accepted")
	}
	bad := &lc.LightCurve{Time: []float64{1, 2}, Flux: []float64{1}}
	if err := WriteStarDir(dir, bad, kepler90Star()); err == nil {
		t.Error("ragged light curve accepted")
	}
	nanStar := kepler90Star()
	nanStar.Teff = math.NaN()
	if err := WriteStarDir(dir, c, nanStar); err == nil {
		t.Error("a NaN in star.json accepted (JSON has no NaN)")
	}
	if _, _, err := ReadStarDir(dir); err == nil || !strings.Contains(err.Error(), "no lightcurve.csv") {
		t.Errorf("empty directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, LightCurveFile), AppendCSV(nil, c), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadStarDir(dir); err == nil || !strings.Contains(err.Error(), "no star.json") {
		t.Errorf("directory without star.json: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, StarFile), []byte(`{"id": 7`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadStarDir(dir); err == nil || !strings.Contains(err.Error(), "star.json") {
		t.Errorf("broken star.json: %v", err)
	}
}

// synthCurve returns n Kepler-like cadences: BKJD times from 131.5 at the long cadence, white noise of 100 ppm,
// 1 % NaN flux and 5 % flagged cadences.
func synthCurve(n int, seed uint64) *lc.LightCurve {
	rng := rand.New(rand.NewPCG(seed, 99))
	c := &lc.LightCurve{Time: make([]float64, n), Flux: make([]float64, n), FluxErr: make([]float64, n), Quality: make([]int32, n)}
	for i := range n {
		c.Time[i] = 131.5 + float64(i)*lc.CadenceDays
		c.Flux[i] = 1 + 1e-4*rng.NormFloat64()
		c.FluxErr[i] = 1e-4 * (1 + 0.01*rng.Float64())
		if rng.IntN(100) == 0 {
			c.Flux[i], c.FluxErr[i] = math.NaN(), math.NaN()
		}
		if rng.IntN(20) == 0 {
			c.Quality[i] = lc.QDesaturation
		}
	}
	return c
}

// BenchmarkWriteStarDir writes a year-long star (17.6 k cadences, the size of a simulated star) to disk.
func BenchmarkWriteStarDir(b *testing.B) {
	c := synthCurve(17600, 3)
	s := kepler90Star()
	dir := b.TempDir()
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		if err := WriteStarDir(dir, c, s); err != nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, start)
}

// BenchmarkAppendCSV formats the same star into a reused buffer, without the file system.
func BenchmarkAppendCSV(b *testing.B) { benchmarkAppendCSV(b, synthCurve(17600, 3)) }

// BenchmarkAppendCSVSimulated formats a star whose flux_err is the same on every cadence, as the simulator's
// stars are.
func BenchmarkAppendCSVSimulated(b *testing.B) {
	c := synthCurve(17600, 3)
	for i := range c.FluxErr {
		c.FluxErr[i] = 1.23456789e-4
	}
	benchmarkAppendCSV(b, c)
}

func benchmarkAppendCSV(b *testing.B, c *lc.LightCurve) {
	buf := make([]byte, 0, 1<<20)
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		buf = AppendCSV(buf[:0], c)
	}
	testutil.ReportCPU(b, start)
	b.SetBytes(int64(len(buf)))
}

// BenchmarkReadStarDir reads the star back.
func BenchmarkReadStarDir(b *testing.B) {
	dir := b.TempDir()
	if err := WriteStarDir(dir, synthCurve(17600, 3), kepler90Star()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		if _, _, err := ReadStarDir(dir); err != nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, start)
}
