package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/lc"
	"transitbench/workspace/baselines"
	"transitbench/workspace/quicklook"
)

// TestLightCurveRunFunctions runs bls, fold and vet through their run functions on a light curve with a
// planted 4.2 d box (bls, fold) and one with a 5.3 d planet (vet).
func TestLightCurveRunFunctions(t *testing.T) {
	ctx := context.Background()
	var out, errb bytes.Buffer
	js := streams{Out: &out, Err: &errb, JSON: true}
	box := writeBoxCSV(t)

	opts := &blsOptions{Files: []string{box}, MinMES: quicklook.DefaultMinMES, PMin: 1, PMax: 20, Periods: 3000, Durations: "0.1,0.15,0.2", Objective: "snr",
		Peaks: 2, NoDetrend: true, Workers: 1}
	if err := runBLS(ctx, js, opts); err != nil {
		t.Fatal(err)
	}
	var b blsJSON
	decodeJSON(t, &out, &b)
	if b.NPeriods != 3000 || b.NDurations != 3 || b.Detrended || len(b.Peaks) != 2 ||
		math.Abs(b.Peaks[0].PeriodDays/4.2-1) > 1e-3 {
		t.Fatalf("bls %+v: want 3000 × 3 boxes and the 4.2 d period first", b)
	}
	opts.Peaks = 0
	if err := runBLS(ctx, js, opts); !isCode(err, codeUsage) {
		t.Fatalf("bls with 0 peaks: %v, want code usage", err)
	}

	fopts := &foldOptions{Files: []string{box}, Period: 4.2, T0: 171.3, HaveEphem: true, Bins: 21, Window: 0.6}
	if err := runFold(ctx, streams{Out: &out, Err: &errb}, fopts); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	out.Reset()
	if !strings.HasPrefix(text, box+" folded at P = 4.200000 d, t0 = 171.30000 BKJD: ") || !strings.Contains(text, "phase d") {
		t.Fatalf("fold printed:\n%s", text)
	}
	if err := runFold(ctx, js, fopts); err != nil {
		t.Fatal(err)
	}
	var f foldJSON
	decodeJSON(t, &out, &f)
	mid := f.Bins[len(f.Bins)/2]
	if len(f.Bins) != 21 || mid.Flux == nil || math.Abs((1-*mid.Flux)-1000e-6) > 150e-6 {
		t.Fatalf("fold: %d bins, middle bin %+v: want the 1000 ppm box at phase 0", len(f.Bins), mid)
	}
	if err := runFold(ctx, js, &foldOptions{Files: []string{box}, Period: 4.2, Bins: 21}); !isCode(err, codeUsage) {
		t.Fatalf("fold without --t0: %v, want code usage", err)
	}

	planet, p := writePlanetCSV(t)
	vopts := &vetOptions{Files: []string{planet}, Period: p.PeriodDays, T0: p.T0Days, Duration: 0.12, Radius: 1, Mass: 1}
	if err := runVet(ctx, js, vopts); err != nil {
		t.Fatal(err)
	}
	var v vetReport
	decodeJSON(t, &out, &v)
	depth := p.RpRs * p.RpRs
	if v.File != planet || v.RadiusRsun != 1 || v.Features.MES < 7.1 || math.Abs(v.Features.Depth/depth-1) > 0.3 {
		t.Fatalf("vet %+v: want the %.0f ppm planet detected", v, 1e6*depth)
	}
	vopts.Missing = "t0"
	if err := runVet(ctx, js, vopts); !isCode(err, codeUsage) || !strings.Contains(err.Error(), "--t0 is missing") {
		t.Fatalf("vet without --t0: %v", err)
	}
}

