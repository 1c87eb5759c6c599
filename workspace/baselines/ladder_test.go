package baselines

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"transitbench/data/sets"
	"transitbench/engine/pipeline"
	"transitbench/grader"
	"transitbench/sandbox"
	"transitbench/workspace"
)

// TestMain lets the test binary serve as the sandbox's child process and as the `transitbench pipeline NAME
// STAR_DIR` command the pipeline rows exec (Options.Binary is the test binary itself).
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain()
	}
	if len(os.Args) == 4 && os.Args[1] == "pipeline" {
		if err := PrintPipeline(os.Stdout, os.Stderr, os.Args[2], os.Args[3]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tiny is a dev set of four stars: two injected planets, an untouched star and an eclipsing binary.
var tiny = map[string]sets.Composition{sets.Dev: {Injected: 2, Untouched: 1, EB: 1}}

// TestLadderRunsEveryRowThroughTheRunner runs all six rows on the tiny dev set: every runner row must run every
// star to a normal exit, the empty row must score exactly 0 with no rows, the reference detector must claim
// exactly the planets with MES ≥ 7.1 and nothing else, naive_v0 at most one row per star and learned_vetter at
// most three; the JSON table must carry every row and set.
func TestLadderRunsEveryRowThroughTheRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the BLS pipelines on four stars in the sandbox")
	}
	home := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{RunOptions: workspace.RunOptions{Home: home, Workers: 2, Compositions: tiny, AllowDegraded: true},
		Sets: []string{sets.Dev}, Binary: exe}
	tab, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	set, err := sets.Open(home, sets.Dev, sets.Options{Composition: ptr(tiny[sets.Dev])})
	if err != nil {
		t.Fatal(err)
	}
	wantCredit := 0.0
	for _, id := range set.IDs {
		a := set.Answers[id]
		for _, p := range a.ScoredPlanets() {
			if p.MES >= ReferenceMES {
				wantCredit++
			}
		}
	}
	if len(tab.Rows) != len(Rows) || tab.Fingerprints[sets.Dev] != set.Fingerprint || tab.Generator != set.Generator {
		t.Fatalf("table has %d rows, fingerprints %v, generator %q", len(tab.Rows), tab.Fingerprints, tab.Generator)
	}
	for _, r := range tab.Rows {
		c := r.Cells[sets.Dev]
		if c == nil {
			t.Fatalf("row %s has no dev cell", r.Name)
		}
		if c.StarsRun != 4 || c.ScoredStars+c.IgnoredStars != 4 {
			t.Errorf("%s: %d stars run, %d scored + %d ignored, want 4", r.Name, c.StarsRun, c.ScoredStars, c.IgnoredStars)
		}
		if f := c.Failures; f.Timeout+f.Crash+f.OutputLimit != 0 {
			t.Errorf("%s: failures %+v", r.Name, f)
		}
		rows := c.ByCategory.Injected.Rows + c.ByCategory.Untouched.Rows + c.ByCategory.EB.Rows + c.IgnoredRows
		switch r.Name {
		case RowEmpty:
			if c.S != 0 || c.C != 0 || c.F != 0 || rows != 0 {
				t.Errorf("empty: S %g C %g F %g with %d rows, want all 0", c.S, c.C, c.F, rows)
			}
		case RowReference:
			if c.Credit != wantCredit || c.False != 0 {
				t.Errorf("reference: credit %g false %d, want %g and 0", c.Credit, c.False, wantCredit)
			}
		case RowNaive, RowStarter:
			if rows > 4 {
				t.Errorf("%s: %d rows on 4 stars, want at most one each", r.Name, rows)
			}
		case RowLearned:
			if rows > 4*pipeline.VetterPeaks {
				t.Errorf("learned_vetter: %d rows on 4 stars, want at most %d each", rows, pipeline.VetterPeaks)
			}
		case RowExpert:
			if rows > 4*pipeline.ExpertMaxSignals {
				t.Errorf("expert: %d rows on 4 stars, want at most %d each", rows, pipeline.ExpertMaxSignals)
			}
		}
	}
	b, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	var back Table
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	json.Unmarshal(b, &raw)
	for i, r := range raw.Rows {
		var cell map[string]any
		json.Unmarshal(r[sets.Dev], &cell)
		for _, k := range []string{"S", "C", "F", "eb_share", "credit", "false", "planets", "scored_stars", "by_population", "by_mes_bin"} {
			if _, ok := cell[k]; !ok {
				t.Errorf("row %d's dev cell lacks %q", i, k)
			}
		}
	}
	if back.Rows[4].Cells[sets.Dev].Credit != tab.Rows[4].Cells[sets.Dev].Credit {
		t.Error("the table does not survive a JSON round trip")
	}
}

func ptr[T any](v T) *T { return &v }

