package mcpserver

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/grader/store"
	"transitbench/workspace/internal/taskfixture"
	"transitbench/workspace/rvtrack"
)

// rvTask is the published one-planet Easy task the RV tests use (P = 5.28 d).
const rvTask = "seed1108_diff2"

// truthArgs is the task's true planets in the submission format, as rv_submit takes them.
func truthArgs(t *testing.T, id string, extra map[string]any) map[string]any {
	t.Helper()
	task := taskfixture.Load(t, id)
	args := map[string]any{"task": id, "planets": rvgate.FromPlanets(task.TruthPlanets(), 0).Planets}
	for k, v := range extra {
		args[k] = v
	}
	return args
}

// TestRVTools walks the RV track: rv_list, rv_show (which starts the task's clock in the ledger), rv_fit
// (the automatic search finds the planet), rv_plot (a PNG), a dry run, and a submission of the true planet,
// which passes and spends one submission.
func TestRVTools(t *testing.T) {
	f := newFixture(t, "survey")
	var list RVListOut
	callOK(t, f.cs, "rv_list", map[string]any{"tier": "easy"}, &list)
	found := false
	for _, r := range list.Tasks {
		if r.Tier != "easy" {
			t.Errorf("rv_list tier easy lists %s of tier %s", r.Task, r.Tier)
		}
		found = found || r.Task == rvTask && r.Used == 0 && r.Budget.Submissions == 3
	}
	if !found {
		t.Fatalf("rv_list has no unused %s with 3 submissions: %+v", rvTask, list.Tasks)
	}

	var view stargazer.View
	callOK(t, f.cs, "rv_show", map[string]any{"task": rvTask}, &view)
	if view.TaskID != rvTask || view.NObs != len(view.RVsMS) || view.NObs == 0 {
		t.Errorf("rv_show: %+v", view)
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(f.home))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.StartTime(rvTask); !ok {
		t.Error("rv_show did not start the task's clock")
	}

	truth := taskfixture.Load(t, rvTask).TruthPlanets()[0]
	var fit RVFitOut
	callOK(t, f.cs, "rv_fit", map[string]any{"task": rvTask}, &fit)
	if len(fit.Submission.Planets) != 1 || math.Abs(fit.Submission.Planets[0].PDays/truth.PeriodDays-1) > 1e-3 || !fit.Metrics.OKRMS {
		t.Errorf("rv_fit: %+v, truth P = %.4f d", fit, truth.PeriodDays)
	}

	res := callOK(t, f.cs, "rv_plot", map[string]any{"task": rvTask, "planets": fit.Submission.Planets, "jitter_ms": fit.Submission.JitterMS}, &RVPlotOut{})
	if b := imageOf(t, res).Bounds(); b.Dx() != 1200 || b.Dy() != 1200 {
		t.Errorf("rv_plot: %d×%d pixels, want 1200×1200", b.Dx(), b.Dy())
	}
	var plot RVPlotOut
	callOK(t, f.cs, "rv_plot", map[string]any{"task": rvTask}, &plot)
	if plot.OfResiduals || len(plot.PeakPeriods) == 0 || math.Abs(plot.PeakPeriods[0]/truth.PeriodDays-1) > 0.01 {
		t.Errorf("rv_plot of the data: %+v", plot)
	}

	var dry rvgate.Feedback
	callOK(t, f.cs, "rv_submit", truthArgs(t, rvTask, map[string]any{"dry_run": true}), &dry)
	if !dry.DryRun || dry.Passed != nil || dry.SubmissionsLeft != 3 || !dry.OKRMS {
		t.Errorf("dry run: %+v", dry)
	}
	var fb rvgate.Feedback
	callOK(t, f.cs, "rv_submit", truthArgs(t, rvTask, nil), &fb)
	if fb.Passed == nil || !*fb.Passed || !fb.TaskPassed || fb.Submission != 1 || fb.SubmissionsLeft != 2 ||
		fb.PassedStrict == nil || !*fb.PassedStrict || fb.PassedCalibrated == nil || !*fb.PassedCalibrated {
		t.Errorf("submitting the truth: %+v", fb)
	}
	if dry.PassedStrict != nil || dry.PassedCalibrated != nil {
		t.Errorf("a dry run shows truth-derived verdicts: %+v", dry)
	}
	callOK(t, f.cs, "rv_list", map[string]any{"tier": "easy"}, &list)
	for _, r := range list.Tasks {
		if r.Task == rvTask && (!r.Passed || !r.PassedStrict || !r.PassedCalibrated) {
			t.Errorf("rv_list after the truth's submission: %+v", r)
		}
	}
	if l, err = rvtrack.OpenLedger(rvtrack.LedgerPath(f.home)); err != nil || l.Used(rvTask) != 1 || !l.Passed(rvTask) {
		t.Errorf("ledger after the submission: %d used, passed %v (%v)", l.Used(rvTask), l.Passed(rvTask), err)
	}

	if msg := callErr(t, f.cs, "rv_submit", map[string]any{"task": rvTask, "planets": []map[string]any{{"P_days": -1, "K_ms": 3, "e": 0, "omega_rad": 0}}}); !strings.Contains(msg, "bad_input") {
		t.Errorf("a bad planet: %s", msg)
	}
	if msg := callErr(t, f.cs, "rv_show", map[string]any{"task": "no_such_task"}); !strings.Contains(msg, "not_found") {
		t.Errorf("an unknown task: %s", msg)
	}
}

