package workspace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"transitbench/data"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/internal/testutil"
	"transitbench/sandbox"
)

// TestReducedResultsSummarizeAlike checks that the reduced state a hidden run keeps of each star gives
// grader.Summarize exactly the summary of the stars' full results: every category, both populations, planets
// in each MES bin (and on the bins' edges), half credits, false candidates and counted EBs with and without rows.
func TestReducedResultsSummarizeAlike(t *testing.T) {
	full := []grader.StarResult{
		{StarID: "A-0000", Category: data.CategoryInjected, Population: data.PopulationRandom, Scored: true, MES: 5.2,
			Rows: make([]grader.RowResult, 2), Credit: 1, False: 1,
			Planets: []grader.PlanetResult{{PeriodDays: 12.5, MES: 5.2, Credit: 1}}},
		{StarID: "A-0001", Category: data.CategoryInjected, Population: data.PopulationFalseAlarm, Scored: true,
			Rows: make([]grader.RowResult, 1), Credit: 0.5,
			Planets: []grader.PlanetResult{{PeriodDays: 3.1, MES: grader.MESEdgeLow, Credit: 0.5}}},
		{StarID: "A-0002", Category: data.CategoryInjected, Population: data.PopulationRandom, Scored: true,
			Planets: []grader.PlanetResult{{PeriodDays: 40.2, MES: grader.MESEdgeHigh}, {PeriodDays: 7, MES: 19.9}}},
		{StarID: "A-0003", Category: data.CategoryUntouched, Population: data.PopulationFalseAlarm, Scored: true,
			Rows: make([]grader.RowResult, 3), False: 3},
		{StarID: "A-0004", Category: data.CategoryEB, Scored: true, CountedEB: true, EBWithRows: true,
			Rows: make([]grader.RowResult, 1), False: 1},
		{StarID: "A-0005", Category: data.CategoryEB, Scored: true, CountedEB: true},
		{StarID: "A-0006", Category: data.CategoryConfirmed, Scored: false, Rows: make([]grader.RowResult, 2)},
	}
	var reduced []grader.StarResult
	for _, sr := range full {
		h := reduce(sr, sandbox.ExitOK, time.Second)
		if h.result().StarID != "" || len(h.result().Planets) != len(sr.Planets) {
			t.Fatalf("reduced %s: %+v", sr.StarID, h.result())
		}
		for _, p := range h.result().Planets {
			if p.PeriodDays != 0 {
				t.Fatalf("reduced %s keeps a period", sr.StarID)
			}
		}
		reduced = append(reduced, h.result())
	}
	want, got := grader.Summarize(full), grader.Summarize(reduced)
	if !reflect.DeepEqual(want, got) {
		t.Errorf("summary of reduced results\n%+v\nwant\n%+v", got, want)
	}
	if want.ByMESBin.Low.Planets != 1 || want.ByMESBin.Mid.Planets != 1 || want.ByMESBin.High.Planets != 2 {
		t.Fatalf("the cases do not cover the MES bins: %+v", want.ByMESBin)
	}
}

// slowSolution writes a solution that takes about delay seconds per star and prints no rows.
func slowSolution(t *testing.T, ws *Workspace, delay string) {
	t.Helper()
	testutil.WriteRunScript(t, ws.SolutionDir(), "#!/bin/sh\nsleep "+delay+"\necho period_days,t0_days,score\necho 3.3,171.0,5\n")
}

