package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"transitbench/grader/store"
	"transitbench/workspace"
)

// agentStart is when the test sessions start.
var agentStart = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// testAgentSessions are two sessions: a survey session of 40 calls whose last three grades were refused, and
// a mini session of two calls, newest first as the store lists them.
func testAgentSessions() []AgentSession {
	survey := AgentSession{AgentSession: store.AgentSession{ID: "5e55a0de9b35b3a1", Client: "claude-code 2.1", Preset: "survey",
		BudgetTurns: 60, BudgetTokens: 200000, BudgetHours: 4, Started: agentStart}}
	for i := 1; i <= 40; i++ {
		c := store.AgentCall{Session: survey.ID, Seq: i, Tool: fmt.Sprintf("bls_%02d", i),
			Started: agentStart.Add(time.Duration(i) * 3 * time.Minute), Millis: int64(40 * i), Tokens: 500, Status: store.CallOK}
		if i > 37 {
			c.Tool, c.Status = "grade", store.CallRefused
		}
		survey.Calls = append(survey.Calls, c)
		survey.Turns, survey.Tokens, survey.Last = i, survey.Tokens+c.Tokens, c.Started
	}
	survey.Refused = 3
	mini := AgentSession{AgentSession: store.AgentSession{ID: "0b1d5ea5c0ffee42", Client: "inspector 0.9", Preset: "mini",
		BudgetTurns: 20, BudgetTokens: 50000, BudgetHours: 1, Started: agentStart.Add(-24 * time.Hour),
		Turns: 2, Tokens: 900, Errors: 1, Last: agentStart.Add(-24*time.Hour + 30*time.Minute)}}
	mini.Calls = []store.AgentCall{
		{Session: mini.ID, Seq: 1, Tool: "list_stars", Started: mini.Started, Millis: 12, Tokens: 700, Status: store.CallOK},
		{Session: mini.ID, Seq: 2, Tool: "star_info", Started: mini.Last, Millis: 2500, Tokens: 200, Status: store.CallError,
			Args: `{"star":"dev-9999"}`, Error: "not found: star dev-9999 is not in set dev (list_stars gives the ids)"},
	}
	return []AgentSession{survey, mini}
}

// TestAgentSessionsScreen opens the agent sessions from the star browser, moves between the sessions and
// scrolls the selected one's calls, reloads, and goes back with esc.
func TestAgentSessionsScreen(t *testing.T) {
	fb := newFakeBackend()
	fb.agents = testAgentSessions()
	d := driverOn(t, fb, "a", stateAgents)
	v := d.m.View()
	checkViewHas(t, "the agent sessions screen", v,
		"2 sessions", "5e55a0de", "claude-code 2.1", "survey", "40/60", "20k/200k",
		"2.00/4", "0b1d5ea5", "mini", "2/20", "900/50k", "0.50/1", "03-04 10:00", "tool calls of 5e55a0de9b35b3a1: 40", "bls_01")
	if strings.Contains(v, "bls_37") || strings.Contains(v, "list_stars") {
		t.Errorf("the calls panel shows calls beyond its height or of another session:\n%s", v)
	}
	d.key("pgdown")
	d.key("pgdown")
	d.key("pgdown")
	if v := d.m.View(); !strings.Contains(v, "grade") || !strings.Contains(v, "refused") || strings.Contains(v, "bls_01") {
		t.Errorf("pgdn does not scroll the calls to the refused grades:\n%s", v)
	}
	if d.m.agents.table.Cursor() != 0 {
		t.Errorf("pgdn moved the sessions' cursor to %d", d.m.agents.table.Cursor())
	}
	d.key("down")
	v = d.m.View()
	if !strings.Contains(v, "tool calls of 0b1d5ea5c0ffee42: 2") || !strings.Contains(v, "list_stars") ||
		!strings.Contains(v, "2.5 s") || !strings.Contains(v, "error") || strings.Contains(v, "bls_") {
		t.Errorf("down does not show the second session's calls:\n%s", v)
	}
	d.keys("d", "g")
	if d.m.state != stateAgents {
		t.Errorf("a run key left the agent sessions for %v", d.m.state)
	}

	fb.mu.Lock()
	fb.agents = append([]AgentSession{{AgentSession: store.AgentSession{ID: "fresh123", Preset: "survey",
		Started: agentStart.Add(time.Hour)}}}, fb.agents...)
	fb.mu.Unlock()
	d.key("r")
	if v := d.m.View(); !strings.Contains(v, "3 sessions") || !strings.Contains(v, "fresh123") ||
		!strings.Contains(v, "tool calls of 0b1d5ea5c0ffee42") {
		t.Errorf("r does not reload the sessions keeping the selected one:\n%s", v)
	}
	d.key("esc")
	if d.m.state != stateBrowser {
		t.Errorf("esc: state %v, want the browser", d.m.state)
	}
}

