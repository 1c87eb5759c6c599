package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/workspace"
)

// TestWorkspaceRunFunctions drives init, dev, runs, star, grade and mini run through their run functions, with
// options structs and buffers instead of cobra, on small sets and a solution that prints the dev answers.
func TestWorkspaceRunFunctions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds small sets and grades on them: not in -short mode")
	}
	home := t.TempDir()
	t.Setenv("TRANSITBENCH_HOME", home)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ws")
	var out, errb bytes.Buffer
	s := streams{Out: &out, Err: &errb, JSON: true}

	if err := runInit(ctx, s, &initOptions{Dir: dir, Preset: "survey", Lang: "python", Compositions: hiddenTestSets}); err != nil {
		t.Fatalf("runInit: %v\n%s", err, errb.String())
	}
	var ini initResult
	decodeJSON(t, &out, &ini)
	c := hiddenTestSets[sets.Dev]
	if want := c.Injected + c.Untouched + c.EB + c.Confirmed; ini.DevStars != want || ini.Workspace != dir ||
		ini.Preset != "survey" || ini.Lang != "python" {
		t.Fatalf("init result %+v, want %d dev stars in %s", ini, want, dir)
	}
	if err := runInit(ctx, s, &initOptions{Dir: dir, Preset: "survey", Lang: "go"}); !isCode(err, codeUsage) {
		t.Fatalf("runInit over an existing workspace: %v, want code usage", err)
	}
	out.Reset()

	dev, err := sets.Open(home, sets.Dev, sets.Options{Composition: &c})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	oracleRun(t, ws.SolutionDir(), dev.Answers)
	rf := runFlags{Workspace: dir, Workers: 2, Timeout: 60, Compositions: hiddenTestSets}

	if err := runDev(ctx, s, &devOptions{runFlags: rf}); err != nil {
		t.Fatalf("runDev: %v\n%s", err, errb.String())
	}
	var rep workspace.Report
	decodeJSON(t, &out, &rep)
	if !rep.Complete || rep.StarsRun != len(dev.IDs) || rep.Planets == 0 || rep.Credit != float64(rep.Planets) {
		t.Fatalf("dev report: complete %v, %d stars, credit %.1f of %d planets; the oracle should get full credit",
			rep.Complete, rep.StarsRun, rep.Credit, rep.Planets)
	}

	if err := runRuns(ctx, s, &runsOptions{Kind: workspace.KindDev}); err != nil {
		t.Fatal(err)
	}
	var runs []store.Run
	decodeJSON(t, &out, &runs)
	if len(runs) != 1 || runs[0].ID != rep.RunID || runs[0].Stars != len(dev.IDs) {
		t.Fatalf("runs %+v, want the dev run %d", runs, rep.RunID)
	}

	checkStarAndFailing(t, dev)
	text := streams{Out: &out, Err: &errb}

	if err := runGrade(ctx, s, &gradeOptions{runFlags: rf}); err != nil {
		t.Fatalf("runGrade: %v\n%s", err, errb.String())
	}
	var gr workspace.GradeReport
	decodeJSON(t, &out, &gr)
	if gr.Grading != 1 || gr.A == nil || !gr.A.Hidden || gr.B == nil || gr.Dev == nil || gr.Dev.Credit != rep.Credit {
		t.Fatalf("grade report: grading %d, A %v, B %v, dev %v", gr.Grading, gr.A, gr.B, gr.Dev)
	}
	if err := runGrade(ctx, s, &gradeOptions{runFlags: rf}); !isCode(err, codeRefused) {
		t.Fatalf("grading the same solution again without Again: %v, want code refused", err)
	}
	out.Reset()

	// A 30-star train pool is enough for a mini task; the oracle knows no train star, so it claims nothing.
	if _, err := sets.Open(home, sets.Train, sets.Options{Stars: 30}); err != nil {
		t.Fatal(err)
	}
	task := "mini-train-00000003"
	if err := runMiniRun(ctx, text, &miniRunOptions{runFlags: rf, Task: task}); err != nil {
		t.Fatalf("runMiniRun: %v\n%s", err, errb.String())
	}
	if want := task + "  reward 0.000  (credit 0.0, false 0)\n"; out.String() != want {
		t.Fatalf("mini run printed %q, want %q", out.String(), want)
	}
}

// checkStarAndFailing checks 'star' and 'failing' after the oracle's dev run on dev: a planet star shows its
// planet, its row and the solution's stderr; the failing stars are the eclipsing binaries the oracle's rows
// make false candidates of, with no planet missed.
func checkStarAndFailing(t *testing.T, dev *sets.Set) {
	t.Helper()
	ctx := context.Background()
	var out, errb bytes.Buffer
	var star string
	for _, id := range dev.IDs {
		if dev.Answers[id].Planet != nil && dev.Answers[id].Scored {
			star = id
			break
		}
	}
	text := streams{Out: &out, Err: &errb}
	if err := runStar(ctx, text, &starOptions{ID: star}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "star "+star+"  run ") || !strings.Contains(got, "  planet P ") ||
		!strings.Contains(got, "  row 1  P ") || !strings.Contains(got, stderrMark+star) {
		t.Fatalf("star %s shows:\n%s", star, got)
	}
	out.Reset()
	if err := runStar(ctx, text, &starOptions{ID: "A-0000"}); !isCode(err, codeHidden) {
		t.Fatalf("runStar on a hidden star: %v, want code hidden", err)
	}

	s := streams{Out: &out, Err: &errb, JSON: true}
	if err := runFailing(ctx, s, &failingOptions{Set: sets.Dev, Limit: 20}); err != nil {
		t.Fatal(err)
	}
	var failing []store.FailingStar
	decodeJSON(t, &out, &failing)
	if len(failing) == 0 {
		t.Fatal("failing lists no star; the oracle's rows on eclipsing binaries are false candidates")
	}
	for _, f := range failing {
		if f.Runs != 1 || f.Missed != 0 || f.False == 0 || dev.Answers[f.StarID].EB == nil {
			t.Errorf("failing star %+v: want an eclipsing binary with a false candidate and no missed planet", f)
		}
	}
	if err := runFailing(ctx, s, &failingOptions{Set: sets.A, Limit: 20}); !isCode(err, codeHidden) {
		t.Errorf("failing on A: %v, want code hidden", err)
	}
}

// decodeJSON decodes the one JSON document in b into v and empties b.
func decodeJSON(t *testing.T, b *bytes.Buffer, v any) {
	t.Helper()
	if err := json.Unmarshal(b.Bytes(), v); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, b.String())
	}
	b.Reset()
}

// isCode reports whether err carries the error code code.
func isCode(err error, code string) bool {
	if err == nil {
		return false
	}
	got, _ := classify(err)
	return got == code
}