// TestInterruptedGradingResumes interrupts a grading on A after three stars, checks what the store kept of
// them (no outcome rows, three sealed states), resumes it (only the other stars run, under the same grading
// number) and checks the numbering of the gradings that follow.
func TestInterruptedGradingResumes(t *testing.T) {
	ws, home := newTestWorkspace(t)
	slowSolution(t, ws, "0.2")
	opt := RunOptions{Home: home, Workers: 1, Compositions: small}
	rep := interruptGrading(t, ws, opt)
	kept := rep.A.StarsRun
	st := openTestStore(t, home)
	defer st.Close()
	if outs, err := st.Outcomes(context.Background(), rep.A.RunID); err != nil || len(outs) != 0 {
		t.Errorf("the hidden run keeps %d outcome rows (%v)", len(outs), err)
	}
	if sealed := countSealed(st, "WHERE run_id = ?", rep.A.RunID); sealed != kept {
		t.Errorf("%d sealed states for %d finished stars", sealed, kept)
	}

	if n, resume, err := ws.NextGrading(context.Background(), home); err != nil || n != 1 || !resume {
		t.Errorf("NextGrading after the interruption: #%d, resume %v (%v); want #1, resume", n, resume, err)
	}
	// Grading again resumes: the finished stars are not run again and the grading keeps its number.
	var ran int
	events, stop := watchEvents(func(ev Event) {
		if ev.Set == "A" {
			ran++
		}
	})
	rep2, err := ws.Grade(context.Background(), opt, events)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	total := small["A"].Total()
	if !rep2.Resumed || rep2.Grading != 1 || rep2.A.RunID != rep.A.RunID || rep2.A.Resumed != kept || ran != total-kept ||
		!rep2.A.Complete || rep2.A.ScoreWithheld || rep2.A.ScoredStars == 0 {
		t.Errorf("resumed grading: resumed %v grading %d run %d (was %d), %d stars taken over (want %d), %d run (want %d): %+v",
			rep2.Resumed, rep2.Grading, rep2.A.RunID, rep.A.RunID, rep2.A.Resumed, kept, ran, total-kept, rep2.A)
	}
	if rep2.A.Exits[sandbox.ExitOK] != total || len(rep2.A.Slowest) != SlowestShown || rep2.A.Slowest[0] < rep2.A.Slowest[SlowestShown-1] {
		t.Errorf("exits %v, slowest %v over %d stars", rep2.A.Exits, rep2.A.Slowest, total)
	}
	if sealed := countSealed(st, ""); sealed != 0 {
		t.Errorf("%d sealed states remain after the grading finished", sealed)
	}
	if n, resume, err := ws.NextGrading(context.Background(), home); err != nil || n != 2 || resume {
		t.Errorf("NextGrading after the grading: #%d, resume %v (%v); want #2", n, resume, err)
	}
	checkLaterGradings(t, ws, st, opt)
}

// interruptGrading grades ws, cancelling once three stars of A are done, and checks that the interrupted
// grading reports no score, and that no event of the hidden set carries a star or a score.
func interruptGrading(t *testing.T, ws *Workspace, opt RunOptions) *GradeReport {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Event
	events, stop := watchEvents(func(ev Event) {
		seen = append(seen, ev)
		if ev.Set == "A" && ev.Done == 3 {
			cancel()
		}
	})
	rep, err := ws.Grade(ctx, opt, events)
	stop()
	if !errors.Is(err, context.Canceled) || rep == nil || rep.A == nil || rep.A.Complete || rep.Grading != 1 {
		t.Fatalf("interrupted grading: %v, %+v", err, rep)
	}
	if !rep.A.ScoreWithheld || rep.A.Planets != 0 || rep.A.ScoredStars != 0 || rep.A.StarsRun < 3 {
		t.Errorf("interrupted hidden run reports a score: %+v", rep.A)
	}
	for _, ev := range seen {
		if ev.Star != nil || ev.Exit != "" || ev.Summary.ScoredStars != 0 {
			t.Errorf("an event of a hidden set carries a star or a score: %+v", ev)
		}
	}
	return rep
}

// countSealed counts the sealed states of hidden stars that the store holds, under the SQL condition where.
func countSealed(st *store.Store, where string, args ...any) int {
	var sealed int
	st.DB().QueryRow(`SELECT COUNT(*) FROM hidden_outcomes `+where, args...).Scan(&sealed)
	return sealed
}