// TestAgentSessionsHelpAndStates checks the screen's full help, its empty and failed states, and that it
// fits the terminal.
func TestAgentSessionsHelpAndStates(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "a", stateAgents)
	if v := d.m.View(); !strings.Contains(v, "no agent sessions yet") {
		t.Errorf("no sessions:\n%s", v)
	}
	d.key("?")
	full := d.m.View()
	checkViewHas(t, "the full help", full, "page up", "page down", "reload", "back", "quit")
	if strings.Contains(full, "dev run") || strings.Contains(full, "reverse") {
		t.Errorf("the full help lists keys that do not apply here:\n%s", full)
	}
	d.key("?")
	d.key("esc")
	d.key("?")
	if v := d.m.View(); !strings.Contains(v, "agent sessions") {
		t.Errorf("the browser's full help does not list the agent sessions key:\n%s", v)
	}

	fb.agentsErr = errors.New("database is locked")
	d = driverOn(t, fb, "a", stateAgents)
	if v := d.m.View(); !strings.Contains(v, "cannot list the agent sessions: database is locked") {
		t.Errorf("a failed listing:\n%s", v)
	}

	fb.agentsErr, fb.agents = nil, testAgentSessions()
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 20}} {
		d := newDriver(t, fb, size[0], size[1])
		d.key("a")
		checkViewFits(t, d, size[0], size[1], "agent sessions")
		if v := d.m.View(); size[0] >= 80 && !strings.Contains(v, "refused") {
			t.Errorf("%d columns: the table's last column is cut:\n%s", size[0], v)
		}
		d.key("?")
		checkViewFits(t, d, size[0], size[1], "agent sessions with the full help")
	}
}

// storeAgents is the fake backend with the real backend's agent sessions.
type storeAgents struct {
	*fakeBackend
	real *Real
}

func (s storeAgents) AgentSessions(ctx context.Context) ([]AgentSession, error) {
	return s.real.AgentSessions(ctx)
}

// TestRealAgentSessions records two sessions and their calls through the results store of a data directory,
// as the agent server does, and reads them back through the real backend and the screen.
func TestRealAgentSessions(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range testAgentSessions() {
		if err := st.StartAgentSession(ctx, s.AgentSession); err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Calls {
			if err := st.RecordAgentCall(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	r := &Real{Home: home}
	got, err := r.AgentSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "5e55a0de9b35b3a1" || got[1].ID != "0b1d5ea5c0ffee42" {
		t.Fatalf("sessions %+v, want the survey session, then the mini one", got)
	}
	survey, mini := got[0], got[1]
	if survey.Turns != 40 || survey.Tokens != 20000 || survey.Refused != 3 || len(survey.Calls) != 40 ||
		survey.Calls[39].Status != store.CallRefused || survey.Calls[0].Tool != "bls_01" {
		t.Errorf("survey session %+v with %d calls", survey.AgentSession, len(survey.Calls))
	}
	if h := survey.Hours(); h < 1.99 || h > 2.01 {
		t.Errorf("survey session hours %.3f, want 2 (40 calls 3 min apart)", h)
	}
	if mini.Errors != 1 || len(mini.Calls) != 2 || mini.Calls[1].Millis != 2500 || mini.Preset != "mini" {
		t.Errorf("mini session %+v with calls %+v", mini.AgentSession, mini.Calls)
	}
	// The store keeps a failed call's arguments and error text.
	if want := testAgentSessions()[1].Calls[1]; mini.Calls[1].Args != want.Args || mini.Calls[1].Error != want.Error ||
		mini.Calls[0].Args != "" || mini.Calls[0].Error != "" {
		t.Errorf("the failed call came back as %+v, the answered one as %+v", mini.Calls[1], mini.Calls[0])
	}

	d := newDriver(t, storeAgents{newFakeBackend(), r}, 120, 40)
	d.key("a")
	if v := d.m.View(); !strings.Contains(v, "2 sessions") || !strings.Contains(v, "40/60") ||
		!strings.Contains(v, "tool calls of 5e55a0de9b35b3a1: 40") {
		t.Errorf("the screen over the real backend:\n%s", v)
	}
}

// TestAgentsFailedCallAndNarrowTable shows a failed call's arguments and error under it, and at 80 columns the
// sessions table keeps the whole session id, dropping the preset and client columns instead.
func TestAgentsFailedCallAndNarrowTable(t *testing.T) {
	fb := newFakeBackend()
	fb.agents = testAgentSessions()
	d := newDriver(t, fb, 80, 24)
	d.key("a")
	v := d.m.View()
	checkViewHas(t, "the sessions at 80 columns", v, "5e55a0de9b35b3a1", "0b1d5ea5c0ffee42", "40/60", "20k/200k", "refused")
	if strings.Contains(v, "claude-code") || strings.Contains(v, "…") {
		t.Errorf("at 80 columns the table should drop the client rather than cut a cell:\n%s", v)
	}
	d.key("down")
	v = d.m.View()
	checkViewHas(t, "the failed call", v, "star_info", "error", `args  {"star":"dev-9999"}`,
		"error not found: star dev-9999 is not in set dev", "(list_stars gives the", "ids)")
	// The answered call has no detail lines: the failed one follows it directly.
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		if strings.Contains(l, "list_stars ") && strings.Contains(l, " ok") && (i+1 >= len(lines) || !strings.Contains(lines[i+1], "star_info")) {
			t.Errorf("the answered call is followed by %q", lines[i+1])
		}
	}
	checkViewFits(t, d, 80, 24, "agent sessions with a failed call")
}
