package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/sandbox"
)

// Kill-and-resume tests: the test binary re-runs itself as a child (killChildEnv names what to run) that starts
// a dev run, a grading or a baseline run; the parent polls the results store until some stars are stored,
// SIGKILLs the child — nothing of its own clean-up runs — then runs the same thing again in-process and checks
// that the finished stars were kept, not run again (their stored outcomes are untouched), and that the result
// equals an uninterrupted run.

const (
	killChildEnv = "TRANSITBENCH_TEST_KILL_CHILD" // dev, grade or baseline
	killHomeEnv  = "TRANSITBENCH_TEST_KILL_HOME"
	killWSEnv    = "TRANSITBENCH_TEST_KILL_WS"
	killSolEnv   = "TRANSITBENCH_TEST_KILL_SOL" // the baseline's solution directory
)

// killChildMain is the child's body: it runs mode to the end (the parent kills it long before).
func killChildMain(mode string) int {
	home, root := os.Getenv(killHomeEnv), os.Getenv(killWSEnv)
	opt := RunOptions{Home: home, Workers: 1, Compositions: small}
	ctx := context.Background()
	var err error
	switch mode {
	case "dev", "grade":
		var ws *Workspace
		if ws, err = Open(root); err == nil {
			if mode == "dev" {
				_, err = ws.Dev(ctx, opt, nil)
			} else {
				_, err = ws.Grade(ctx, opt, nil)
			}
		}
	case "baseline":
		err = runBaselineOnce(os.Getenv(killSolEnv), opt)
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// runBaselineOnce runs the solution in solDir as the baseline row "slow" over the small dev set.
func runBaselineOnce(solDir string, opt RunOptions) error {
	_, err := runBaselineReport(solDir, opt)
	return err
}

func runBaselineReport(solDir string, opt RunOptions) (*Report, error) {
	set, err := OpenSet(sets.Dev, opt)
	if err != nil {
		return nil, err
	}
	sol, err := sandbox.Detect(solDir)
	if err != nil {
		return nil, err
	}
	defer sol.Close()
	return RunBaseline(context.Background(), set, sol, set.IDs, "slow", opt, nil)
}

// slowOracle is oracleSolution with a pause per star, so that the parent can kill a run part-way.
func slowOracle(t *testing.T, dir string, home string, pause string) {
	t.Helper()
	set, err := openSmall(home, sets.Dev)
	if err != nil {
		t.Fatal(err)
	}
	answers := set.Answers
	for _, name := range []string{sets.A, sets.B} {
		s, err := openSmall(home, name)
		if err != nil {
			t.Fatal(err)
		}
		for id, a := range s.Answers {
			answers[id] = a
		}
	}
	oracleSolution(t, dir, answers)
	path := filepath.Join(dir, "run")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	script := strings.Replace(string(b), "#!/bin/sh\n", "#!/bin/sh\nsleep "+pause+"\n", 1)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// startChild starts the test binary as a kill child in mode.
func startChild(t *testing.T, mode, home, root, sol string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+mode, killHomeEnv+"="+home, killWSEnv+"="+root, killSolEnv+"="+sol)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// killAfter polls the store of home until the latest run of kind on set has at least n stored stars, then
// SIGKILLs child and returns that run and its stored outcomes.
func killAfter(t *testing.T, child *exec.Cmd, home, kind, set string, n int) (store.Run, map[string]store.Outcome) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("the child ended before it was killed: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("no %s run on %s reached %d stars in time", kind, set, n)
		}
		run, outs := storedRun(t, home, kind, set)
		if run.ID == 0 || len(outs) < n {
			continue
		}
		if err := child.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-exited
		run, outs = storedRun(t, home, kind, set) // stars stored between the poll and the kill count too
		return run, outs
	}
}

// storedRun returns the latest run of kind on set in home's store and its outcomes by star.
func storedRun(t *testing.T, home, kind, set string) (store.Run, map[string]store.Outcome) {
	t.Helper()
	if _, err := os.Stat(storePath(home)); err != nil {
		return store.Run{}, nil
	}
	st := openTestStore(t, home)
	defer st.Close()
	ctx := context.Background()
	runs, err := st.Runs(ctx, store.RunFilter{Kind: kind, Set: set, Limit: 1})
	if err != nil || len(runs) == 0 {
		return store.Run{}, nil
	}
	m := map[string]store.Outcome{}
	if runs[0].Hidden {
		// A hidden run keeps only sealed resume states, and those only while it is unfinished (SPEC A8).
		hs, err := openSmall(home, set)
		if err != nil {
			t.Fatal(err)
		}
		states, err := st.HiddenOutcomes(ctx, runs[0].ID, hs.IDs)
		if err != nil {
			t.Fatal(err)
		}
		for id := range states {
			m[id] = store.Outcome{StarID: id}
		}
		return runs[0], m
	}
	outs, err := st.Outcomes(ctx, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		m[o.StarID] = o
	}
	return runs[0], m
}

// checkKept checks that every outcome stored before the kill is still there, unchanged (same update time and
// runtime): the resumed run did not run those stars again.
func checkKept(t *testing.T, home, kind, set string, runID int64, before map[string]store.Outcome) {
	t.Helper()
	run, after := storedRun(t, home, kind, set)
	if run.ID != runID {
		t.Fatalf("the latest %s run on %s is %d, want the resumed run %d", kind, set, run.ID, runID)
	}
	if run.Hidden {
		// A finished hidden run keeps no per-star records to compare: the report's Resumed count says how many
		// stars the resumed run kept (checked by the callers), and workspace/hidden_test.go counts the stars run.
		before = nil
	}
	for id, o := range before {
		a, ok := after[id]
		if !ok || !a.Updated.Equal(o.Updated) || a.RuntimeMS != o.RuntimeMS {
			t.Errorf("star %s was run again after the resume: before %v %d ms, after %v %d ms", id, o.Updated,
				o.RuntimeMS, a.Updated, a.RuntimeMS)
		}
	}
	if run.Status != store.StatusDone {
		t.Errorf("resumed run ended %s", run.Status)
	}
}

func sameScore(t *testing.T, what string, got, want *Report) {
	t.Helper()
	if !reflect.DeepEqual(got.Summary, want.Summary) || got.StarsRun != want.StarsRun {
		t.Errorf("%s: resumed result differs from an uninterrupted run:\n got  S %.4f C %.4f F %.2f credit %.1f false %d (%d stars)\n want S %.4f C %.4f F %.2f credit %.1f false %d (%d stars)",
			what, got.S, got.C, got.F, got.Credit, got.False, got.StarsRun, want.S, want.C, want.F, want.Credit, want.False, want.StarsRun)
	}
}

func TestDevSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a dev run in a child process")
	}
	ws, home := newTestWorkspace(t)
	slowOracle(t, ws.SolutionDir(), home, "0.4")
	run, before := killAfter(t, startChild(t, "dev", home, ws.Root, ""), home, KindDev, sets.Dev, 3)
	if run.Status != store.StatusRunning || len(before) >= small[sets.Dev].Total() {
		t.Fatalf("killed run: status %s with %d stars; want running with some stars left", run.Status, len(before))
	}
	opt := RunOptions{Home: home, Workers: 2, Compositions: small}
	rep, err := ws.Dev(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID != run.ID || rep.Resumed != len(before) || !rep.Complete {
		t.Errorf("resumed dev run: id %d (killed %d), resumed %d (kept %d), complete %v", rep.RunID, run.ID, rep.Resumed,
			len(before), rep.Complete)
	}
	checkKept(t, home, KindDev, sets.Dev, run.ID, before)
	opt.Fresh = true
	whole, err := ws.Dev(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameScore(t, "dev", rep, whole)
}

// killGrading starts a grading of a slow oracle (pause seconds a star) in a child process and kills it once
// two stars of set are stored; it returns the workspace, its home, and the killed run of set with its stars.
func killGrading(t *testing.T, pause, set string) (*Workspace, string, store.Run, map[string]store.Outcome) {
	t.Helper()
	if testing.Short() {
		t.Skip("kills a grading in a child process")
	}
	ws, home := newTestWorkspace(t)
	slowOracle(t, ws.SolutionDir(), home, pause)
	run, before := killAfter(t, startChild(t, "grade", home, ws.Root, ""), home, KindGrade, set, 2)
	return ws, home, run, before
}

func TestGradeSurvivesKill(t *testing.T) {
	// Killed on B, after A was finished and recorded: the resumed grading keeps A as it was, resumes B and runs
	// dev, and needs no --again.
	ws, home, run, before := killGrading(t, "0.3", sets.B)
	aRun, aBefore := storedRun(t, home, KindGrade, sets.A)
	if aRun.Status != store.StatusDone || len(before) >= small[sets.B].Total() {
		t.Fatalf("killed grading: A %s, %d stars of B", aRun.Status, len(before))
	}
	opt := RunOptions{Home: home, Workers: 2, Compositions: small}
	rep, err := ws.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatalf("resuming the grading: %v", err)
	}
	if rep.Again || rep.A.RunID != aRun.ID || rep.B.RunID != run.ID || rep.B.Resumed != len(before) || !rep.B.Complete {
		t.Errorf("resumed grading: again %v, A run %d (was %d), B run %d (killed %d), B resumed %d (kept %d)", rep.Again,
			rep.A.RunID, aRun.ID, rep.B.RunID, run.ID, rep.B.Resumed, len(before))
	}
	checkKept(t, home, KindGrade, sets.A, aRun.ID, aBefore)
	checkKept(t, home, KindGrade, sets.B, run.ID, before)
	// The grading is complete now: a further one needs --again, and gives the same scores.
	if _, err := ws.Grade(context.Background(), opt, nil); err == nil || !strings.Contains(err.Error(), "graded already") {
		t.Errorf("grading a graded solution again without --again: %v", err)
	}
	opt.Again = true
	whole, err := ws.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameScore(t, "A", rep.A, whole.A)
	sameScore(t, "B", rep.B, whole.B)
	sameScore(t, "dev", rep.Dev, whole.Dev)
}

