package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// dbAtVersion writes a database at schema version v (the first v steps) holding rows that fit v: a dev, a
// grade and a baseline run, an agent session and two of its calls (one refused), with the columns of v filled
// where it has them.
func dbAtVersion(t *testing.T, v int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := strings.Join(migrations[:v], ";\n") + fmt.Sprintf(`;
		CREATE TABLE schema_version (version INTEGER NOT NULL);
		INSERT INTO schema_version (version) VALUES (%d);
		INSERT INTO runs (kind, set_name, label, started, status) VALUES
			('dev', 'dev', '/ws/one', '2026-01-01T00:00:00.000Z', 'done'),
			('grade', 'A', '/ws/one', '2026-01-01T00:01:00.000Z', 'done'),
			('baseline', 'dev', 'empty', '2026-01-01T00:02:00.000Z', 'done');
		INSERT INTO agent_sessions (id, started) VALUES ('s1', '2026-01-01T00:00:00.000Z');
		INSERT INTO agent_calls (session_id, seq, tool, started, millis, tokens, status) VALUES
			('s1', 1, 'list_stars', '2026-01-01T00:00:01.000Z', 12, 300, 'ok'),
			('s1', 2, 'grade', '2026-01-01T00:00:02.000Z', 1, 40, 'refused');`, v)
	if v >= 5 {
		q += `UPDATE agent_sessions SET agent = 'workspace:/ws/one';`
	}
	if v >= 6 {
		q += `UPDATE runs SET workspace = '/ws/moved', solution_kind = 'go' WHERE kind = 'dev';
			UPDATE runs SET workspace = label WHERE kind = 'grade';`
	}
	if v >= 7 {
		q += `UPDATE agent_calls SET args = '{"again":true}', error = 'BUDGET: spent' WHERE seq = 2;`
	}
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("version %d: %v", v, err)
	}
	return path
}

// TestMigrationSteps5To7 opens databases written at schema versions 4, 5, 6 and 7 and checks what each later step
// gives the rows written before it: step 5 a session without an agent (it counts alone), step 6 the dev and grade
// runs their label as workspace and no solution kind (the other runs none), step 7 the calls empty arguments and
// error; a step already applied keeps what was written under it. The calls keep their tool, tokens and status.
func TestMigrationSteps5To7(t *testing.T) {
	for v := 4; v <= SchemaVersion; v++ {
		t.Run(fmt.Sprintf("from v%d", v), func(t *testing.T) {
			s, err := Open(dbAtVersion(t, v))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			wantSchemaVersion(t, s)

			sessions, err := s.AgentSessions(ctx)
			if err != nil || len(sessions) != 1 {
				t.Fatalf("sessions %+v (%v)", sessions, err)
			}
			wantAgent := ""
			if v >= 5 {
				wantAgent = "workspace:/ws/one"
			}
			if a := sessions[0]; a.Agent != wantAgent || a.Turns != 2 || a.Tokens != 340 || a.Refused != 1 {
				t.Errorf("session after step 5: %+v, want agent %q, 2 turns, 340 tokens, 1 refused", a, wantAgent)
			}
			if spend, err := s.AgentSpend(ctx, wantAgent); v >= 5 && (err != nil || spend.Turns != 2) {
				t.Errorf("the agent's spend after the migration: %+v (%v)", spend, err)
			}

			runs, err := s.Runs(ctx, RunFilter{})
			if err != nil || len(runs) != 3 {
				t.Fatalf("runs %+v (%v)", runs, err)
			}
			want := map[string][2]string{KindDev: {"/ws/one", ""}, KindGrade: {"/ws/one", ""}, KindBaseline: {"", ""}}
			if v >= 6 {
				want[KindDev] = [2]string{"/ws/moved", "go"}
			}
			for _, r := range runs {
				if got := [2]string{r.Workspace, r.SolutionKind}; got != want[r.Kind] {
					t.Errorf("%s run after step 6: workspace, solution kind %q, want %q", r.Kind, got, want[r.Kind])
				}
			}

			calls, err := s.AgentCalls(ctx, "s1")
			if err != nil || len(calls) != 2 {
				t.Fatalf("calls %+v (%v)", calls, err)
			}
			wantArgs, wantErr := "", ""
			if v >= 7 {
				wantArgs, wantErr = `{"again":true}`, "BUDGET: spent"
			}
			if c := calls[0]; c.Tool != "list_stars" || c.Tokens != 300 || c.Status != CallOK || c.Args != "" || c.Error != "" {
				t.Errorf("call 1 after step 7: %+v", c)
			}
			if c := calls[1]; c.Tool != "grade" || c.Status != CallRefused || c.Args != wantArgs || c.Error != wantErr {
				t.Errorf("call 2 after step 7: %+v, want args %q, error %q", c, wantArgs, wantErr)
			}
			// A call recorded after the migration keeps its arguments and error.
			if err := s.RecordAgentCall(ctx, AgentCall{Session: "s1", Seq: 3, Tool: "rv_submit", Status: CallError,
				Args: `{"task":"x"}`, Error: "NOT_FOUND: no task x"}); err != nil {
				t.Fatal(err)
			}
			if calls, _ := s.AgentCalls(ctx, "s1"); len(calls) != 3 || calls[2].Args != `{"task":"x"}` || calls[2].Error != "NOT_FOUND: no task x" {
				t.Errorf("a call recorded after the migration: %+v", calls)
			}
		})
	}
}
