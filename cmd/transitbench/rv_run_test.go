package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/workspace/rvtrack"
)

// These tests call the rv commands' run functions directly, without cobra: the options structs are the
// commands' whole input.

// rvOpts returns common options on the published tasks with a fresh data directory.
func rvOpts(t *testing.T, asJSON bool) rvCommon {
	return rvCommon{TasksDir: rvTasksDir, Home: t.TempDir(), JSON: asJSON}
}

// wantCode checks that err carries the error contract's code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got, _ := classify(err); got != code {
		t.Fatalf("error %q has code %s, want %s", err, got, code)
	}
}

// runJSON runs an rv command's run function on opts, fails the test on its error and decodes its JSON output
// into a T; it returns the output too.
func runJSON[T, O any](t *testing.T, run func(context.Context, O, io.Writer) error, opts O) (T, []byte) {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), opts, &out); err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v\n%s", err, out.Bytes())
	}
	return v, out.Bytes()
}

func TestRunRVList(t *testing.T) {
	res, raw := runJSON[rvListJSON](t, runRVList, rvListOptions{rvCommon: rvOpts(t, true), Tier: "real"})
	if len(res.Tasks) != 20 || res.Warnings == nil || !strings.Contains(string(raw), `"warnings": []`) {
		t.Fatalf("real tier: %d tasks, warnings %v", len(res.Tasks), res.Warnings)
	}
	for _, r := range res.Tasks {
		if r.Tier != "real" || r.NObs < 10 || r.Instruments < 1 || !(r.SpanDays > 0) || r.Budget.Submissions != 10 {
			t.Errorf("row %+v", r)
		}
	}
	var out bytes.Buffer
	if err := runRVList(context.Background(), rvListOptions{rvCommon: rvOpts(t, false), Tier: "easy"}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 21 || !strings.HasPrefix(lines[0], "TASK") {
		t.Errorf("easy tier as text: %d lines, first %q", len(lines), lines[0])
	}
	wantCode(t, runRVList(context.Background(), rvListOptions{rvCommon: rvOpts(t, true), Tier: "extreme"}, &out), codeUsage)
	missing := rvOpts(t, true)
	missing.TasksDir = filepath.Join(t.TempDir(), "none")
	wantCode(t, runRVList(context.Background(), rvListOptions{rvCommon: missing}, &out), codeNotFound)
}

func TestRunRVTruthcheck(t *testing.T) {
	res, _ := runJSON[rvTruthcheckJSON](t, runRVTruthcheck, rvTruthcheckOptions{rvCommon: rvOpts(t, true), Tier: "easy"})
	easy := res.Tiers["easy"]
	if len(res.Tiers) != 1 || easy == nil || easy.Tasks != 20 || len(res.Tasks) != 20 {
		t.Fatalf("easy truth check: tiers %v, %d tasks", res.Tiers, len(res.Tasks))
	}
	solvable := 0
	for _, c := range res.Tasks {
		if c.Solvable {
			solvable++
		}
	}
	// A task whose truth fails ok_rms or ok_delta_bic is not solvable.
	if solvable != easy.Solvable || easy.FailOKRMS > easy.Tasks-easy.Solvable || easy.FailOKDeltaBIC > easy.Tasks-easy.Solvable {
		t.Errorf("solvable: %d listed, counts %+v", solvable, easy)
	}
	// The truth matches itself under every gate; the honest ceiling's least-squares fit passes Easy 19/20 under
	// the original gate (SPEC B3) and every task under the calibrated one.
	if easy.Truth != (rvGatePasses{20, 20, 20}) || easy.Honest != (rvGatePasses{19, 19, 20}) {
		t.Errorf("easy: truth ceiling %v, honest ceiling %v; want 20/20/20 and 19/19/20", easy.Truth, easy.Honest)
	}
	honest := 0
	for _, c := range res.Tasks {
		if c.Honest.LeastSquares.PassedCalibrated && c.Honest.LeastSquares.NGuess == c.NGuess {
			honest++
		}
	}
	if honest != easy.Honest.Calibrated {
		t.Errorf("%d tasks list a calibrated pass of the honest fit, the tier counts %d", honest, easy.Honest.Calibrated)
	}
	// The Hard tier, where plain least squares diverges on two tasks (a model that is not finite, graded as no
	// planets): the JSON is written, and the strict gate passes none of the honest fits (SPEC B3: 0/40).
	hard, _ := runJSON[rvTruthcheckJSON](t, runRVTruthcheck, rvTruthcheckOptions{rvCommon: rvOpts(t, true), Tier: "hard"})
	if h := hard.Tiers["hard"]; h == nil || h.Tasks != 40 || h.Honest.Strict != 0 || h.Honest.Calibrated <= h.Honest.Original {
		t.Errorf("hard truth check: %+v", h)
	}
}

// TestRunRVFitShowSubmit starts a task, fits it, dry-runs the fit, submits it and shows the task, all in one
// data directory: the dry run spends nothing, the submission one.
func TestRunRVFitShowSubmit(t *testing.T) {
	ctx := context.Background()
	common := rvOpts(t, true)
	const id = "seed1108_diff2"
	var fit bytes.Buffer
	if err := runRVStart(ctx, rvShowOptions{rvCommon: common, Task: id}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := runRVFit(ctx, rvFitOptions{rvCommon: common, Task: id, Pipeline: "classical"}, &fit); err != nil {
		t.Fatal(err)
	}
	var sub rvgate.Submission
	if err := json.Unmarshal(fit.Bytes(), &sub); err != nil || len(sub.Planets) != 1 {
		t.Fatalf("fit: %v, %s", err, fit.Bytes())
	}
	submit := func(dry bool) rvgate.Feedback {
		t.Helper()
		opts := rvSubmitOptions{rvCommon: common, Task: id, Planets: "-", DryRun: dry, TokensUsed: 1000, TokensSet: true,
			In: bytes.NewReader(fit.Bytes())}
		fb, _ := runJSON[rvgate.Feedback](t, runRVSubmit, opts)
		return fb
	}
	if fb := submit(true); !fb.DryRun || fb.Passed != nil || fb.SubmissionsLeft != 3 || !fb.OKRMS || fb.TokensUsed == nil {
		t.Errorf("dry run: %+v", fb)
	}
	if fb := submit(true); fb.PassedStrict != nil || fb.PassedCalibrated != nil {
		t.Errorf("a dry run shows the strict or calibrated verdict: %+v", fb)
	}
	if fb := submit(false); fb.DryRun || fb.Passed == nil || !*fb.Passed || fb.Submission != 1 || fb.SubmissionsLeft != 2 || !fb.TaskPassed ||
		fb.PassedStrict == nil || !*fb.PassedStrict || fb.PassedCalibrated == nil || !*fb.PassedCalibrated {
		t.Errorf("submission: %+v", fb)
	}
	var show bytes.Buffer
	if err := runRVShow(ctx, rvShowOptions{rvCommon: common, Task: id}, &show); err != nil {
		t.Fatal(err)
	}
	var v rvShowJSON
	if err := json.Unmarshal(show.Bytes(), &v); err != nil || v.TaskID != id || v.NObs == 0 || len(v.RVsMS) != v.NObs ||
		v.State.State != rvtrack.StatePassed || v.State.SubmissionsLeft != 2 {
		t.Fatalf("show: %v, %+v", err, v)
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(common.Home))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Started[id]; !ok || l.Used(id) != 1 || !l.Passed(id) {
		t.Errorf("ledger: started %v, %d used, passed %v", l.Started, l.Used(id), l.Passed(id))
	}

	bad := rvSubmitOptions{rvCommon: common, Task: id, Planets: "-", TokensUsed: -1, TokensSet: true, In: strings.NewReader("[]")}
	wantCode(t, runRVSubmit(ctx, bad, &show), codeUsage)
	bad.TokensSet, bad.In = false, strings.NewReader("{not json")
	wantCode(t, runRVSubmit(ctx, bad, &show), codeBadInput)
	bad.In, bad.Task = strings.NewReader("[]"), "nosuch"
	wantCode(t, runRVSubmit(ctx, bad, &show), codeNotFound)
	wantCode(t, runRVFit(ctx, rvFitOptions{rvCommon: common, Task: id, Pipeline: "nosuch"}, &show), codeUsage)
	if l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(common.Home)); err != nil || l.Used(id) != 1 {
		t.Errorf("refused submissions were recorded: %v, %d used", err, l.Used(id))
	}
}

// TestRVLookingStartsNothing: listing the tasks and showing a task's metadata start no clock and write no
// ledger; a fit and a dry run of a task not started are refused (code refused) saying to run 'rv start';
// 'rv start' starts the clock and shows the data, and then 'rv list' shows the task running with its time
// left, and 'rv show' its data.
func TestRVLookingStartsNothing(t *testing.T) {
	ctx := context.Background()
	common := rvOpts(t, true)
	const id = "seed1108_diff2" // easy: 600 s, 3 submissions
	ledger := rvtrack.LedgerPath(common.Home)
	noLedger := func(after string) {
		t.Helper()
		if _, err := os.Stat(ledger); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s wrote the ledger: %v", after, err)
		}
	}
	row := func() rvTaskRow {
		t.Helper()
		list, _ := runJSON[rvListJSON](t, runRVList, rvListOptions{rvCommon: common, Tier: "easy"})
		for _, r := range list.Tasks {
			if r.Task == id {
				return r
			}
		}
		t.Fatalf("rv list has no %s", id)
		return rvTaskRow{}
	}
	if r := row(); r.State.State != rvtrack.StateNotStarted || r.State.SubmissionsLeft != 3 || r.State.SecondsLeft != 600 {
		t.Errorf("rv list: %+v", r.State)
	}
	text := common
	text.JSON = false
	var out bytes.Buffer
	if err := runRVList(ctx, rvListOptions{rvCommon: text, Tier: "easy"}, &out); err != nil || !strings.Contains(out.String(), "not started (600 s clock)") {
		t.Errorf("rv list text: %v\n%s", err, out.String())
	}
	noLedger("rv list")

	show, _ := runJSON[rvShowJSON](t, runRVShow, rvShowOptions{rvCommon: common, Task: id})
	if show.NObs == 0 || show.RVsMS != nil || show.TimesDays != nil || show.State.State != rvtrack.StateNotStarted {
		t.Errorf("rv show --json of a task not started: %+v", show)
	}
	out.Reset()
	if err := runRVShow(ctx, rvShowOptions{rvCommon: text, Task: id}, &out); err != nil ||
		!strings.Contains(out.String(), "not started: run 'transitbench rv start seed1108_diff2' to see the data and start its 600 s clock") ||
		strings.Contains(out.String(), "TIME_D") {
		t.Errorf("rv show of a task not started: %v\n%s", err, out.String())
	}
	noLedger("rv show")

	err := runRVFit(ctx, rvFitOptions{rvCommon: common, Task: id}, io.Discard)
	wantCode(t, err, codeRefused)
	if err == nil || !strings.Contains(err.Error(), "rv start seed1108_diff2") {
		t.Errorf("rv fit of a task not started: %v", err)
	}
	dry := rvSubmitOptions{rvCommon: common, Task: id, Planets: "-", DryRun: true, In: strings.NewReader("[]")}
	wantCode(t, runRVSubmit(ctx, dry, io.Discard), codeRefused)
	noLedger("rv fit and a dry run")

	before := time.Now()
	started, _ := runJSON[rvShowJSON](t, runRVStart, rvShowOptions{rvCommon: common, Task: id})
	if len(started.RVsMS) != started.NObs || started.State.State != rvtrack.StateRunning || started.State.Started.Before(before.Add(-time.Second)) {
		t.Errorf("rv start: %+v", started)
	}
	if r := row(); r.State.State != rvtrack.StateRunning || !(r.State.SecondsLeft > 590) {
		t.Errorf("rv list after rv start: %+v", r.State)
	}
	out.Reset()
	if err := runRVShow(ctx, rvShowOptions{rvCommon: text, Task: id}, &out); err != nil || !strings.Contains(out.String(), "TIME_D") ||
		!strings.Contains(out.String(), "state: running: ") {
		t.Errorf("rv show of a started task: %v\n%s", err, out.String())
	}
}