func TestGradeSurvivesKillOnA(t *testing.T) {
	ws, home, run, before := killGrading(t, "0.4", sets.A)
	opt := RunOptions{Home: home, Workers: 2, Compositions: small}
	rep, err := ws.Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatalf("resuming the grading: %v", err)
	}
	if rep.A.RunID != run.ID || rep.A.Resumed != len(before) || rep.Again {
		t.Errorf("resumed grading: A run %d (killed %d), resumed %d (kept %d), again %v", rep.A.RunID, run.ID,
			rep.A.Resumed, len(before), rep.Again)
	}
	checkKept(t, home, KindGrade, sets.A, run.ID, before)
}

func TestBaselineSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a baseline run in a child process")
	}
	home := t.TempDir()
	sol := filepath.Join(t.TempDir(), "slow")
	slowOracle(t, sol, home, "0.4")
	run, before := killAfter(t, startChild(t, "baseline", home, "", sol), home, store.KindBaseline, sets.Dev, 3)
	opt := RunOptions{Home: home, Workers: 2, Compositions: small}
	rep, err := runBaselineReport(sol, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunID != run.ID || rep.Resumed != len(before) || !rep.Complete {
		t.Errorf("resumed baseline: id %d (killed %d), resumed %d (kept %d)", rep.RunID, run.ID, rep.Resumed, len(before))
	}
	checkKept(t, home, store.KindBaseline, sets.Dev, run.ID, before)
	// A finished baseline run is not resumed: the next is a new run, with the same result.
	whole, err := runBaselineReport(sol, opt)
	if err != nil {
		t.Fatal(err)
	}
	if whole.RunID == rep.RunID {
		t.Errorf("a finished baseline run was resumed")
	}
	sameScore(t, "baseline", rep, whole)
}

// TestDevResumesAFailedRun: a run that failed part-way (a star whose files could not be read, a store write
// refused) keeps its finished stars like an interrupted one, and the next dev run resumes it.
func TestDevResumesAFailedRun(t *testing.T) {
	ws, home, _ := oracleWorkspace(t)
	opt := RunOptions{Home: home, Workers: 1, Limit: 0, Compositions: small}
	rep, _ := devInterrupted(ws, opt, 3)
	if rep == nil || rep.StarsRun < 3 || rep.Complete {
		t.Fatalf("first run: %+v", rep)
	}
	st := openTestStore(t, home)
	if err := st.FinishRun(context.Background(), rep.RunID, store.StatusFailed, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, before := storedRun(t, home, KindDev, sets.Dev)
	rep2, err := ws.Dev(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.RunID != rep.RunID || rep2.Resumed != len(before) || !rep2.Complete || rep2.C != 1 {
		t.Errorf("after a failed run: id %d (failed %d), resumed %d (kept %d), complete %v, C %.3f", rep2.RunID, rep.RunID,
			rep2.Resumed, len(before), rep2.Complete, rep2.C)
	}
	checkKept(t, home, KindDev, sets.Dev, rep.RunID, before)
}
