package mcpserver

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/grader/rvgate"
	"transitbench/grader/store"
	"transitbench/workspace"
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

// TestRVTools walks the RV track: rv_list, rv_start (which starts the task's clock in the ledger and gives its
// data), rv_fit (the automatic search finds the planet), rv_plot (a PNG), a dry run, and a submission of the
// true planet, which passes and spends one submission.
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

	var view RVShowOut
	callOK(t, f.cs, "rv_start", map[string]any{"task": rvTask}, &view)
	if view.TaskID != rvTask || view.NObs != len(view.RVsMS) || view.NObs == 0 || view.State.State != rvtrack.StateRunning {
		t.Errorf("rv_start: %+v", view)
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(f.home))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.StartTime(rvTask); !ok {
		t.Error("rv_start did not start the task's clock")
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
	callOK(t, f.cs, "rv_start", map[string]any{"task": rvTask}, &RVShowOut{})
	for range turns - 1 {
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

	// A second session spends the same budget (the workspace's): its submission is refused too.
	cs2 := f.connect(t)
	if msg := callErr(t, cs2, "rv_submit", truthArgs(t, rvTask, nil)); !strings.HasPrefix(msg, "budget: ") ||
		!strings.Contains(msg, fmt.Sprintf("turn %d of a 60-turn budget", turns+4)) || !strings.Contains(msg, "workspace "+f.ws.Root) {
		t.Errorf("a second session's rv_submit: %s", msg)
	}
}

// TestBudgetSurvivesSessions: with the mini preset (20 turns), turn 22 refuses rv_submit and grade; a new
// session right after, and a new server on the same workspace and data directory (another 'transitbench mcp'),
// inherit the spent budget and are refused too; an agent id the operator names has a budget of its own; and
// 'runs --agents” totals (store.AgentTotals) count the workspace's calls over its sessions.
func TestBudgetSurvivesSessions(t *testing.T) {
	f := newFixture(t, "mini")
	turns := f.srv.Preset().Turns
	if turns != 20 {
		t.Fatalf("the mini preset has %d turns", turns)
	}
	for range turns + 1 {
		callOK(t, f.cs, "rv_list", map[string]any{"tier": "easy"}, &RVListOut{})
	}
	if msg := callErr(t, f.cs, "rv_submit", truthArgs(t, rvTask, nil)); !strings.Contains(msg, "turn 22 of a 20-turn budget") {
		t.Errorf("turn 22's rv_submit: %s", msg)
	}
	if msg := callErr(t, f.cs, "grade", map[string]any{"confirm": true}); !strings.HasPrefix(msg, "budget: ") {
		t.Errorf("turn 23's grade: %s", msg)
	}
	cs2 := f.connect(t)
	if msg := callErr(t, cs2, "rv_submit", truthArgs(t, rvTask, nil)); !strings.Contains(msg, "turn 24 of a 20-turn budget") ||
		!strings.Contains(msg, "counted over all its 2 sessions") {
		t.Errorf("a new session's rv_submit: %s", msg)
	}
	ctx := context.Background()
	newServer := func(agent string) *mcp.ClientSession {
		srv, err := New(Options{Workspace: f.ws, Run: workspace.RunOptions{Home: f.home, Workers: 2, Compositions: small},
			TasksDir: tasksDir, Agent: agent})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return (&fixture{srv: srv, home: f.home, ws: f.ws}).connect(t)
	}
	if msg := callErr(t, newServer(""), "rv_submit", truthArgs(t, rvTask, nil)); !strings.Contains(msg, "turn 25 of a 20-turn budget") {
		t.Errorf("a new server's rv_submit: %s", msg)
	}
	if l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(f.home)); err != nil || l.Used(rvTask) != 0 {
		t.Fatalf("a refused submission was spent: %v", err)
	}
	var fb rvgate.Feedback
	callOK(t, newServer("eve"), "rv_submit", truthArgs(t, rvTask, nil), &fb)
	if fb.Passed == nil || !*fb.Passed {
		t.Errorf("agent eve's first submission: %+v", fb)
	}
	totals, err := f.srv.st.AgentTotals(ctx)
	if err != nil || len(totals) != 2 {
		t.Fatalf("agent totals %+v (%v)", totals, err)
	}
	for _, a := range totals {
		switch a.Agent {
		case WorkspaceAgent(f.ws):
			if a.Sessions != 3 || a.Turns != 25 || a.Refused != 4 || a.BudgetTurns != 20 || a.Preset != "mini" {
				t.Errorf("the workspace's totals: %+v", a)
			}
		case "eve":
			if a.Sessions != 1 || a.Turns != 1 || a.Refused != 0 {
				t.Errorf("eve's totals: %+v", a)
			}
		default:
			t.Errorf("unknown agent %+v", a)
		}
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
	ctx := context.Background()
	f := newFixture(t, "survey")
	callOK(t, f.cs, "rv_list", map[string]any{}, &RVListOut{})
	sessions, err := f.srv.st.AgentSessions(ctx)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %+v (%v)", sessions, err)
	}
	// As if the agent had read that much in a call of its session.
	if err := f.srv.st.RecordAgentCall(ctx, store.AgentCall{Session: sessions[0].ID, Seq: 99, Tool: "bls",
		Tokens: f.srv.Preset().Tokens, Status: store.CallOK}); err != nil {
		t.Fatal(err)
	}
	if msg := callErr(t, f.cs, "rv_submit", truthArgs(t, rvTask, nil)); !strings.Contains(msg, "tokens spent of 200000") {
		t.Errorf("rv_submit past the token budget: %s", msg)
	}

	g := newFixture(t, "survey")
	callOK(t, g.cs, "rv_list", map[string]any{}, &RVListOut{})
	later := time.Now().Add(time.Duration(g.srv.Preset().Hours*3600+60) * time.Second)
	now = func() time.Time { return later }
	defer func() { now = time.Now }()
	if msg := callErr(t, g.cs, "rv_submit", truthArgs(t, rvTask, nil)); !strings.Contains(msg, "hours spent of 4") {
		t.Errorf("rv_submit past the time budget: %s", msg)
	}
	for _, st := range []*store.Store{f.srv.st, g.srv.st} {
		sessions, err := st.AgentSessions(ctx)
		if err != nil || len(sessions) != 1 || sessions[0].Refused != 1 {
			t.Errorf("sessions %+v (%v): one refusal", sessions, err)
		}
	}
}

