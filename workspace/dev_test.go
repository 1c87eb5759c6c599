package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/internal/testsets"
	"transitbench/internal/testutil"
	"transitbench/sandbox"
)

// TestMain lets the test binary serve as the sandbox's child process, as cmd/transitbench's main does.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain()
	}
	if mode := os.Getenv(killChildEnv); mode != "" {
		os.Exit(killChildMain(mode))
	}
	os.Exit(m.Run())
}

// small compositions keep the tests quick: the real sets are 196 and 1,000 stars.
var small = testsets.Small()

// oracleSolution writes an executable `run` that looks its star's id up in star.json and prints the true
// ephemeris of the star's scored planet, taken from answers the test knows — and, on every star, one row at a
// period no planet has. So every planet gets full credit and every scored star one false candidate.
func oracleSolution(t *testing.T, dir string, answers map[string]data.Answer) {
	t.Helper()
	testutil.WriteRunScript(t, dir, testsets.OracleScript(testsets.PlanetRows(answers), "", "echo 1.2345678,170.5,1\n"))
}

func openSmall(home, name string) (*sets.Set, error) {
	c := small[name]
	return sets.Open(home, name, sets.Options{Composition: &c})
}

func newTestWorkspace(t *testing.T) (*Workspace, string) {
	t.Helper()
	home := t.TempDir()
	ws, err := Init(filepath.Join(t.TempDir(), "ws"), InitOptions{Home: home, Lang: "python", Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	return ws, home
}

func TestInitWritesTheBox(t *testing.T) {
	ws, home := newTestWorkspace(t)
	for _, p := range []string{"TASK.md", "solution/solution.py", "data/dev/answers.json", StateDir + "/workspace.json"} {
		if _, err := os.Stat(filepath.Join(ws.Root, p)); err != nil {
			t.Errorf("workspace lacks %s: %v", p, err)
		}
	}
	set, err := openSmall(home, sets.Dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range set.IDs {
		c, s, err := data.ReadStarDir(filepath.Join(ws.DevDir(), id))
		if err != nil {
			t.Fatalf("star %s: %v", id, err)
		}
		if s.ID != id || c.Len() < 10000 {
			t.Errorf("star %s: id %q, %d cadences", id, s.ID, c.Len())
		}
	}
	// Hidden data never enters the workspace.
	filepath.Walk(ws.Root, func(p string, info os.FileInfo, err error) error {
		if strings.Contains(p, "secret") || strings.Contains(filepath.Base(p), "A-") {
			t.Errorf("workspace holds %s", p)
		}
		return nil
	})
	if _, err := Init(ws.Root, InitOptions{Home: home, Compositions: small}); !errors.Is(err, ErrExists) {
		t.Errorf("Init over an existing workspace: %v, want ErrExists", err)
	}
	reopened, err := Open(filepath.Join(ws.Root, "solution"))
	if err != nil || reopened.Root != ws.Root {
		t.Errorf("Open from a subdirectory: %v, root %v", err, reopened)
	}
}

// TestInitReportsEachStar: the dev stars are written several at a time, and the progress still counts each
// written star once, in order, against the set's size, and every star is on disk when Init returns.
func TestInitReportsEachStar(t *testing.T) {
	home := t.TempDir()
	var got []int
	total := -1
	ws, err := Init(filepath.Join(t.TempDir(), "ws"), InitOptions{Home: home, Lang: "go", Compositions: small,
		StarProgress: func(done, n int) { got, total = append(got, done), n }})
	if err != nil {
		t.Fatal(err)
	}
	set, err := openSmall(home, sets.Dev)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(set.IDs) || len(got) != len(set.IDs) {
		t.Fatalf("progress reported %d stars of %d, want %d of %d", len(got), total, len(set.IDs), len(set.IDs))
	}
	for i, d := range got {
		if d != i+1 {
			t.Fatalf("progress counts %v, want 1, 2, … %d", got, len(set.IDs))
		}
	}
	for _, id := range set.IDs {
		if _, err := os.Stat(filepath.Join(ws.DevDir(), id, data.LightCurveFile)); err != nil {
			t.Errorf("star %s: %v", id, err)
		}
	}
}

func TestDevScoresAndStores(t *testing.T) {
	ws, home, set := oracleWorkspace(t)
	events := make(chan Event, 64)
	rep, err := ws.Dev(context.Background(), RunOptions{Home: home, Workers: 2}, events)
	if err != nil {
		t.Fatal(err)
	}
	close(events)
	n := 0
	for range events {
		n++
	}
	if n != len(set.IDs) || rep.StarsRun != len(set.IDs) || !rep.Complete {
		t.Fatalf("events %d, stars run %d, complete %v; want %d stars", n, rep.StarsRun, rep.Complete, len(set.IDs))
	}
	sum := set.Summary()
	// Every scored planet is found: credit = planets. Every scored star got the one extra row, false.
	if rep.Credit != float64(sum.Planets) || rep.False != sum.ScoredStars {
		t.Errorf("credit %.1f false %d; want %d and %d", rep.Credit, rep.False, sum.Planets, sum.ScoredStars)
	}
	wantS := float64(sum.Planets-sum.ScoredStars) / float64(sum.Planets)
	if math.Abs(rep.S-wantS) > 1e-12 || rep.C != 1 {
		t.Errorf("S %.4f C %.4f; want %.4f and 1", rep.S, rep.C, wantS)
	}
	if rep.Isolation == "" || rep.Failures != (Failures{}) {
		t.Errorf("isolation %q failures %+v", rep.Isolation, rep.Failures)
	}
	last, run, err := ws.LastOutcomes(context.Background(), home, sets.Dev)
	if err != nil || run == nil || run.ID != rep.RunID || len(last) != len(set.IDs) {
		t.Fatalf("LastOutcomes: %v, run %+v, %d outcomes", err, run, len(last))
	}
	// A finished run is not resumed: the next dev run is a new one.
	rep2, err := ws.Dev(context.Background(), RunOptions{Home: home, Limit: 2}, nil)
	if err != nil || rep2.RunID == rep.RunID || rep2.StarsRun != 2 {
		t.Errorf("second dev run: %v, id %d (first %d), %d stars", err, rep2.RunID, rep.RunID, rep2.StarsRun)
	}
}

func TestDevResumesAnInterruptedRun(t *testing.T) {
	ws, home, set := oracleWorkspace(t)
	// Cancel after the third star has been stored.
	rep, err := devInterrupted(ws, RunOptions{Home: home, Workers: 1}, 3)
	if !errors.Is(err, context.Canceled) || rep == nil || rep.Complete {
		t.Fatalf("interrupted run: err %v, report %+v", err, rep)
	}
	if rep.StarsRun < 3 || rep.StarsRun >= len(set.IDs) {
		t.Fatalf("interrupted run kept %d stars, want 3 to %d", rep.StarsRun, len(set.IDs)-1)
	}
	kept := rep.StarsRun
	rep2, err := ws.Dev(context.Background(), RunOptions{Home: home, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.RunID != rep.RunID || rep2.Resumed != kept || rep2.StarsRun != len(set.IDs) || !rep2.Complete {
		t.Errorf("resumed run: id %d (want %d), resumed %d (want %d), stars %d", rep2.RunID, rep.RunID, rep2.Resumed, kept, rep2.StarsRun)
	}
	if rep2.C != 1 {
		t.Errorf("resumed run C = %.3f, want 1", rep2.C)
	}
}

func TestGradingHidesTheAnswers(t *testing.T) {
	// The data directory and the workspace are put outside /tmp, which the sandbox replaces by a private tmpfs
	// anyway, so that only the masking can hide them.
	base, err := os.MkdirTemp("/var/tmp", "transitbench-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil { // as a data directory's parent usually is
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	ws, err := Init(filepath.Join(base, "ws"), InitOptions{Home: home, Lang: "python", Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	// A solution that tries to read the hidden set's answers, the secret seed and the workspace's dev answers by
	// their absolute paths, and fails loudly (exit 3) if any is readable.
	// (The hidden set's files are also mode 0600 to the sandbox's unprivileged user; the dev set's answers in the
	// data directory are world-readable, so only the mask hides them.)
	targets := []string{filepath.Join(home, "sets", "A", "answers.json"), filepath.Join(home, "secret.seed"),
		filepath.Join(home, "sets", "dev", "answers.json"), filepath.Join(ws.DevDir(), "answers.json")}
	script := "#!/bin/sh\n"
	for _, p := range targets {
		script += fmt.Sprintf("if cat %q >/dev/null 2>&1; then echo LEAK %s >&2; exit 3; fi\n", p, p)
	}
	script += "echo period_days,t0_days,score\n"
	testutil.WriteRunScript(t, ws.SolutionDir(), script)
	rep, err := ws.Grade(context.Background(), RunOptions{Home: home, Workers: 2, Compositions: small}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The files exist on the host ...
	for _, p := range targets {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s should exist on the host: %v", p, err)
		}
	}
	// ... but no star could read them.
	for _, r := range []*Report{rep.A, rep.B, rep.Dev} {
		if r.Failures != (Failures{}) || r.StarsRun == 0 {
			t.Errorf("set %s: failures %+v over %d stars: a star could read hidden data", r.Set, r.Failures, r.StarsRun)
		}
	}
}

func TestGradeOnceOnly(t *testing.T) {
	ws, home := newTestWorkspace(t)
	// A plain solution: one row everywhere, the same period; its score on each set is whatever it is.
	testutil.WriteRunScript(t, ws.SolutionDir(), "#!/bin/sh\necho period_days,t0_days,score\necho 3.3,171.0,5\n")
	opt := RunOptions{Home: home, Workers: 2, Compositions: small}
	rep, err := ws.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.A == nil || rep.B == nil || rep.Dev == nil || rep.Again {
		t.Fatalf("grade report %+v", rep)
	}
	if rep.A.StarsRun != small[sets.A].Total() || rep.B.StarsRun != small[sets.B].Total() || rep.Dev.StarsRun != small[sets.Dev].Total() {
		t.Errorf("stars run A %d B %d dev %d", rep.A.StarsRun, rep.B.StarsRun, rep.Dev.StarsRun)
	}
	if _, err := os.Stat(filepath.Join(FrozenDir(home, rep.Frozen), "run")); err != nil {
		t.Errorf("frozen copy missing: %v", err)
	}
	// The same solution again: refused without Again.
	if _, err := ws.Grade(context.Background(), opt, nil); !errors.Is(err, ErrAlreadyGraded) {
		t.Fatalf("second grade: %v, want ErrAlreadyGraded", err)
	}
	opt.Again = true
	rep2, err := ws.Grade(context.Background(), opt, nil)
	if err != nil || !rep2.Again || rep2.Frozen != rep.Frozen {
		t.Fatalf("grade --again: %v, %+v", err, rep2)
	}
	// The same solution scores the same on the same data (SPEC: determinism).
	if rep2.A.S != rep.A.S || rep2.B.S != rep.B.S || rep2.Dev.S != rep.Dev.S {
		t.Errorf("regrade changed the score: A %.4f→%.4f B %.4f→%.4f", rep.A.S, rep2.A.S, rep.B.S, rep2.B.S)
	}
}

// TestDevRecordsProtections: a dev run's report says which of the sandbox's protections every star had, as
// stored in the run's summary; as root on Linux that is all four.
func TestDevRecordsProtections(t *testing.T) {
	ws, home, _ := oracleWorkspace(t)
	rep, err := ws.Dev(context.Background(), RunOptions{Home: home, Workers: 1, Limit: 2, Compositions: small}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := sandbox.Probe().Protections(); rep.Protections != want {
		t.Errorf("report protections %+v, want what the machine allows, %+v", rep.Protections, want)
	}
	if os.Geteuid() == 0 && runtime.GOOS == "linux" && sandbox.Probe().Full() && !rep.Protections.All() {
		t.Errorf("as root with full isolation the run lacks %v", rep.Protections.Missing())
	}
	run, _ := storedRun(t, home, KindDev, sets.Dev)
	var stored Report
	if err := json.Unmarshal(run.Summary, &stored); err != nil || stored.Protections != rep.Protections {
		t.Errorf("stored summary protections %+v (%v), want %+v", stored.Protections, err, rep.Protections)
	}
}