// TestBudgetRefusesGradingPastTurns spends a session's 60 turns (the survey preset) on cheap calls: the 61st
// call's rv_submit and grade are refused with a budget error, nothing is spent in the ledger, and the store
// records the refusals and the session's spend; a read-only tool still answers. Another session has its own
// budget.
func TestBudgetRefusesGradingPastTurns(t *testing.T) {
	f := newFixture(t, "survey")
	turns := f.srv.Preset().Turns
	for range turns {
		callOK(t, f.cs, "rv_list", map[string]any{"tier": "easy"}, &RVListOut{})
	}
	msg := callErr(t, f.cs, "rv_submit", truthArgs(t, rvTask, nil))
	if !strings.HasPrefix(msg, "budget: ") || !strings.Contains(msg, "turn 61 of a 60-turn budget") {
		t.Errorf("rv_submit past the budget: %s", msg)
	}
	if msg := callErr(t, f.cs, "grade", map[string]any{"confirm": true}); !strings.HasPrefix(msg, "budget: ") {
		t.Errorf("grade past the budget: %s", msg)
	}
	callOK(t, f.cs, "rv_submit", truthArgs(t, rvTask, map[string]any{"dry_run": true}), &rvgate.Feedback{})
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(f.home))
	if err != nil || l.Used(rvTask) != 0 {
		t.Errorf("the refused submission was spent: %d used (%v)", l.Used(rvTask), err)
	}

	ctx := context.Background()
	sessions, err := f.srv.st.AgentSessions(ctx)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("agent sessions %+v (%v), want one", sessions, err)
	}
	s := sessions[0]
	if s.Turns != turns+3 || s.Refused != 2 || s.Errors != 0 || s.BudgetTurns != turns || s.Preset != "survey" ||
		s.Client != "test-client 1.0" || s.Tokens <= 0 {
		t.Errorf("session spend: %+v", s)
	}
	calls, err := f.srv.st.AgentCalls(ctx, s.ID)
	if err != nil || len(calls) != turns+3 {
		t.Fatalf("%d calls (%v)", len(calls), err)
	}
	for i, want := range []string{store.CallRefused, store.CallRefused, store.CallOK} {
		if c := calls[turns+i]; c.Status != want || c.Seq != turns+i+1 {
			t.Errorf("call %d: %+v, want status %s", turns+i+1, c, want)
		}
	}
	if calls[turns].Tool != "rv_submit" || calls[turns+1].Tool != "grade" {
		t.Errorf("refused calls: %+v %+v", calls[turns], calls[turns+1])
	}

	// A second session starts with its own budget: its submission is graded.
	cs2 := f.connect(t)
	var fb rvgate.Feedback
	callOK(t, cs2, "rv_submit", truthArgs(t, rvTask, nil), &fb)
	if fb.Passed == nil || !*fb.Passed {
		t.Errorf("second session's submission: %+v", fb)
	}
}

