package store

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestMigrationFromV4 opens a database written at schema version 4 (the steps up to lineage) holding a dev,
// a grade, a mini and a baseline run and an agent session: the dev and grade runs take their label (the
// workspace's path) as their workspace, the others none, the session has no agent, and the schema is current.
func TestMigrationFromV4(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	steps := strings.Join(migrations[:4], ";\n") + `;
		CREATE TABLE schema_version (version INTEGER NOT NULL);
		INSERT INTO schema_version (version) VALUES (4);
		INSERT INTO runs (kind, set_name, label, started, status) VALUES
			('dev', 'dev', '/ws/one', '2026-01-01T00:00:00.000Z', 'done'),
			('grade', 'A', '/ws/one', '2026-01-01T00:00:00.000Z', 'done'),
			('mini', 'M', 'mini-dev-00000003', '2026-01-01T00:00:00.000Z', 'done'),
			('baseline', 'dev', 'bls', '2026-01-01T00:00:00.000Z', 'done');
		INSERT INTO agent_sessions (id, started) VALUES ('old', '2026-01-01T00:00:00.000Z');`
	if _, err := db.Exec(steps); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantSchemaVersion(t, s)
	runs, err := s.Runs(ctx, RunFilter{})
	if err != nil || len(runs) != 4 {
		t.Fatalf("runs %+v (%v)", runs, err)
	}
	want := map[string]string{KindDev: "/ws/one", KindGrade: "/ws/one", KindMini: "", KindBaseline: ""}
	for _, r := range runs {
		if r.Workspace != want[r.Kind] || r.SolutionKind != "" {
			t.Errorf("%s run after the migration: workspace %q, solution kind %q", r.Kind, r.Workspace, r.SolutionKind)
		}
	}
	if mine, _ := s.Runs(ctx, RunFilter{Workspace: "/ws/one"}); len(mine) != 2 {
		t.Errorf("the runs of /ws/one: %+v", mine)
	}
	if sessions, err := s.AgentSessions(ctx); err != nil || len(sessions) != 1 || sessions[0].Agent != "" {
		t.Errorf("sessions after the migration: %+v (%v)", sessions, err)
	}
}

// TestRunsOfAWorkspace: runs record their workspace and solution kind; the filter and the failing stars of
// one workspace leave the other's runs out, and "" pools them.
func TestRunsOfAWorkspace(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	for _, ws := range []string{"/ws/one", "/ws/two"} {
		id := createRun(t, s, Run{Kind: KindDev, Set: "dev", Label: ws, Workspace: ws, SolutionKind: "python"})
		if err := s.PutOutcome(ctx, Outcome{RunID: id, StarID: "dev-0013", Status: StatusMissed}); err != nil {
			t.Fatal(err)
		}
	}
	one, err := s.Runs(ctx, RunFilter{Workspace: "/ws/one"})
	if err != nil || len(one) != 1 || one[0].Workspace != "/ws/one" || one[0].SolutionKind != "python" {
		t.Fatalf("runs of /ws/one: %+v (%v)", one, err)
	}
	for _, c := range []struct {
		ws   string
		runs int
	}{{"/ws/one", 1}, {"/ws/two", 1}, {"", 2}, {"/ws/none", 0}} {
		f, err := s.FailingStarsIn(ctx, c.ws, "dev", 0)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if len(f) == 1 {
			got = f[0].Runs
		}
		if got != c.runs {
			t.Errorf("failing stars of %q: %+v, want dev-0013 in %d runs", c.ws, f, c.runs)
		}
	}
}

// TestAgentSpendAcrossSessions: an agent's spend sums its sessions' calls, whatever session made them; another
// agent's calls and the sessions of no agent stay apart; the budget is the latest session's.
func TestAgentSpendAcrossSessions(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	for i, a := range []AgentSession{
		{ID: "s1", Agent: "workspace:/ws/one", Preset: "survey", BudgetTurns: 60},
		{ID: "s2", Agent: "workspace:/ws/one", Preset: "mini", BudgetTurns: 20},
		{ID: "s3", Agent: "eve", Preset: "mini", BudgetTurns: 20},
	} {
		a.Started = t0.Add(time.Duration(i) * time.Hour)
		if err := s.StartAgentSession(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []AgentCall{
		{Session: "s1", Seq: 1, Tokens: 100, Status: CallOK},
		{Session: "s1", Seq: 2, Tokens: 10, Status: CallRefused},
		{Session: "s2", Seq: 1, Tokens: 1000, Status: CallError},
		{Session: "s3", Seq: 1, Tokens: 5, Status: CallOK},
	} {
		c.Tool, c.Started = "rv_list", t0.Add(time.Duration(i)*time.Hour+time.Minute)
		if err := s.RecordAgentCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := s.AgentSpend(ctx, "workspace:/ws/one")
	if err != nil {
		t.Fatal(err)
	}
	if ws.Sessions != 2 || ws.Turns != 3 || ws.Tokens != 1110 || ws.Refused != 1 || ws.Errors != 1 ||
		ws.Preset != "mini" || ws.BudgetTurns != 20 || !ws.First.Equal(t0) || !ws.Last.Equal(t0.Add(2*time.Hour+time.Minute)) {
		t.Errorf("the workspace's spend: %+v", ws)
	}
	if h := ws.Hours(); h < 2.01 || h > 2.02 {
		t.Errorf("the workspace's hours %g, want 2 h 1 min", h)
	}
	if none, err := s.AgentSpend(ctx, "nobody"); err != nil || none.Sessions != 0 || none.Turns != 0 {
		t.Errorf("an agent with no session: %+v (%v)", none, err)
	}
	all, err := s.AgentTotals(ctx)
	if err != nil || len(all) != 2 || all[0].Agent != "eve" || all[0].Turns != 1 || all[1].Agent != "workspace:/ws/one" {
		t.Errorf("totals %+v (%v)", all, err)
	}
}