// checkLaterGradings checks, after grading #1 of ws has finished, that the same solution is not graded again
// but with --again (grading #2), that another solution is grading #3, and that each grading has its three runs.
func checkLaterGradings(t *testing.T, ws *Workspace, st *store.Store, opt RunOptions) {
	t.Helper()
	if _, err := ws.Grade(context.Background(), opt, nil); !errors.Is(err, ErrAlreadyGraded) {
		t.Fatalf("grading a graded solution: %v", err)
	}
	opt.Again = true
	rep3, err := ws.Grade(context.Background(), opt, nil)
	if err != nil || rep3.Grading != 2 || !rep3.Again || rep3.Resumed {
		t.Fatalf("grade --again: %v, %+v", err, rep3)
	}
	slowSolution(t, ws, "0")
	opt.Again = false
	rep4, err := ws.Grade(context.Background(), opt, nil)
	if err != nil || rep4.Grading != 3 || rep4.Again {
		t.Fatalf("grading another solution: %v, %+v", err, rep4)
	}
	runs, err := st.Runs(context.Background(), store.RunFilter{Kind: KindGrade, Label: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for _, r := range runs {
		count[r.Grading]++
		if r.Hidden != (r.Set == "A" || r.Set == "B") {
			t.Errorf("run %d on %s: hidden %v", r.ID, r.Set, r.Hidden)
		}
	}
	if fmt.Sprint(count) != "map[1:3 2:3 3:3]" {
		t.Errorf("grade runs per grading: %v", count)
	}
}

// TestSecondProcessDoesNotTakeARun interrupts a dev run, lets a child process (this test binary) resume it,
// and tries to resume it from this process meanwhile: the attempt fails with ErrRunBusy naming the child's
// PID and leaves the run alone, and the child finishes it.
func TestSecondProcessDoesNotTakeARun(t *testing.T) {
	ws, home := newTestWorkspace(t)
	slowSolution(t, ws, "0.3")
	opt := RunOptions{Home: home, Workers: 1, Compositions: small}
	rep, err := devInterrupted(ws, opt, 2)
	if !errors.Is(err, context.Canceled) || rep == nil || rep.Complete {
		t.Fatalf("interrupted dev run: %v, %+v", err, rep)
	}

	child := exec.Command(os.Args[0], "-test.run=^TestHelperResumeDev$", "-test.v")
	child.Env = append(os.Environ(), "WORKSPACE_HELPER_ROOT="+ws.Root, "WORKSPACE_HELPER_HOME="+home)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var childRun int64
	for lines.Scan() {
		if f := strings.Fields(lines.Text()); len(f) == 2 && f[0] == "resuming" {
			childRun, _ = strconv.ParseInt(f[1], 10, 64)
			break
		}
	}
	if childRun != rep.RunID {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("the child resumed run %d, want %d", childRun, rep.RunID)
	}
	_, err = ws.Dev(context.Background(), opt, nil)
	want := fmt.Sprintf("run %d is being resumed by PID %d", rep.RunID, child.Process.Pid)
	if !errors.Is(err, ErrRunBusy) || !strings.Contains(err.Error(), want) {
		t.Errorf("second resume: %v, want ErrRunBusy saying %q", err, want)
	}
	st := openTestStore(t, home)
	defer st.Close()
	if r, _ := st.Run(context.Background(), rep.RunID); r.Status != store.StatusRunning {
		t.Errorf("the loser changed the run: status %s", r.Status)
	}
	for lines.Scan() {
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	r, err := st.Run(context.Background(), rep.RunID)
	if err != nil || r.Status != store.StatusDone {
		t.Errorf("after the child: run %+v (%v), want done", r, err)
	}
	outs, _ := st.Outcomes(context.Background(), rep.RunID)
	if len(outs) != small["dev"].Total() {
		t.Errorf("%d outcomes in the finished run, want %d", len(outs), small["dev"].Total())
	}
}

// TestHelperResumeDev is the child of TestSecondProcessDoesNotTakeARun: it resumes the workspace's dev run,
// printing "resuming RUN" at its first star, and finishes it.
func TestHelperResumeDev(t *testing.T) {
	root := os.Getenv("WORKSPACE_HELPER_ROOT")
	if root == "" {
		t.Skip("helper process of TestSecondProcessDoesNotTakeARun")
	}
	ws, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	first := true
	events, stop := watchEvents(func(ev Event) {
		if first {
			fmt.Printf("resuming %d\n", ev.RunID)
			os.Stdout.Sync()
			first = false
		}
	})
	rep, err := ws.Dev(context.Background(), RunOptions{Home: os.Getenv("WORKSPACE_HELPER_HOME"), Workers: 1, Compositions: small}, events)
	stop()
	if err != nil || !rep.Complete {
		t.Fatalf("resumed dev run: %v, %+v", err, rep)
	}
}

// TestGradingHeldElsewhereIsRefused holds the workspace's grading lock (as a grading in another process
// would) and checks that Grade refuses, naming the holder's PID, and records nothing.
func TestGradingHeldElsewhereIsRefused(t *testing.T) {
	ws, home := newTestWorkspace(t)
	slowSolution(t, ws, "0")
	release, _, err := data.TryLockFile(gradingLockPath(home, ws.Lineage()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ws.Grade(context.Background(), RunOptions{Home: home, Workers: 2, Compositions: small}, nil)
	release()
	want := fmt.Sprintf("a grading of this workspace is being run by PID %d", os.Getpid())
	if !errors.Is(err, ErrRunBusy) || !strings.Contains(err.Error(), want) {
		t.Errorf("grading while another holds the workspace: %v, want ErrRunBusy saying %q", err, want)
	}
	st := openTestStore(t, home)
	defer st.Close()
	if runs, _ := st.Runs(context.Background(), store.RunFilter{Kind: KindGrade}); len(runs) != 0 {
		t.Errorf("the refused grading recorded %d runs", len(runs))
	}
	if _, err := ws.Grade(context.Background(), RunOptions{Home: home, Workers: 2, Compositions: small}, nil); err != nil {
		t.Errorf("grading once the lock is free: %v", err)
	}
}