// TestResources reads each resource: TASK.md with the workspace's budget, the output format and the scoring
// rules (both tracks), and the ladder compiled into the program when the data directory has none.
func TestResources(t *testing.T) {
	f := newFixture(t, "survey")
	ctx := context.Background()
	res, err := f.cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 4 {
		t.Fatalf("resources %v (%v), want 4", res, err)
	}
	for uri, want := range map[string][]string{
		URITask:    {"# TransitBench", "## Budget (survey preset)", "60 turns"},
		URIFormat:  {"## What it prints", "period_days,t0_days,score"},
		URIScoring: {"S = (credit − false candidates) / planets", "four-criterion gate"},
		URILadder:  {`"generator": "sim-`, `"name": "reference_detector"`},
	} {
		r, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 {
			t.Fatalf("%s: %v", uri, err)
		}
		for _, w := range want {
			if !strings.Contains(r.Contents[0].Text, w) {
				t.Errorf("%s lacks %q", uri, w)
			}
		}
	}
	r, _ := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URIFormat})
	if strings.Contains(r.Contents[0].Text, "## How rows") {
		t.Error("the output format runs into the next section")
	}
}

// TestBudgetRefusesPastTokensAndHours refuses rv_submit in a session whose estimated tokens pass the preset's,
// and in one whose first call was more hours ago than the preset allows (the server's clock moved on).
func TestBudgetRefusesPastTokensAndHours(t *testing.T) {
	f := newFixture(t, "survey")
	callOK(t, f.cs, "rv_list", map[string]any{}, &RVListOut{})
	f.srv.mu.Lock()
	if len(f.srv.sessions) != 1 {
		t.Fatalf("%d sessions", len(f.srv.sessions))
	}
	for _, a := range f.srv.sessions {
		a.mu.Lock()
		a.tokens = f.srv.Preset().Tokens + 1 // as if the agent had read that much
		a.mu.Unlock()
	}
	f.srv.mu.Unlock()
	if msg := callErr(t, f.cs, "rv_submit", truthArgs(t, rvTask, nil)); !strings.Contains(msg, "tokens spent of 200000") {
		t.Errorf("rv_submit past the token budget: %s", msg)
	}

	cs2 := f.connect(t)
	callOK(t, cs2, "rv_list", map[string]any{}, &RVListOut{})
	later := time.Now().Add(time.Duration(f.srv.Preset().Hours*3600+60) * time.Second)
	now = func() time.Time { return later }
	defer func() { now = time.Now }()
	if msg := callErr(t, cs2, "rv_submit", truthArgs(t, rvTask, nil)); !strings.Contains(msg, "hours spent of 4") {
		t.Errorf("rv_submit past the time budget: %s", msg)
	}
	sessions, err := f.srv.st.AgentSessions(context.Background())
	if err != nil || len(sessions) != 2 || sessions[0].Refused != 1 || sessions[1].Refused != 1 {
		t.Errorf("sessions %+v (%v): one refusal each", sessions, err)
	}
}

// TestRVClockStartsWhereDataShows calls each RV tool on a task of its own, in a fresh data directory: rv_list
// (tiers, sizes and budgets) leaves every clock alone; rv_plot (a figure, periodogram peaks and dry-run
// metrics), rv_fit, rv_submit's dry run and rv_show each show the task's data and start its clock, as rv_show
// always did.
func TestRVClockStartsWhereDataShows(t *testing.T) {
	f := newFixture(t, "survey")
	started := func(task string) bool {
		t.Helper()
		l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(f.home))
		if err != nil {
			t.Fatal(err)
		}
		_, ok := l.StartTime(task)
		return ok
	}
	var list RVListOut
	callOK(t, f.cs, "rv_list", map[string]any{"tier": "easy"}, &list)
	if len(list.Tasks) < 4 {
		t.Fatalf("rv_list lists %d easy tasks", len(list.Tasks))
	}
	for _, r := range list.Tasks {
		if started(r.Task) {
			t.Fatalf("rv_list started the clock of %s", r.Task)
		}
	}
	for i, c := range []struct {
		tool string
		args map[string]any
	}{
		{"rv_plot", map[string]any{}},
		{"rv_fit", map[string]any{}},
		{"rv_submit", map[string]any{"dry_run": true}},
		{"rv_show", map[string]any{}},
	} {
		task := list.Tasks[i].Task
		c.args["task"] = task
		if res := callTool(t, f.cs, c.tool, c.args); res.IsError {
			t.Fatalf("%s: %s", c.tool, text(res))
		}
		if !started(task) {
			t.Errorf("%s showed %s without starting its clock", c.tool, task)
		}
	}
}
