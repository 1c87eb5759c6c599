package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/workspace"
)

// TestLabelledKepler90EndToEnd builds a scored set from Kepler-90's quarters and the KOI table as the README
// shows ('data import --category labelled'), makes a workspace of it ('init --set') and runs 'dev' with a
// solution that prints Kepler-90 d and c at their catalogue ephemerides, d a second time, and, fourth, a period
// that is no planet's. The star is scored with SPEC A5: d and c get full credit, the repeated d claims nothing
// (each planet is claimable once) and counts false, and the fourth row is not counted (three rows per star); the
// catalogue's planets without a transit in the data are not in the answer.
func TestLabelledKepler90EndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a solution in the sandbox")
	}
	home := t.TempDir()
	t.Setenv("TRANSITBENCH_HOME", home)
	var out, errb bytes.Buffer
	s := streams{Out: &out, Err: &errb, JSON: true}
	ctx := context.Background()
	imp := &dataImportOptions{FITSDir: "../../../shared/data/kepler/fits/kic011442793",
		Labels: "../../../shared/data/kepler/tables/koi_cumulative.csv", Set: "kepler90", Category: "labelled"}
	if _, err := os.Stat(imp.FITSDir); err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	if err := runDataImport(ctx, s, imp); err != nil {
		t.Fatalf("data import: %v\n%s", err, errb.String())
	}
	var res dataImportResult
	decodeJSON(t, &out, &res)
	if res.Stars != 1 || res.Categories.Labelled != 1 || res.ScoredStars != 1 || res.Unfiled < 1000 {
		t.Fatalf("import result %+v", res)
	}
	set, err := sets.Open(home, "kepler90", sets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ans := set.Answers["kepler90-0000"]
	var periods []float64
	for _, p := range ans.ScoredPlanets() {
		periods = append(periods, p.PeriodDays)
	}
	// In quarters 3–5 (BKJD ≈ 256–532) the KOI ephemerides put transits of b, c, d, e, f, g and h in the data
	// (h once, at ≈ 472).
	if ans.Category != data.CategoryLabelled || len(periods) < 5 || len(periods) > 8 {
		t.Fatalf("answer %+v: scored planets at %v", ans, periods)
	}

	dir := filepath.Join(t.TempDir(), "ws")
	if err := runInit(ctx, s, &initOptions{Dir: dir, Preset: "survey", Lang: "go", Set: "kepler90"}); err != nil {
		t.Fatalf("init --set: %v\n%s", err, errb.String())
	}
	out.Reset()
	if err := runInit(ctx, s, &initOptions{Dir: filepath.Join(t.TempDir(), "ws2"), Preset: "survey", Lang: "go", Set: "A"}); err == nil {
		t.Fatal("init --set A: a hidden set filled a workspace")
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sol := ws.SolutionDir()
	os.RemoveAll(sol)
	os.MkdirAll(sol, 0o755)
	script := "#!/bin/sh\necho period_days,t0_days,score\n" +
		"echo 59.7371443,158.95974,30\necho 8.71980135,139.52134,20\necho 59.7371443,158.95974,10\necho 23.456,260.1,5\n"
	if err := os.WriteFile(filepath.Join(sol, "run"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := runDev(ctx, s, &devOptions{runFlags: runFlags{Workspace: dir, Workers: 1, Timeout: 60}}); err != nil {
		t.Fatalf("dev: %v\n%s", err, errb.String())
	}
	var rep workspace.Report
	decodeJSON(t, &out, &rep)
	if !rep.Complete || rep.ScoredStars != 1 || rep.Planets != len(periods) || rep.Credit != 2 || rep.False != 1 {
		t.Fatalf("dev on the labelled star: complete %v, %d scored stars, credit %.1f of %d planets, %d false",
			rep.Complete, rep.ScoredStars, rep.Credit, rep.Planets, rep.False)
	}
}