// TestRVLookingStartsNothing calls each RV tool on a task of its own, in a fresh data directory: rv_list
// (tiers, sizes, budgets and states) and rv_show (metadata, no series) start no clock; rv_plot, rv_fit and
// rv_submit's dry run, which would show the data, are refused saying to call rv_start; rv_start starts the
// clock and gives the data, which rv_show then gives too, with the time left.
func TestRVLookingStartsNothing(t *testing.T) {
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
		if started(r.Task) || r.State.State != rvtrack.StateNotStarted || r.State.SubmissionsLeft != 3 {
			t.Fatalf("rv_list: %s started %v, state %+v", r.Task, started(r.Task), r.State)
		}
	}
	task := list.Tasks[0].Task
	var view RVShowOut
	callOK(t, f.cs, "rv_show", map[string]any{"task": task}, &view)
	if view.NObs == 0 || len(view.RVsMS) != 0 || len(view.TimesDays) != 0 || view.State.State != rvtrack.StateNotStarted || started(task) {
		t.Errorf("rv_show of a task not started: %+v, started %v", view, started(task))
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"rv_plot", map[string]any{}},
		{"rv_fit", map[string]any{}},
		{"rv_submit", map[string]any{"dry_run": true}},
	} {
		c.args["task"] = task
		msg := callErr(t, f.cs, c.tool, c.args)
		if !strings.HasPrefix(msg, "refused: ") || !strings.Contains(msg, "call rv_start") || !strings.Contains(msg, "600 s clock") {
			t.Errorf("%s on a task not started: %s", c.tool, msg)
		}
		if started(task) {
			t.Fatalf("%s started the clock of %s", c.tool, task)
		}
	}
	callOK(t, f.cs, "rv_start", map[string]any{"task": task}, &view)
	if !started(task) || view.NObs != len(view.RVsMS) || view.State.State != rvtrack.StateRunning || !(view.State.SecondsLeft > 590) {
		t.Errorf("rv_start: started %v, %+v", started(task), view)
	}
	callOK(t, f.cs, "rv_show", map[string]any{"task": task}, &view)
	if view.NObs != len(view.RVsMS) || view.State.State != rvtrack.StateRunning {
		t.Errorf("rv_show of a started task: %+v", view)
	}
	callOK(t, f.cs, "rv_fit", map[string]any{"task": task}, &RVFitOut{})
}

// TestRVFitAnswerSubmits: rv_fit's answer goes to rv_submit as it is, as its submission object or as its
// planets and jitter_ms (the same planet schema), and grades the same; both forms at once are refused.
func TestRVFitAnswerSubmits(t *testing.T) {
	f := newFixture(t, "survey")
	callOK(t, f.cs, "rv_start", map[string]any{"task": rvTask}, &RVShowOut{})
	var fit RVFitOut
	callOK(t, f.cs, "rv_fit", map[string]any{"task": rvTask}, &fit)
	if len(fit.Submission.Planets) != 1 {
		t.Fatalf("rv_fit found %d planets", len(fit.Submission.Planets))
	}
	var whole, parts rvgate.Feedback
	callOK(t, f.cs, "rv_submit", map[string]any{"task": fit.Task, "submission": fit.Submission}, &whole)
	callOK(t, f.cs, "rv_submit", map[string]any{"task": fit.Task, "planets": fit.Submission.Planets, "jitter_ms": fit.Submission.JitterMS}, &parts)
	if whole.Passed == nil || !*whole.Passed || whole.Submission != 1 {
		t.Errorf("submitting rv_fit's submission: %+v", whole)
	}
	if parts.Passed == nil || !*parts.Passed || parts.Submission != 2 || parts.RMSMS != whole.RMSMS || parts.DeltaBICPerPoint != whole.DeltaBICPerPoint {
		t.Errorf("submitting rv_fit's planets and jitter: %+v, the submission's %+v", parts, whole)
	}
	msg := callErr(t, f.cs, "rv_submit", map[string]any{"task": fit.Task, "submission": fit.Submission, "planets": fit.Submission.Planets})
	if !strings.HasPrefix(msg, "bad_input: ") {
		t.Errorf("both forms at once: %s", msg)
	}
}
