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
	"transitbench/data/kepref"
	"transitbench/engine/lc"
	"transitbench/engine/pipeline"
	"transitbench/engine/transit"
	"transitbench/workspace/baselines"
)

// writeBoxCSV writes a 90-day light curve at the Kepler cadence with 200 ppm white noise and a 1000 ppm,
// 0.15 d box transit every 4.2 d from t0 = 171.3 BKJD, in the CSV format of a star directory.
func writeBoxCSV(t *testing.T) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("time,flux,flux_err,quality\n")
	for x := 170.0; x < 260; x += 29.4244 / 1440 {
		f := 1 + 200e-6*rng.NormFloat64()
		if math.Abs(math.Remainder(x-171.3, 4.2)) < 0.075 {
			f -= 1000e-6
		}
		fmt.Fprintf(&b, "%.7f,%.8f,%.8f,0\n", x, f, 200e-6)
	}
	path := filepath.Join(t.TempDir(), "lc.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBLSCommandJSON(t *testing.T) {
	path := writeBoxCSV(t)
	for _, extra := range [][]string{
		{"--pmin", "1", "--pmax", "20", "--periods", "3000", "--durations", "0.1,0.15,0.2", "--no-detrend"},
		{"--objective", "likelihood"}, // default grid, detrended
	} {
		var v blsJSON
		executeJSON(t, &v, append([]string{"bls", path, "--json", "--peaks", "3"}, extra...)...)
		if v.NPoints != 4405 || v.NPeriods == 0 || v.NDurations == 0 || !(v.Seconds > 0) || len(v.Peaks) == 0 {
			t.Fatalf("%v: unexpected summary %+v", extra, v)
		}
		p := v.Peaks[0]
		if math.Abs(p.PeriodDays/4.2-1) > 1e-3 || math.Abs(math.Remainder(p.T0Days-171.3, 4.2)) > 0.075 {
			t.Errorf("%v: strongest peak P = %.5f, t0 = %.4f; planted 4.2 d at 171.3", extra, p.PeriodDays, p.T0Days)
		}
		for i := 1; i < len(v.Peaks); i++ {
			if v.Peaks[i].Power > v.Peaks[i-1].Power {
				t.Errorf("%v: peaks not strongest first: %v", extra, v.Peaks)
			}
		}
	}
	// The same JSON keys as documented.
	out, _, _ := execute("bls", path, "--json", "--pmin", "1", "--pmax", "20", "--periods", "500", "--durations", "0.15")
	for _, key := range []string{`"n_points"`, `"n_periods"`, `"n_durations"`, `"seconds"`, `"peaks"`, `"period_days"`,
		`"t0_days"`, `"duration_days"`, `"depth"`, `"depth_err"`, `"snr"`, `"power"`, `"n_transits"`} {
		if !strings.Contains(out, key) {
			t.Errorf("bls --json lacks %s", key)
		}
	}
}

func TestBLSAndFoldExitCodes(t *testing.T) {
	path := writeBoxCSV(t)
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"bls", path, "--pmin", "1", "--pmax", "20", "--periods", "200", "--durations", "0.1"}, 0},
		{[]string{"bls", path, "--pmin", "3", "--pmax", "2"}, 2},
		{[]string{"bls", path, "--durations", "0.1,x"}, 2},
		{[]string{"bls", path, "--durations", "0.1,-0.2"}, 2},
		{[]string{"bls", path, "--pmin", "0.5", "--durations", "0.6"}, 2},
		{[]string{"bls", path, "--objective", "chi2"}, 2},
		{[]string{"bls", path, "--peaks", "0"}, 2},
		{[]string{"bls"}, 2},
		{[]string{"bls", filepath.Join(t.TempDir(), "missing.csv")}, 2}, // not_found
		{[]string{"fold", path, "--period", "4.2", "--t0", "171.3"}, 0},
		{[]string{"fold", path, "--period", "4.2"}, 2},
		{[]string{"fold", path, "--t0", "171.3"}, 2},
		{[]string{"fold", path, "--period", "-1", "--t0", "171.3"}, 2},
		{[]string{"fold", path, "--period", "4.2", "--t0", "171.3", "--bins", "0"}, 2},
		{[]string{"fold", filepath.Join(t.TempDir(), "missing.csv"), "--period", "4.2", "--t0", "171.3"}, 2}, // not_found
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("transitbench %s: exit %d, want %d", strings.Join(c.args, " "), got, c.want)
		}
	}
}