func TestRunRVGenerate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var out bytes.Buffer
	opts := rvGenerateOptions{rvCommon: rvOpts(t, true), Seed: 5, SeedSet: true, Out: filepath.Join(dir, "t.json")}
	if err := runRVGenerate(ctx, opts, &out); err != nil {
		t.Fatal(err)
	}
	var res rvGenerateJSON
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Tasks) != 1 {
		t.Fatalf("%v, %s", err, out.Bytes())
	}
	task, err := stargazer.ReadFile(opts.Out)
	if err != nil || task.TaskID != res.Tasks[0].Task || res.Tasks[0].Path != opts.Out {
		t.Fatalf("written task: %v, %+v", err, res.Tasks[0])
	}
	opts.Tier = "easy"
	wantCode(t, runRVGenerate(ctx, opts, &out), codeUsage) // --seed and --tier
	opts.SeedSet = false                                   // --tier into a file
	wantCode(t, runRVGenerate(ctx, opts, &out), codeUsage)
	opts.Out, opts.Count = dir, 0
	wantCode(t, runRVGenerate(ctx, opts, &out), codeUsage)
}

func TestRunRVBaselineAndGradeRefuse(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	wantCode(t, runRVBaseline(ctx, rvBaselineOptions{rvCommon: rvOpts(t, true), Pipeline: "nosuch"}, &out), codeUsage)
	wantCode(t, runRVBaseline(ctx, rvBaselineOptions{rvCommon: rvOpts(t, true), Pipeline: "classical", Workers: -1}, &out), codeUsage)
	wantCode(t, runRVGrade(ctx, rvGradeOptions{rvCommon: rvOpts(t, true)}, &out), codeUsage)
	wantCode(t, runRVGrade(ctx, rvGradeOptions{rvCommon: rvOpts(t, true), Solution: t.TempDir(), Timeout: 0, TimeoutSet: true}, &out), codeUsage)
	wantCode(t, runRVGrade(ctx, rvGradeOptions{rvCommon: rvOpts(t, true), Solution: filepath.Join(t.TempDir(), "none")}, &out), codeNotFound)
	if out.Len() != 0 {
		t.Errorf("refused runs printed %q", out.String())
	}
}

