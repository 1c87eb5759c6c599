package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// TestWorkspaceRunFunctions drives init, dev, runs, star, grade and mini run through their run functions, with
// options structs and buffers instead of cobra, on small sets and a solution that prints the dev answers.
func TestWorkspaceRunFunctions(t *testing.T) {
	home := newHome(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ws")
	var out, errb bytes.Buffer
	s := streams{Out: &out, Err: &errb, JSON: true}

	initTestWorkspace(t, ctx, s, dir)
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

	dev := openTestDev(t, home)
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	oracleRun(t, ws.SolutionDir(), "", dev.Answers)
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

	scope := scopeFlags{Workspace: dir}
	if err := runRuns(ctx, s, &runsOptions{Kind: workspace.KindDev, scopeFlags: scope}); err != nil {
		t.Fatal(err)
	}
	var runs []store.Run
	decodeJSON(t, &out, &runs)
	if len(runs) != 1 || runs[0].ID != rep.RunID || runs[0].Stars != len(dev.IDs) || runs[0].Workspace != dir || runs[0].SolutionKind != "executable" {
		t.Fatalf("runs %+v, want the dev run %d of %s (an executable solution)", runs, rep.RunID, dir)
	}

	star := checkStarAndFailing(t, dev, scope)
	checkRunsBelongToAWorkspace(t, ctx, home, dir, star, rep.RunID)
	text := streams{Out: &out, Err: &errb}

	if err := runGrade(ctx, s, &gradeOptions{runFlags: rf}); err != nil {
		t.Fatalf("runGrade: %v\n%s", err, errb.String())
	}
	var shown struct{ A, B map[string]any }
	if err := json.Unmarshal(out.Bytes(), &shown); err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]any{shown.A, shown.B} {
		for _, k := range []string{"by_population", "by_mes_bin", "by_category", "C", "F", "exits", "failures", "slowest_seconds", "seconds"} {
			if _, ok := m[k]; ok {
				t.Errorf("grade --json shows the contestant %q of a hidden set: %v", k, m)
			}
		}
		if _, ok := m["S"]; !ok || m["redacted"] != true {
			t.Errorf("grade --json on a hidden set: %v", m)
		}
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
	// 'runs' lists the hidden runs with S alone; --maintainer lists what the store keeps.
	for _, maintainer := range []bool{false, true} {
		if err := runRuns(ctx, s, &runsOptions{Set: sets.A, Maintainer: maintainer, scopeFlags: scope}); err != nil {
			t.Fatal(err)
		}
		var listed []struct{ Summary map[string]any }
		decodeJSON(t, &out, &listed)
		if len(listed) != 1 {
			t.Fatalf("runs --set A lists %d runs", len(listed))
		}
		if _, has := listed[0].Summary["by_population"]; has != maintainer || listed[0].Summary["S"] == nil {
			t.Errorf("runs --set A (maintainer %v) lists the summary %v", maintainer, listed[0].Summary)
		}
	}

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
// make false candidates of, with no planet missed. It returns the planet star.
func checkStarAndFailing(t *testing.T, dev *sets.Set, scope scopeFlags) string {
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
	if err := runStar(ctx, text, &starOptions{ID: star, scopeFlags: scope}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "run ") || !strings.Contains(got, " of "+scope.Workspace+" (executable solution)\nstar "+star+"  run ") || !strings.Contains(got, "  planet P ") ||
		!strings.Contains(got, "  row 1  P ") || !strings.Contains(got, stderrMark+star) {
		t.Fatalf("star %s shows:\n%s", star, got)
	}
	out.Reset()
	for _, id := range []string{"A-0000", "M-0003"} { // M: the mini tasks' secret pool
		if err := runStar(ctx, text, &starOptions{ID: id, scopeFlags: scope}); !isCode(err, codeHidden) {
			t.Fatalf("runStar on hidden star %s: %v, want code hidden", id, err)
		}
	}

	s := streams{Out: &out, Err: &errb, JSON: true}
	if err := runFailing(ctx, s, &failingOptions{Set: sets.Dev, Limit: 20, scopeFlags: scope}); err != nil {
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
	if err := runFailing(ctx, s, &failingOptions{Set: sets.A, Limit: 20, scopeFlags: scope}); !isCode(err, codeHidden) {
		t.Errorf("failing on A: %v, want code hidden", err)
	}
	return star
}

// checkRunsBelongToAWorkspace makes a second workspace whose (later) run missed star, and checks that runs,
// star and failing show each workspace its own runs, name it and its solution kind, refuse the other's run
// unless --all-workspaces, and pool both with it; with no workspace at all they say what to do.
func checkRunsBelongToAWorkspace(t *testing.T, ctx context.Context, home, dir, star string, devRun int64) {
	t.Helper()
	var out, errb bytes.Buffer
	js, text := streams{Out: &out, Err: &errb, JSON: true}, streams{Out: &out, Err: &errb}
	other := filepath.Join(t.TempDir(), "other")
	initTestWorkspace(t, ctx, js, other)
	out.Reset()
	testutil.WriteSolution(t, filepath.Join(other, "solution"), map[string]string{
		"main.go": "package main\n\nfunc main() {}\n", "go.mod": "module solution\n\ngo 1.22\n"})
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	otherRun, err := st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: sets.Dev, Label: other, Workspace: other, SolutionKind: "go", Stars: 1})
	if err == nil {
		err = st.PutOutcome(ctx, store.Outcome{RunID: otherRun, StarID: star, Status: store.StatusMissed})
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs, all := scopeFlags{Workspace: dir}, scopeFlags{Workspace: other}, scopeFlags{AllWorkspaces: true}

	// star: each workspace's latest run that has the star; another workspace's run only with --all-workspaces.
	for _, c := range []struct {
		scope scopeFlags
		run   int64
	}{{mine, devRun}, {theirs, otherRun}, {all, otherRun}} {
		var o starOutcomeJSON
		if err := runStar(ctx, js, &starOptions{ID: star, scopeFlags: c.scope}); err != nil {
			t.Fatal(err)
		}
		decodeJSON(t, &out, &o)
		if o.RunID != c.run {
			t.Errorf("star %s in %+v: run %d, want %d", star, c.scope, o.RunID, c.run)
		}
	}
	err = runStar(ctx, js, &starOptions{ID: star, Run: otherRun, scopeFlags: mine})
	if !isCode(err, codeRefused) || !strings.Contains(err.Error(), "--all-workspaces") || !strings.Contains(err.Error(), other) {
		t.Errorf("star --run of another workspace's run: %v", err)
	}

	// runs: the header names the workspace and its solution's kind; the rows are its runs only.
	if err := runRuns(ctx, text, &runsOptions{scopeFlags: theirs}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "workspace "+other+" (go solution)") || !strings.Contains(lines[2], other) {
		t.Errorf("runs of the other workspace:\n%s", out.String())
	}
	out.Reset()
	var runs []store.Run
	if err := runRuns(ctx, js, &runsOptions{scopeFlags: all}); err != nil {
		t.Fatal(err)
	}
	decodeJSON(t, &out, &runs)
	places := map[string]bool{}
	for _, r := range runs {
		places[r.Workspace] = true
	}
	if !places[dir] || !places[other] {
		t.Errorf("runs --all-workspaces: %+v", runs)
	}

	// failing: the other workspace's miss counts only there, or with --all-workspaces.
	for _, c := range []struct {
		scope scopeFlags
		runs  int
	}{{mine, 0}, {theirs, 1}, {all, 2}} {
		var failing []store.FailingStar
		if err := runFailing(ctx, js, &failingOptions{Set: sets.Dev, Limit: 1000, scopeFlags: c.scope}); err != nil {
			t.Fatal(err)
		}
		decodeJSON(t, &out, &failing)
		got := 0
		for _, f := range failing {
			if f.StarID == star {
				got = f.Runs
			}
		}
		if got != c.runs {
			t.Errorf("failing in %+v: %s failed in %d runs, want %d", c.scope, star, got, c.runs)
		}
	}

	// No workspace here and none in the data directory: every run is shown, and the header says why.
	if err := runRuns(ctx, text, &runsOptions{}); err != nil || !strings.HasPrefix(out.String(), "no workspace here nor in the data directory") ||
		!strings.Contains(out.String(), other) || !strings.Contains(out.String(), dir) {
		t.Errorf("runs with no workspace: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := runRuns(ctx, js, &runsOptions{scopeFlags: scopeFlags{Workspace: dir, AllWorkspaces: true}}); !isCode(err, codeUsage) {
		t.Errorf("--workspace with --all-workspaces: %v", err)
	}
}

// initTestWorkspace makes a survey workspace with the Python starter in dir on hiddenTestSets, through runInit.
// Its tests build the sets and grade on them: it skips them in -short mode.
func initTestWorkspace(t *testing.T, ctx context.Context, s streams, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds small sets and grades on them: not in -short mode")
	}
	if err := runInit(ctx, s, &initOptions{Dir: dir, Preset: "survey", Lang: "python", Compositions: hiddenTestSets}); err != nil {
		t.Fatalf("runInit: %v\n%v", err, s.Err)
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

// TestFreezeAndGradeFrozen: the contestant's 'freeze --out' writes a tar and its hashes; the grader's
// 'grade --frozen FILE --hash H' refuses the file when H is not its hash (code refused, nothing run) and grades it
// when it is, the report naming the file's SHA-256 and the grading's ordinal.
func TestFreezeAndGradeFrozen(t *testing.T) {
	home := newHome(t)
	ctx := context.Background()
	var out, errb bytes.Buffer
	s := streams{Out: &out, Err: &errb, JSON: true}
	contestant := filepath.Join(t.TempDir(), "contestant")
	initTestWorkspace(t, ctx, s, contestant)
	oracleRun(t, filepath.Join(contestant, "solution"), "", openTestDev(t, home).Answers)
	grader := filepath.Join(t.TempDir(), "grader")
	initTestWorkspace(t, ctx, s, grader)
	out.Reset()

	tarPath := filepath.Join(t.TempDir(), "solution.tar.gz")
	if err := runFreeze(ctx, s, &freezeOptions{Workspace: contestant, Out: tarPath}); err != nil {
		t.Fatalf("runFreeze: %v\n%s", err, errb.String())
	}
	var ff workspace.FrozenFile
	decodeJSON(t, &out, &ff)
	if ff.Path != tarPath || len(ff.FileSHA) != 64 || len(ff.Hash) != 64 {
		t.Fatalf("freeze result %+v", ff)
	}
	rf := runFlags{Workspace: grader, Workers: 2, Timeout: 60, Compositions: hiddenTestSets}
	if err := runGrade(ctx, s, &gradeOptions{runFlags: rf, Frozen: tarPath}); !isCode(err, codeUsage) {
		t.Fatalf("grade --frozen without --label: %v, want code usage", err)
	}
	wrong := strings.Repeat("0", 64)
	err := runGrade(ctx, s, &gradeOptions{runFlags: rf, Frozen: tarPath, Hash: wrong, Label: "alice"})
	if !isCode(err, codeRefused) || !strings.Contains(err.Error(), ff.FileSHA) {
		t.Fatalf("grade --frozen with a hash that is not the file's: %v, want code refused naming the file's SHA-256", err)
	}
	if out.Len() != 0 {
		t.Errorf("a refused grading printed %q", out.String())
	}
	if err := runGrade(ctx, s, &gradeOptions{runFlags: rf, Frozen: tarPath, Hash: ff.FileSHA, Label: "alice"}); err != nil {
		t.Fatalf("grade --frozen: %v\n%s", err, errb.String())
	}
	var rep workspace.GradeReport
	decodeJSON(t, &out, &rep)
	if rep.FrozenFile != ff.FileSHA || rep.Frozen != ff.Hash || rep.Grading != 1 || rep.A == nil || !rep.A.Complete ||
		rep.Dev == nil || rep.Dev.Credit != float64(rep.Dev.Planets) {
		t.Fatalf("the grading of the frozen file: %+v", rep)
	}
	// The label's gradings are capped: with --max-gradings 1, a second solution from alice is refused.
	oracleRun(t, filepath.Join(contestant, "solution"), "", map[string]data.Answer{})
	second := filepath.Join(t.TempDir(), "second.tar.gz")
	if err := runFreeze(ctx, s, &freezeOptions{Workspace: contestant, Out: second}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = runGrade(ctx, s, &gradeOptions{runFlags: rf, Frozen: second, Label: "alice", MaxGradings: 1})
	if !isCode(err, codeRefused) || !strings.Contains(err.Error(), "alice has had 1 gradings") {
		t.Fatalf("alice's second grading with --max-gradings 1: %v, want code refused", err)
	}
}

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
	home := newHome(t)
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

// TestDefaultWorkspaceAnnounced: the terminal UI's first start on a data directory says, once, that it creates
// the default workspace and where; once it exists nothing is said.
func TestDefaultWorkspaceAnnounced(t *testing.T) {
	home := t.TempDir()
	var errb bytes.Buffer
	announceDefaultWorkspace(&errb, home)
	def := filepath.Join(home, "workspace")
	if got := errb.String(); got != "no workspace here: creating the default workspace "+def+"\n" {
		t.Errorf("first start says %q", got)
	}
	if err := os.MkdirAll(filepath.Join(def, workspace.StateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(def, workspace.StateDir, "workspace.json"), []byte(`{"id": "x", "preset": "survey"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	announceDefaultWorkspace(&errb, home)
	if errb.Len() != 0 {
		t.Errorf("with the default workspace made, the start says %q", errb.String())
	}
}
