package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"transitbench/grader/store"
	"transitbench/internal/testutil"
)

// constSolution writes a solution printing one fixed row; n makes its content (and so its hash) differ.
func constSolution(t *testing.T, ws *Workspace, n string) {
	t.Helper()
	testutil.WriteRunScript(t, ws.SolutionDir(), "#!/bin/sh\n# "+n+"\necho period_days,t0_days,score\necho 3.3,171.0,5\n")
}

// contestantKeys are the only keys a hidden set's report may show the contestant.
var contestantKeys = []string{"run_id", "set", "hidden", "stars_run", "resumed", "S", "score_withheld", "grading",
	"isolation", "protections", "solution_hash", "complete", "redacted"}

// TestGradeReportShowsSAlone grades a solution and checks what the contestant's report of it says of A and B:
// S and the run's identity, no breakdown, exit count, failure count or runtime; the report kept in the store
// (for the maintainer) has them all, and a hidden run listed for the contestant is redacted the same way.
func TestGradeReportShowsSAlone(t *testing.T) {
	ws, home := newTestWorkspace(t)
	constSolution(t, ws, "1")
	rep, err := ws.Grade(context.Background(), RunOptions{Home: home, Workers: 2, Compositions: small}, nil)
	if err != nil {
		t.Fatal(err)
	}
	shown := rep.ForContestant()
	for _, r := range []*Report{shown.A, shown.B} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if !slices.Contains(contestantKeys, k) {
				t.Errorf("the contestant's report on %s shows %q: %s", r.Set, k, b)
			}
		}
		if m["S"] != rep.A.S && r.Set == "A" {
			t.Errorf("the contestant's report on A has S %v, the grading %v", m["S"], rep.A.S)
		}
	}
	if b, _ := json.Marshal(shown.Dev); !json.Valid(b) || shown.Dev.Exits == nil || shown.Dev != rep.Dev {
		t.Errorf("the dev report is not shown in full: %s", b)
	}
	st := openTestStore(t, home)
	defer st.Close()
	stored, err := st.Run(context.Background(), rep.A.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var full map[string]any
	if err := json.Unmarshal(stored.Summary, &full); err != nil || full["by_population"] == nil || full["exits"] == nil ||
		full["slowest_seconds"] == nil {
		t.Errorf("the store does not keep the full report for the maintainer (%v): %s", err, stored.Summary)
	}
	var listed map[string]any
	if err := json.Unmarshal(RunForContestant(stored).Summary, &listed); err != nil {
		t.Fatal(err)
	}
	for k := range listed {
		if !slices.Contains(contestantKeys, k) {
			t.Errorf("the contestant's listing of run %d shows %q", stored.ID, k)
		}
	}
}

// TestCopiedWorkspaceKeepsCounting grades a workspace, copies it to another path and grades another solution
// from the copy: the copy's grading is #2, not #1; a workspace made by init is a lineage of its own.
func TestCopiedWorkspaceKeepsCounting(t *testing.T) {
	ws, home := newTestWorkspace(t)
	opt := RunOptions{Home: home, Workers: 2, Compositions: small}
	constSolution(t, ws, "1")
	if rep, err := ws.Grade(context.Background(), opt, nil); err != nil || rep.Grading != 1 {
		t.Fatalf("first grading: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", ws.Root, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	cp, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	constSolution(t, cp, "2")
	rep, err := cp.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Grading != 2 {
		t.Errorf("the copied workspace's grading is #%d, want #2", rep.Grading)
	}
	if n, _, err := ws.NextGrading(context.Background(), home); err != nil || n != 3 {
		t.Errorf("the original's next grading is #%d (%v), want #3", n, err)
	}
	other, err := Init(filepath.Join(t.TempDir(), "other"), InitOptions{Home: home, Lang: "python", Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, err := other.NextGrading(context.Background(), home); err != nil || n != 1 || other.Lineage() == ws.Lineage() {
		t.Errorf("a new workspace's next grading is #%d (%v), lineage %s", n, err, other.Lineage())
	}
}

// TestFrozenGradingsAreCappedPerLabel grades frozen tars for the contestant "alice" with a cap of two: the
// third is refused before anything runs, from any grader workspace, while "bob" is still graded; the gradings
// are numbered per label.
func TestFrozenGradingsAreCappedPerLabel(t *testing.T) {
	contestant, home := newTestWorkspace(t)
	graderA, err := Init(filepath.Join(t.TempDir(), "grader"), InitOptions{Home: home, Lang: "python", Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	graderB, err := Init(filepath.Join(t.TempDir(), "grader2"), InitOptions{Home: home, Lang: "python", Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	freeze := func(n string) string {
		constSolution(t, contestant, n)
		ff, err := ExportFrozen(contestant.SolutionDir(), filepath.Join(t.TempDir(), "s.tar.gz"))
		if err != nil {
			t.Fatal(err)
		}
		return ff.Path
	}
	opt := RunOptions{Home: home, Workers: 2, Compositions: small, Contestant: "alice", MaxGradings: 2}
	for i, g := range []*Workspace{graderA, graderB} {
		rep, err := g.GradeFrozen(context.Background(), freeze(string(rune('a'+i))), "", opt, nil)
		if err != nil || rep.Grading != i+1 {
			t.Fatalf("alice's grading %d: %v", i+1, err)
		}
	}
	if _, err := graderA.GradeFrozen(context.Background(), freeze("c"), "", opt, nil); !errors.Is(err, ErrGradingCap) {
		t.Fatalf("alice's third grading: %v, want ErrGradingCap", err)
	}
	st := openTestStore(t, home)
	runs, err := st.Runs(context.Background(), store.RunFilter{Kind: KindGrade, Lineage: LineageContestant + "alice"})
	st.Close()
	if err != nil || len(runs) != 6 {
		t.Errorf("alice has %d grade runs (%v), want 6 (two gradings of A, B, dev)", len(runs), err)
	}
	opt.Contestant = "bob"
	if rep, err := graderA.GradeFrozen(context.Background(), freeze("d"), "", opt, nil); err != nil || rep.Grading != 1 {
		t.Fatalf("bob's first grading: %v", err)
	}
	opt.Contestant = "../x"
	if _, err := graderA.GradeFrozen(context.Background(), freeze("e"), "", opt, nil); !errors.Is(err, ErrBadLabel) {
		t.Errorf("label ../x: %v, want ErrBadLabel", err)
	}
}