func TestFoldCommandJSON(t *testing.T) {
	path := writeBoxCSV(t)
	var v foldJSON
	executeJSON(t, &v, "fold", path, "--period", "4.2", "--t0", "171.3", "--bins", "20", "--window", "1", "--json")
	if len(v.Bins) != 20 || v.NPoints != 4405 {
		t.Fatalf("want 20 bins of 4405 points, got %d bins, %d points", len(v.Bins), v.NPoints)
	}
	// Bins are 0.05 d wide over [−0.5, 0.5): the two central ones lie inside the 0.15 d box, the outer ones
	// well outside; the detrended depth is the planted 1000 ppm (within 5 standard errors).
	for _, j := range []int{9, 10} {
		b := v.Bins[j]
		if b.Flux == nil || math.Abs(*b.Flux-(1-1000e-6)) > 5**b.Err {
			t.Errorf("in-transit bin %d at %.3f d: flux %v, want 0.999", j, b.PhaseDays, b.Flux)
		}
	}
	for _, j := range []int{0, 1, 18, 19} {
		b := v.Bins[j]
		if b.Flux == nil || math.Abs(*b.Flux-1) > 5**b.Err {
			t.Errorf("out-of-transit bin %d at %.3f d: flux %v, want 1", j, b.PhaseDays, b.Flux)
		}
	}
}

// TestBLSPlanetsKepler90 runs `bls` on the folder of Kepler-90's quarters 3–5 with the five long-period planets
// (h, g, d, e, f of the KOI table, windows ≈ 2 × T14) masked and --planets 2 between 5 and 12 d: the two inner
// planets come out one after the other, b (7.008 d) and then c (8.720 d), each with a T14 fitted on the search's
// flux near the catalogue's (3.8 h, 3.7 h; the measurement's own T14, at MES 6–7, is logged), a measured MES above the stop rule asked for and no secondary or odd/even flag.
// The stop rule is lowered to MES 6: b's MES over these 270 d is about 43.5·√(270/1460)·(7.6/19) ≈ 7.6
// expected, measured 6.4 (a measured MES scatters by ±1 about the expected one). Without the masks, the long planets' deep single
// transits make the strongest peaks of that period range.
func TestBLSPlanetsKepler90(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	folder := filepath.Join(dir, "fits", "kic011442793")
	args := []string{"bls", folder, "--pmin", "5", "--pmax", "12", "--planets", "2", "--min-mes", "6", "--workers", "2", "--json",
		"--mask", "331.5972732,140.498929,1.2", "--mask", "210.6013843,147.056867,1.0", "--mask", "59.7371443,158.95974,0.67",
		"--mask", "91.9401253,134.3,0.77", "--mask", "124.922516,129.7295,1.0"}
	var res blsJSON
	out := executeJSON(t, &res, args...)
	if len(res.Masks) != 5 || len(res.Planets) != 2 {
		t.Fatalf("%d masks, %d planets: %s", len(res.Masks), len(res.Planets), out)
	}
	for i, want := range []struct{ p, t14 float64 }{{7.00822, 3.812}, {8.71980, 3.745}} {
		pl := res.Planets[i]
		m := pl.Measured
		t.Logf("planet %d: P %.5f d, measured T14 %.2f h, MES %.1f, secondary MES %.1f, odd/even %.1fσ; search fit T14 %.2f h",
			i+1, m.PeriodDays, 24*m.T14Days, m.MES, m.SecondaryMES, m.OddEvenSigma, 24*pl.Fit.T14Days)
		if math.Abs(m.PeriodDays/want.p-1) > 0.002 || math.Abs(24*pl.Fit.T14Days/want.t14-1) > 0.25 {
			t.Errorf("planet %d: P %.5f d, T14 %.2f h; want %.5f d, %.2f h", i+1, m.PeriodDays, 24*pl.Fit.T14Days, want.p, want.t14)
		}
		// Measured with the other planet masked too, at MES ≈ 6–7 (expected ≈ 7.6 ± 1 for b, 10 × 0.8 for c).
		if m.SecondaryMES >= 7.1 || m.OddEvenSigma >= 3 || m.MES < 4.5 {
			t.Errorf("planet %d flagged or not measured as a signal: %+v", i+1, m)
		}
	}
	var plain blsJSON
	if unmasked := executeJSON(t, &plain, "bls", folder, "--pmin", "5", "--pmax", "12", "--workers", "2", "--json"); len(plain.Peaks) == 0 {
		t.Fatalf("no peaks: %s", unmasked)
	}
	if math.Abs(plain.Peaks[0].PeriodDays/7.00822-1) < 0.002 {
		t.Errorf("without masks b is already the strongest peak: the masks show nothing")
	}
	if _, _, err := execute("bls", folder, "--mask", "1,2"); !isCode(err, codeUsage) {
		t.Errorf("--mask 1,2: %v, want a usage error", err)
	}
}