func TestWriteSolutionShipsAnUnreachableBinary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "naive")
	bin := filepath.Join(t.TempDir(), "tb")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A binary under the temporary directory is hidden by the sandbox's private /tmp: it must be copied.
	if err := writeSolution(dir, RowNaive, bin); err != nil {
		t.Fatal(err)
	}
	script, _ := os.ReadFile(filepath.Join(dir, "run"))
	if !bytes.Contains(script, []byte(`"$(dirname "$0")/transitbench" pipeline naive_v0 "$1"`)) {
		t.Errorf("run script %q does not exec the shipped copy", script)
	}
	if _, err := os.Stat(filepath.Join(dir, "transitbench")); err != nil {
		t.Errorf("binary not shipped: %v", err)
	}
	if reachable("/tmp/x") || !reachable("/bin/sh") && !reachable("/usr/bin/sh") {
		t.Error("reachable: /tmp must be hidden and /bin/sh reachable")
	}
	// A world-readable binary outside the system trees (here under /var/tmp) is out of the sandbox's allow-list
	// root on Linux: it must be shipped too, not exec'd at its host path.
	if runtime.GOOS == "linux" {
		outside, err := os.MkdirTemp("/var/tmp", "tb-ladder-test-")
		if err != nil {
			t.Skipf("cannot make a directory under /var/tmp: %v", err)
		}
		defer os.RemoveAll(outside)
		if err := os.Chmod(outside, 0o755); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(outside, "tb")
		if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if reachable(exe) {
			t.Errorf("reachable(%s) = true, but a star sees only the system trees of the host", exe)
		}
	}
}

func TestMerge(t *testing.T) {
	a := &Table{Generator: "g", Fingerprints: map[string]string{"dev": "x"}, Rows: []Row{{Name: RowEmpty}, {Name: RowNaive}}}
	b := &Table{Generator: "g", Fingerprints: map[string]string{"dev": "x"}, Rows: []Row{{Name: RowReference}, {Name: RowNaive, Cells: map[string]*Cell{"dev": {}}}}}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range m.Rows {
		names = append(names, r.Name)
	}
	if len(names) != 3 || names[0] != RowEmpty || names[1] != RowNaive || names[2] != RowReference || m.Rows[1].Cells == nil {
		t.Errorf("merged rows %v (naive from the new table: %v)", names, m.Rows[1].Cells != nil)
	}
	c := &Table{Generator: "g", Fingerprints: map[string]string{"A": "z"}, Rows: []Row{{Name: RowStarter}}}
	if m, err := Merge(a, c); err != nil || len(m.Fingerprints) != 2 || len(m.Rows) != 3 {
		t.Errorf("merging a table of another set: %v, fingerprints %v, %d rows", err, m.Fingerprints, len(m.Rows))
	}
	// A row run on another set keeps the cells it has on the first.
	d := &Table{Generator: "g", Fingerprints: map[string]string{"A": "z"}, Rows: []Row{{Name: RowNaive, Cells: map[string]*Cell{"A": {Summary: grader.Summary{Totals: grader.Totals{S: -0.2}}}}}}}
	m, err = Merge(m, d)
	if err != nil {
		t.Fatal(err)
	}
	if naive := m.Rows[1]; naive.Name != RowNaive || naive.Cells["dev"] == nil || naive.Cells["A"] == nil || naive.Cells["A"].S != -0.2 {
		t.Errorf("naive_v0 after merging its A cell: %+v", naive)
	}
	b.Fingerprints["dev"] = "y"
	if _, err := Merge(a, b); err == nil {
		t.Error("merged tables whose dev sets differ")
	}
}

// TestExpertStarterRunsTheExpertPipeline: 'init --starter expert' makes a workspace whose solution is the expert
// pipeline (a run script and a copy of the program): its dev run goes through the sandbox like any solution,
// every star exits normally, and the rows it prints on each star are the expert pipeline's own, in-process.
func TestExpertStarterRunsTheExpertPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the expert pipeline on four stars in the sandbox")
	}
	home := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Init(filepath.Join(t.TempDir(), "ws"), workspace.InitOptions{Home: home,
		Starter: workspace.StarterExpert, Binary: exe, Compositions: tiny})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"run", "README.md", "bin/transitbench"} {
		if _, err := os.Stat(filepath.Join(ws.SolutionDir(), f)); err != nil {
			t.Errorf("the expert starter lacks %s: %v", f, err)
		}
	}
	if k := ws.SolutionKind(); k != "executable" {
		t.Errorf("solution kind %q, want executable", k)
	}
	rep, err := ws.Dev(context.Background(), workspace.RunOptions{Home: home, Workers: 2, AllowDegraded: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Failures; rep.StarsRun != 4 || f.Timeout+f.Crash+f.OutputLimit != 0 {
		t.Fatalf("%d stars run, failures %+v", rep.StarsRun, rep.Failures)
	}
	set, err := sets.Open(home, sets.Dev, sets.Options{Composition: ptr(tiny[sets.Dev])})
	if err != nil {
		t.Fatal(err)
	}
	var want grader.Summary
	var res []grader.StarResult
	for _, id := range set.IDs {
		dir := filepath.Join(t.TempDir(), id)
		if err := set.WriteStarDir(id, dir); err != nil {
			t.Fatal(err)
		}
		rows, err := PipelineRows(io.Discard, pipeline.NameExpert, dir)
		if err != nil {
			t.Fatal(err)
		}
		valid, err := set.ValidTimes(id)
		if err != nil {
			t.Fatal(err)
		}
		var gr []grader.Row
		for _, r := range rows {
			gr = append(gr, grader.Row{PeriodDays: r.PeriodDays, T0Days: r.T0Days, Score: r.Score})
		}
		res = append(res, grader.MatchStar(set.Answers[id], valid, gr))
	}
	want = grader.Summarize(res)
	if rep.Credit != want.Credit || rep.False != want.False || rep.Planets != want.Planets {
		t.Errorf("the starter's dev run: credit %g, false %d of %d planets; the expert pipeline in-process: %g, %d of %d",
			rep.Credit, rep.False, rep.Planets, want.Credit, want.False, want.Planets)
	}
}
