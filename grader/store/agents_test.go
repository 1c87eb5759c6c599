package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestAgentSessions records two sessions and their calls and reads back each session's spend: turns, tokens,
// tool seconds, refusals and errors summed over its calls, newest session first.
func TestAgentSessions(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, id := range []string{"one", "two"} {
		if err := s.StartAgentSession(ctx, AgentSession{ID: id, Client: "test 1.0", Preset: "mini", BudgetTurns: 20,
			BudgetTokens: 50000, BudgetHours: 1, Started: t0.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.StartAgentSession(ctx, AgentSession{ID: "one"}); err == nil {
		t.Error("a second session with the same id was recorded")
	}
	calls := []AgentCall{
		{Session: "one", Seq: 1, Tool: "list_stars", Millis: 20, Tokens: 300, Status: CallOK},
		{Session: "one", Seq: 2, Tool: "bls", Millis: 1500, Tokens: 200, Status: CallOK},
		{Session: "one", Seq: 3, Tool: "grade", Millis: 1, Tokens: 50, Status: CallRefused},
		{Session: "one", Seq: 4, Tool: "star_info", Millis: 2, Tokens: 40, Status: CallError},
	}
	for _, c := range calls {
		c.Started = t0.Add(time.Duration(c.Seq) * time.Minute)
		if err := s.RecordAgentCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordAgentCall(ctx, AgentCall{Session: "one", Seq: 5, Tool: "x", Status: "maybe"}); err == nil {
		t.Error("a call with an unknown status was recorded")
	}
	got, err := s.AgentSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "two" || got[1].ID != "one" {
		t.Fatalf("sessions %+v, want two then one", got)
	}
	one := got[1]
	if one.Turns != 4 || one.Tokens != 590 || one.ToolSeconds != 1.523 || one.Refused != 1 || one.Errors != 1 ||
		!one.Last.Equal(t0.Add(4*time.Minute)) || one.BudgetTurns != 20 || one.Client != "test 1.0" {
		t.Errorf("session one: %+v", one)
	}
	if got[0].Turns != 0 || !got[0].Last.IsZero() {
		t.Errorf("session two has no calls: %+v", got[0])
	}
	cs, err := s.AgentCalls(ctx, "one")
	if err != nil || len(cs) != 4 || cs[2].Tool != "grade" || cs[2].Status != CallRefused {
		t.Errorf("calls %+v (%v)", cs, err)
	}
}
