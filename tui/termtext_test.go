package tui

import (
	"bytes"
	"errors"
	"log"
	"strings"
	"testing"

	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/internal/testutil"
)

// TestHostileTextNeverReachesTUI shows text a remote client, a task file and a solution's build wrote on
// every screen that shows it: the agent sessions (client name, tool name), the RV browser and task view (task
// id, instrument names) and the grade screen (the build's error output). No screen holds a control character,
// an escape sequence included (the tests render without colour, so the screens' own styling adds none), and
// the text still shows, escaped. The log file, read with tail or cat, holds none either.
func TestHostileTextNeverReachesTUI(t *testing.T) {
	h := testutil.HostileText
	check := func(where, v string) {
		t.Helper()
		if termtext.HasControl(v) {
			t.Errorf("%s holds a raw control character:\n%q", where, v)
		}
		if !strings.Contains(v, `evil\x1b]`) {
			t.Errorf("%s does not show the text escaped:\n%s", where, v)
		}
	}

	fb := newFakeBackend()
	fb.agents = testAgentSessions()
	fb.agents[0].Client = h
	fb.agents[0].Calls[0].Tool = h
	d := driverOn(t, fb, "a", stateAgents)
	check("the agent sessions screen", d.m.View())

	fb = newFakeBackend()
	r := fb.rv()
	r.tasks[0].Meta.ID, r.tasks[0].View.TaskID = h, h
	r.tasks[0].Data.Instruments[0] = h
	d = newDriver(t, fb, 140, 40)
	d.key("R")
	check("the RV browser", d.m.View())
	d.key("enter")
	check("the RV browser's question to start the task", d.m.View())
	d.key("y")
	if d.m.state != stateRVTask {
		t.Fatalf("enter: state %v", d.m.state)
	}
	check("the RV task view", d.m.View())

	fb = newFakeBackend()
	fb.gradeErr = errors.New("freeze: the Go build failed:\n./main.go:1:1: " + h)
	d = newDriver(t, fb, 140, 40)
	var logged bytes.Buffer
	d.m.ctx.Log = log.New(&logged, "", 0)
	d.keys("g", "y")
	check("the grade screen", d.m.View())
	check("the log file", logged.String())

	fb = newFakeBackend()
	fb.agents = []AgentSession{{AgentSession: store.AgentSession{ID: h, Client: "c"}}}
	d = driverOn(t, fb, "a", stateAgents)
	check("the agent sessions screen (session id)", d.m.View())
}