// TestFoldQuartersRefined folds Kepler-90's three quarter files, given one by one, at Kepler-90 d's catalogue
// ephemeris with a box of 6 h: the quarters are stitched (≈ 9,600 valid cadences) and --duration adds the
// refined statistics, whose fitted T14 is the catalogue's 8.0 h within 20 %.
func TestFoldQuartersRefined(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fits", "kic011442793", "*.fits"))
	args := append(append([]string{"fold"}, files...), "--period", "59.7371443", "--t0", "158.95974", "--duration", "0.25",
		"--window", "2", "--json")
	var res foldJSON
	executeJSON(t, &res, args...)
	if res.NPoints < 9000 || res.Measured == nil || math.Abs(24*res.Measured.T14Days/8.0-1) > 0.2 {
		t.Fatalf("%d points, measured %+v", res.NPoints, res.Measured)
	}
}

// vetJSON runs 'transitbench vet ARGS --json' and decodes its output.
func vetJSON(t *testing.T, args ...string) vetReport {
	t.Helper()
	var rep vetReport
	executeJSON(t, &rep, append([]string{"vet", "--json"}, args...)...)
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
	// The ratio is the fitted trapezoid's T14 over the central-transit T14: √((1+k)² − b²) = 0.98 for the
	// model, the trapezoid's T14 of a limb-darkened transit a few per cent longer.
	if f.DurationRatio < 0.9 || f.DurationRatio > 1.1 {
		t.Errorf("duration ratio %.2f, want ≈ 1 (b = 0.3)", f.DurationRatio)
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

func TestPipelineAndBaselinesUsage(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"pipeline", "no_such_pipeline", "."}, 2},
		{[]string{"pipeline", "naive_v0"}, 2},
		{[]string{"pipeline", "naive_v0", "/nonexistent-star-dir"}, 2},
		{[]string{"baselines", "--rows", "empty,nonsense", "--out", ""}, 2},
		{[]string{"baselines", "--limit", "-1", "--out", ""}, 2},
		{[]string{"baselines", "train-vetter", "--stars", "0"}, 2},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("run(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}

// TestTrainVetterWritesModelAndExamples trains the vetter on a 6-star train pool through the command line:
// the model file must load as a vetter, the examples CSV must hold one row per example of the report, and a
// pool smaller than --stars must be refused with the command that rebuilds it.
func TestTrainVetterWritesModelAndExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the vetter's search on six train-pool stars")
	}
	newHome(t)
	runCmd(t, "data", "build", "--set", "train", "--stars", "6")
	dir := t.TempDir()
	model, examples := filepath.Join(dir, "model.json"), filepath.Join(dir, "peaks.csv")
	var rep baselines.TrainReport
	out := runCmd(t, "baselines", "train-vetter", "--stars", "6", "--out", model, "--examples", examples, "--json")
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.ParseVetter(b); err != nil {
		t.Errorf("the written model does not load: %v", err)
	}
	f, err := os.Open(examples)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ex, err := baselines.ReadExamplesCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	if rep.StarsUsed != 6 || rep.Examples == 0 || len(ex) != rep.Examples {
		t.Errorf("report %+v, %d examples in the CSV", rep, len(ex))
	}
	if _, _, err := execute("baselines", "train-vetter", "--stars", "7", "--out", model); err == nil || !strings.Contains(err.Error(), "data build --set train --stars 7 --force") {
		t.Errorf("training on 7 stars of a 6-star pool: %v, want the rebuild command", err)
	}
}