// TestRunRVBaseline runs the classical pipeline on one easy task it solves, with progress on Stderr.
func TestRunRVBaseline(t *testing.T) {
	common := rvOpts(t, true)
	common.TasksDir = copyTask(t, "seed1108_diff2")
	var progress bytes.Buffer
	common.Stderr = &progress
	rep, raw := runJSON[struct {
		Tiers   map[string]*rvtrack.TierSummary `json:"tiers"`
		Results []rvtrack.TaskOutcome           `json:"results"`
	}](t, runRVBaseline, rvBaselineOptions{rvCommon: common, Pipeline: "classical", PerTask: true})
	if e := rep.Tiers["easy"]; e == nil || e.Tasks != 1 || e.Passed != 1 || len(rep.Results) != 1 || rep.Results[0].Task != "seed1108_diff2" {
		t.Fatalf("report: %s", raw)
	}
	// The classical fit of this single-planet task is right within the data's uncertainty: it passes all three
	// gates, and the progress line says so.
	if e := rep.Tiers["easy"]; e.PassedStrict != 1 || e.PassedCalibrated != 1 || e.SolvablePassedCalibrated != 1 || e.PassRateCalibrated != 1 {
		t.Errorf("strict and calibrated passes: %s", raw)
	}
	if !strings.HasPrefix(progress.String(), "[1/1] seed1108_diff2") || !strings.Contains(progress.String(), "strict=true  calibrated=true") {
		t.Errorf("progress: %q", progress.String())
	}
	var text bytes.Buffer
	common.JSON = false
	if err := runRVBaseline(context.Background(), rvBaselineOptions{rvCommon: common, Pipeline: "classical"}, &text); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(text.String(), "\n"); !strings.Contains(lines[0], "STRICT") || !strings.Contains(lines[1], "1/1/1") {
		t.Errorf("table: %q", text.String())
	}
}
