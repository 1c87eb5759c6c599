package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
	"transitbench/engine/transit"
)

// vetJSON runs 'transitbench vet ARGS --json' and decodes its output.
func vetJSON(t *testing.T, args ...string) vetReport {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs(append([]string{"vet", "--json"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("vet %v: %v", args, err)
	}
	var rep vetReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("vet --json is not JSON: %v\n%s", err, out.String())
	}
	return rep
}

// writePlanetCSV writes a year of 150-ppm white noise around 1 with a slow trend, a flagged cadence every 3 d
// (quality 32, flux spoiled), and a 2.7-R⊕ planet on a 5.3-d orbit around the Sun (MES ≈ 50).
func writePlanetCSV(t *testing.T) (path string, p transit.Params) {
	p = transit.Params{PeriodDays: 5.3, T0Days: 133.3, RpRs: 0.025, ARs: transit.ARs(5.3, 1, 1), B: 0.3, U1: 0.4, U2: 0.26}
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("time,flux,flux_err,quality\n")
	n := 17600
	times := make([]float64, n)
	for i := range times {
		times[i] = 131.5 + float64(i)*lc.CadenceDays
	}
	model := make([]float64, n)
	p.Flux(model, times)
	for i, ti := range times {
		f := (1 + 0.002*math.Sin(ti/20)) * model[i] * (1 + 150e-6*rng.NormFloat64())
		q := 0
		if i%147 == 0 {
			q, f = 32, 0.9
		}
		fmt.Fprintf(&b, "%.7f,%.8f,0.00015,%d\n", ti, f, q)
	}
	path = filepath.Join(t.TempDir(), "planet.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, p
}

// writePlanetStarDir writes the light curve of writePlanetCSV with star st into a new star directory and returns
// the directory and the planet.
func writePlanetStarDir(t *testing.T, st *data.Star) (dir string, p transit.Params) {
	t.Helper()
	csv, p := writePlanetCSV(t)
	c, err := data.ReadLightCurve(csv)
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "star")
	if err := data.WriteStarDir(dir, c, st); err != nil {
		t.Fatal(err)
	}
	return dir, p
}

func TestVetPlanet(t *testing.T) {
	path, p := writePlanetCSV(t)
	rep := vetJSON(t, path, "--period", "5.3", "--t0", "133.3", "--duration", fmt.Sprint(p.DurationDays()),
		"--radius", "1", "--mass", "1")
	f := rep.Features
	if rep.ValidCadences != 17600-120 { // 120 cadences carry quality 32 (every 147th of 17,600)
		t.Errorf("valid cadences %d, want %d", rep.ValidCadences, 17600-120)
	}
	if f.MES < 30 || f.NTransits < 60 {
		t.Errorf("MES %.1f with %d transits: the planet should stand out", f.MES, f.NTransits)
	}
	if f.OddEvenSigma > 3 || f.SecondaryMES > 5 || f.VShape > 0.4 || f.SingleEventFraction > 0.1 {
		t.Errorf("a planet should look like one: %+v", f)
	}
	if f.DurationRatio < 0.85 || f.DurationRatio > 1.05 {
		t.Errorf("duration ratio %.2f, want ≈ 0.95 (b = 0.3)", f.DurationRatio)
	}
}

// TestVetKepler77 vets Kepler-77 b on its whole-mission DV light curve: the trapezoid's depth against the
// KOI table's fitted depth (koi_depth 11,382 ppm for K00127.01, duration 2.91089 h).
func TestVetKepler77(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "kepler", "dv", "KIC008359498.tbl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	rep := vetJSON(t, path, "--period", "3.578780566", "--t0", "134.0304187", "--duration", fmt.Sprint(2.91089/24))
	f := rep.Features
	if math.Abs(f.TrapezoidDepth/11382e-6-1) > 0.1 {
		t.Errorf("trapezoid depth %.0f ppm, KOI depth 11,382 ppm", f.TrapezoidDepth*1e6)
	}
	if f.SecondaryMES > 7.1 || f.SingleEventFraction > 0.05 || f.VShape > 0.6 {
		t.Errorf("a confirmed hot Jupiter should pass: %+v", f)
	}
}

// TestVetStarDir reads a star directory: the stellar radius and mass come from its star.json.
func TestVetStarDir(t *testing.T) {
	dir, p := writePlanetStarDir(t, &data.Star{ID: "s1", Teff: 5772, Logg: 4.44, RadiusRsun: 1, MassMsun: 1,
		CadenceDays: lc.CadenceDays, TimeSystem: "BKJD"})
	rep := vetJSON(t, dir, "--period", "5.3", "--t0", "133.3", "--duration", fmt.Sprint(p.DurationDays()))
	if rep.RadiusRsun != 1 || rep.MassMsun != 1 || rep.Features.DurationRatio == 0 {
		t.Errorf("star.json not used: radius %v, mass %v, duration ratio %v", rep.RadiusRsun, rep.MassMsun, rep.Features.DurationRatio)
	}
}

// TestVetKeplerFITS stitches the three Kepler-90 quarters (Q3–Q5) and vets Kepler-90 d (K00351.03: P 59.737 d,
// t0 158.960, T14 8.0 h, koi_depth 566 ppm), which transits twice in them.
func TestVetKeplerFITS(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "data", "kepler", "fits", "kic011442793", "*.fits"))
	if len(files) != 3 {
		t.Skipf("reference data not available (%d files)", len(files))
	}
	rep := vetJSON(t, append(files, "--period", "59.7371443", "--t0", "158.95974", "--duration", fmt.Sprint(8.0006/24))...)
	f := rep.Features
	if f.NTransits < 2 || f.MES < 7.1 {
		t.Errorf("Kepler-90 d: %d transits, MES %.1f; want ≥ 2 and a detection", f.NTransits, f.MES)
	}
	// The box depth over T14 is below the fitted depth; allow for the limb-darkened shape and the noise.
	if f.Depth < 0.5*566e-6 || f.Depth > 1.2*566e-6 {
		t.Errorf("Kepler-90 d depth %.0f ppm, KOI depth 566 ppm", f.Depth*1e6)
	}
}

func TestVetUsage(t *testing.T) {
	path, _ := writePlanetCSV(t)
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"vet", path, "--t0", "133.3", "--duration", "0.13"}, 2},                            // no --period
		{[]string{"vet", path, "--period", "5.3", "--duration", "0.13"}, 2},                          // no --t0
		{[]string{"vet", path, "--period", "5.3", "--t0", "133.3"}, 2},                               // no --duration
		{[]string{"vet", "--period", "5.3", "--t0", "133.3", "--duration", "0.13"}, 2},               // no file
		{[]string{"vet", path, "--period", "-1", "--t0", "133.3", "--duration", "0.13"}, 2},          // bad period
		{[]string{"vet", path + ".missing", "--period", "5.3", "--t0", "1", "--duration", "0.1"}, 2}, // no such file
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("run(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}
