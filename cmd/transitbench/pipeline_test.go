package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
	"transitbench/engine/pipeline"
	"transitbench/workspace/baselines"
)

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
	t.Setenv("TRANSITBENCH_HOME", t.TempDir())
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
	root := newRootCmd()
	var stderr bytes.Buffer
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&stderr)
	root.SetArgs([]string{"baselines", "train-vetter", "--stars", "7", "--out", model})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "data build --set train --stars 7 --force") {
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
