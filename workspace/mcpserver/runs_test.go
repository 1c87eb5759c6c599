package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// TestRunDevProgress runs a solution that prints the truth (oracleSolution) on the ten dev stars through run_dev with a progress token: the
// client gets one progress notification per star, counting up to ten, and the summary; then star_outcome and
// failing read the run, and list_stars shows each star's outcome.
func TestRunDevProgress(t *testing.T) {
	f := newFixture(t, "survey")
	set, err := f.srv.set("")
	if err != nil {
		t.Fatal(err)
	}
	oracleSolution(t, f.ws.SolutionDir(), set.Answers)
	if msg := callErr(t, f.cs, "star_outcome", map[string]any{"star": "dev-0000"}); !strings.Contains(msg, "not_found") {
		t.Errorf("star_outcome before any run: %s", msg)
	}
	params := &mcp.CallToolParams{Name: "run_dev", Arguments: map[string]any{}}
	params.SetProgressToken("dev-run-1")
	res, err := f.cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("run_dev: %v %s", err, text(res))
	}
	var rep workspace.Report
	decode(t, res, &rep)
	if rep.StarsRun != 10 || !rep.Complete || rep.Set != "dev" || rep.Hidden || !(rep.C > 0.99) {
		t.Fatalf("run_dev report: %+v", rep)
	}
	f.mu.Lock()
	events := append([]*mcp.ProgressNotificationParams(nil), f.events...)
	f.mu.Unlock()
	if len(events) != 10 {
		t.Fatalf("%d progress notifications, want one per star (10)", len(events))
	}
	for i, ev := range events {
		if ev.ProgressToken != "dev-run-1" || ev.Progress != float64(i+1) || ev.Total != 10 || !strings.Contains(ev.Message, "dev-") {
			t.Errorf("progress %d: %+v", i, ev)
		}
	}

	var list ListStarsOut
	callOK(t, f.cs, "list_stars", map[string]any{}, &list)
	if list.LastRun != rep.RunID {
		t.Errorf("list_stars last run %d, want %d", list.LastRun, rep.RunID)
	}
	for _, s := range list.Stars {
		if s.Outcome == "" {
			t.Errorf("star %s has no outcome after the run", s.ID)
		}
	}
	var o StarOutcomeOut
	callOK(t, f.cs, "star_outcome", map[string]any{"star": list.Stars[0].ID}, &o)
	if o.RunID != rep.RunID || o.StarID != list.Stars[0].ID || o.ExitReason == "" || o.Rows == nil || len(o.Result.Rows) == 0 {
		t.Errorf("star_outcome: %+v", o)
	}
	var fl FailingOut
	callOK(t, f.cs, "failing", map[string]any{"limit": 3}, &fl)
	if fl.Set != "dev" || len(fl.Stars) > 3 {
		t.Errorf("failing: %+v", fl)
	}

	// A later run of another workspace on the same data directory, which missed the star: this workspace's
	// tools go on reading this workspace's runs.
	ctx := context.Background()
	other, err := f.srv.st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", Label: "/elsewhere", Workspace: "/elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.st.PutOutcome(ctx, store.Outcome{RunID: other, StarID: o.StarID, Status: store.StatusMissed}); err != nil {
		t.Fatal(err)
	}
	callOK(t, f.cs, "star_outcome", map[string]any{"star": o.StarID}, &o)
	if o.RunID != rep.RunID {
		t.Errorf("star_outcome read run %d, not this workspace's run %d", o.RunID, rep.RunID)
	}
	if msg := callErr(t, f.cs, "star_outcome", map[string]any{"star": o.StarID, "run": other}); !strings.HasPrefix(msg, "not_found: ") {
		t.Errorf("star_outcome of another workspace's run: %s", msg)
	}
	callOK(t, f.cs, "failing", map[string]any{}, &fl)
	for _, st := range fl.Stars {
		if st.LastRunID == other {
			t.Errorf("failing counts another workspace's run: %+v", st)
		}
	}
}

// TestGradeNeedsConfirmAndGradesOnce grades a solution that prints nothing: without confirm it is refused;
// then the grading is numbered 1, its reports are aggregates, and a second grading of the same solution is
// refused with what to do.
func TestGradeNeedsConfirmAndGradesOnce(t *testing.T) {
	f := newFixture(t, "survey")
	testutil.WriteRunScript(t, f.ws.SolutionDir(), "#!/bin/sh\necho period_days,t0_days,score\n")
	if msg := callErr(t, f.cs, "grade", map[string]any{}); !strings.Contains(msg, "confirm: true") {
		t.Errorf("grade without confirm: %s", msg)
	}
	var rep workspace.GradeReport
	callOK(t, f.cs, "grade", map[string]any{"confirm": true}, &rep)
	if rep.Grading != 1 || rep.A == nil || !rep.A.Hidden || rep.A.StarsRun != small[sets.A].Total() || rep.B == nil || rep.Dev == nil {
		t.Fatalf("grade report: %+v", rep)
	}
	// A and B carry S alone: the stored report has the breakdowns and exit counts, the tool's none.
	if !rep.A.Redacted || !rep.B.Redacted || rep.A.Planets != 0 || len(rep.A.Exits) != 0 || rep.A.ScoredStars != 0 || len(rep.Dev.Exits) == 0 {
		t.Errorf("the grade tool shows more than S on the hidden sets: A %+v", rep.A)
	}
	if msg := callErr(t, f.cs, "grade", map[string]any{"confirm": true}); !strings.HasPrefix(msg, "refused: ") || !strings.Contains(msg, "again: true") {
		t.Errorf("second grading: %s", msg)
	}
	runs, err := f.srv.st.Runs(context.Background(), store.RunFilter{Kind: store.KindGrade})
	if err != nil || len(runs) != 3 {
		t.Fatalf("%d grade runs (%v), want A, B and dev", len(runs), err)
	}
}