// TestPipelineAndVersionRunFunctions runs the hidden pipeline command on a star directory holding a 5.3 d
// planet, and version.
func TestPipelineAndVersionRunFunctions(t *testing.T) {
	dir, p := writePlanetStarDir(t, &data.Star{ID: "x-0000", Kepmag: 12, Teff: 5770, Logg: 4.44, RadiusRsun: 1, MassMsun: 1,
		CDPPppm: map[string]float64{"3.0": 100, "6.0": 70, "12.0": 50}, CadenceDays: lc.CadenceDays, TimeSystem: "BKJD"})
	ctx := context.Background()
	var out, errb bytes.Buffer
	js := streams{Out: &out, Err: &errb, JSON: true}
	if err := runPipeline(ctx, js, &pipelineOptions{Name: "naive_v0", StarDir: dir}); err != nil {
		t.Fatal(err)
	}
	var pj pipelineJSON
	decodeJSON(t, &out, &pj)
	if pj.Pipeline != "naive_v0" || pj.StarDir != dir || len(pj.Rows) == 0 ||
		math.Abs(pj.Rows[0].PeriodDays-p.PeriodDays) > 0.01*p.PeriodDays {
		t.Fatalf("pipeline %+v: want the 5.3 d planet first", pj)
	}
	if err := runPipeline(ctx, js, &pipelineOptions{Name: "nosuch", StarDir: dir}); !isCode(err, codeUsage) {
		t.Fatalf("unknown pipeline: %v, want code usage", err)
	}

	if err := runVersion(ctx, streams{Out: &out, Err: &errb}); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("transitbench %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH); out.String() != want {
		t.Fatalf("version printed %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := runVersion(ctx, js); err != nil {
		t.Fatal(err)
	}
	var v versionJSON
	decodeJSON(t, &out, &v)
	if v != (versionJSON{Arch: runtime.GOARCH, Go: runtime.Version(), OS: runtime.GOOS, Version: version}) {
		t.Fatalf("version --json %+v", v)
	}
}

// TestBaselinesRunFunctions runs two rows of the ladder on a six-star train pool into a table file, merges a
// third row into it, and trains the vetter on the pool.
func TestBaselinesRunFunctions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sandbox and the vetter's search on six train-pool stars")
	}
	home := newHome(t)
	if _, err := sets.Open(home, sets.Train, sets.Options{Stars: 6}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out, errb bytes.Buffer
	js := streams{Out: &out, Err: &errb, JSON: true}
	table := filepath.Join(t.TempDir(), "results", "baselines.json")
	opts := &baselinesOptions{Sets: sets.Train, Rows: "empty,reference_detector", Workers: 2, Out: table}
	if err := runBaselines(ctx, js, opts); err != nil {
		t.Fatalf("runBaselines: %v\n%s", err, errb.String())
	}
	var tab baselines.Table
	decodeJSON(t, &out, &tab)
	if len(tab.Rows) != 2 || tab.Rows[0].Name != "empty" || tab.Rows[1].Name != "reference_detector" {
		t.Fatalf("table rows %+v", tab.Rows)
	}
	empty, ref := tab.Rows[0].Cells[sets.Train], tab.Rows[1].Cells[sets.Train]
	if empty == nil || ref == nil || empty.StarsRun != 6 || empty.Credit != 0 || ref.Credit == 0 {
		t.Fatalf("cells: empty %+v, reference_detector %+v", empty, ref)
	}
	if _, err := os.Stat(table); err != nil {
		t.Fatalf("the table was not written: %v", err)
	}
	// A run of one row with Merge keeps the other row of the file.
	opts.Rows, opts.Merge = "reference_detector", true
	if err := runBaselines(ctx, js, opts); err != nil {
		t.Fatal(err)
	}
	decodeJSON(t, &out, &tab)
	if len(tab.Rows) != 2 {
		t.Fatalf("merged table has %d rows, want 2", len(tab.Rows))
	}

	model := filepath.Join(t.TempDir(), "model.json")
	topts := &trainVetterOptions{Stars: 6, Seed: 1, Workers: 2, Trees: 5, Depth: 2, Out: model}
	if err := runTrainVetter(ctx, streams{Out: &out, Err: &errb}, topts); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "trained on 6 stars of train") || !strings.Contains(got, model+" written") {
		t.Fatalf("train-vetter printed %q", got)
	}
	if _, err := os.Stat(model); err != nil {
		t.Fatalf("the model was not written: %v", err)
	}
}

// TestBaselinesFigure: 'baselines figure' on the committed ladder prints a Markdown row per asked row with its
// S on the set as the table holds it, and writes the recall figure; a set the table lacks is a usage error.
func TestBaselinesFigure(t *testing.T) {
	in := filepath.Join("..", "..", "results", "baselines.json")
	tab, err := baselines.ReadTable(in)
	if err != nil {
		t.Fatal(err)
	}
	svg := filepath.Join(t.TempDir(), "recall.svg")
	out, _, err := execute("baselines", "figure", "--in", in, "--set", "A", "--rows", "starter,reference_detector", "--out", svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tab.Rows {
		if r.Name != baselines.RowStarter && r.Name != baselines.RowReference {
			continue
		}
		if want := fmt.Sprintf("| %s | %.3f |", r.Name, r.Cells["A"].S); !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("reference_detector")) {
		t.Errorf("the figure %s was not written with the rows' names (%v)", svg, err)
	}
	if _, _, err := execute("baselines", "figure", "--in", in, "--set", "Z"); err == nil {
		t.Error("a set the table lacks: no error")
	}
}