// TestPipelineJSON: 'pipeline NAME STAR_DIR --json' prints the rows as objects, the same rows the plain
// output prints as CSV.
func TestPipelineJSON(t *testing.T) {
	dir, p := writePlanetStarDir(t, &data.Star{ID: "x-0000", Kepmag: 12, Teff: 5770, Logg: 4.44, RadiusRsun: 1, MassMsun: 1,
		CDPPppm: map[string]float64{"3.0": 100, "6.0": 70, "12.0": 50}, CadenceDays: lc.CadenceDays, TimeSystem: "BKJD"})
	var plain, js, errb bytes.Buffer
	if code := runIO([]string{"pipeline", "naive_v0", dir}, &plain, &errb); code != 0 {
		t.Fatalf("pipeline: exit %d: %s", code, errb.String())
	}
	if code := runIO([]string{"pipeline", "naive_v0", dir, "--json"}, &js, &errb); code != 0 {
		t.Fatalf("pipeline --json: exit %d: %s", code, errb.String())
	}
	var got struct {
		Pipeline string            `json:"pipeline"`
		Rows     []pipelineRowJSON `json:"rows"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("pipeline --json is not JSON: %v\n%s", err, js.String())
	}
	lines := strings.Split(strings.TrimSpace(plain.String()), "\n")[1:] // after the header
	if got.Pipeline != "naive_v0" || len(got.Rows) == 0 || len(got.Rows) != len(lines) {
		t.Fatalf("JSON rows %+v, CSV rows %q", got.Rows, lines)
	}
	for i, r := range got.Rows {
		if want := fmt.Sprintf("%.8f,%.8f,%.6g", r.PeriodDays, r.T0Days, r.Score); want != lines[i] {
			t.Errorf("row %d: JSON %s, CSV %s", i, want, lines[i])
		}
	}
	// The planet of the light curve (P = 5.3 d) is the pipeline's first row.
	if math.Abs(got.Rows[0].PeriodDays-p.PeriodDays) > 0.01*p.PeriodDays {
		t.Errorf("first row P = %g d, want %g d", got.Rows[0].PeriodDays, p.PeriodDays)
	}
}

// TestBLSSingleEventsKepler90 runs `bls` on Kepler-90's quarters 3–5 without options: the strongest peaks are
// the deep transits of the outer planets, one or two each in these 270 d. A peak with fewer than three transits
// is reported as a single event, never with a period: its events each at a mid-time with data under it (at least
// half the cadences of a full transit within ±T14/2 of it) and a depth; the text says "single event".
func TestBLSSingleEventsKepler90(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	folder := filepath.Join(dir, "fits", "kic011442793")
	var res blsJSON
	out := executeJSON(t, &res, "bls", folder, "--workers", "2", "--json")
	c, _, err := readInputs([]string{folder})
	if err != nil {
		t.Fatal(err)
	}
	singles := 0
	for i, p := range res.Peaks {
		if p.NTransits >= 3 {
			if p.Single || p.Measured == nil {
				t.Errorf("peak %d (%d transits) reported as a single event", i+1, p.NTransits)
			}
			continue
		}
		singles++
		if !p.Single || p.Measured != nil || len(p.Events) == 0 {
			t.Errorf("peak %d (%d transits) not reported as a single event: %+v", i+1, p.NTransits, p)
			continue
		}
		for _, e := range p.Events {
			n := 0
			for j, x := range c.Time {
				if c.Good(j, lc.DefaultQualityMask) && math.Abs(x-e.T0Days) <= e.DurationDays/2 {
					n++
				}
			}
			if need := math.Ceil(e.DurationDays / 2 / lc.CadenceDays); float64(n) < need || !(e.Depth > 0) || !(e.MES >= 3) {
				t.Errorf("peak %d's event at %.3f: %d valid cadences within ±T14/2 (need %.0f), depth %g, MES %.1f", i+1, e.T0Days, n, need, e.Depth, e.MES)
			}
			t.Logf("peak %d: single event at %.3f BKJD, %.1f h, %.0f ppm, MES %.1f", i+1, e.T0Days, 24*e.DurationDays, 1e6*e.Depth, e.MES)
		}
	}
	if singles == 0 {
		t.Fatalf("no few-transit peak among %d: %s", len(res.Peaks), out)
	}
	text, _, err := execute("bls", folder, "--workers", "2")
	if err != nil || !strings.Contains(text, "single event: mid-time") {
		t.Errorf("the table does not list the single events (%v):\n%s", err, text)
	}
}

// TestVetMasksOtherPlanets vets Kepler-90 c (8.72 d) on quarters 3–5 at its KOI ephemeris: without the other
// planets masked their deep transits fall in its phase curve: the box's odd and even depths disagree (≥ 3σ),
// but no secondary eclipse is read from them, as each is one event in one orbit (vet's repeating-secondary
// rule; before it they read as a secondary of MES ≈ 8); with them given as --mask (h, g, d, e, f and b), the
// secondary is noise and odd/even agrees.
func TestVetMasksOtherPlanets(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	folder := filepath.Join(dir, "fits", "kic011442793")
	args := []string{folder, "--period", "8.719801350", "--t0", "139.52134", "--duration", "0.156"}
	alone := vetJSON(t, args...)
	masked := vetJSON(t, append(args, "--mask", "331.5972732,140.498929,1.2", "--mask", "210.6013843,147.056867,1.0",
		"--mask", "59.7371443,158.95974,0.67", "--mask", "91.9401253,134.3,0.77", "--mask", "124.922516,129.7295,1.0",
		"--mask", "7.00821787,137.67164,0.32")...)
	t.Logf("alone: %+v", alone.Measured)
	t.Logf("with the others masked: %+v", masked.Measured)
	if alone.Measured.Box.OddEvenSigma < 3 {
		t.Errorf("without masks the other planets leave odd/even in agreement (%.1fσ): the test shows nothing", alone.Measured.Box.OddEvenSigma)
	}
	if alone.Measured.SecondaryMES >= 7.1 {
		t.Errorf("without masks the other planets' single transits read as a secondary (MES %.1f)", alone.Measured.SecondaryMES)
	}
	if m := masked.Measured; m.SecondaryMES >= 7.1 || m.OddEvenSigma >= 3 || m.Box.OddEvenSigma >= 3 || !(m.MES > 3) {
		t.Errorf("with the other planets masked: %+v", m)
	}
	if got := run([]string{"vet", folder, "--period", "8.72", "--t0", "139.5", "--duration", "0.15", "--mask", "1,2"}); got != 2 {
		t.Errorf("vet --mask 1,2: exit %d, want 2", got)
	}
}
