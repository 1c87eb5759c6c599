package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// hostileStore fills a fresh data directory's results store with what a solution and an agent can write: a
// dev run whose star's stderr, note and label are hostile, and an agent session whose client name and tool
// name are.
func hostileStore(t *testing.T) {
	t.Helper()
	home := newHome(t)
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	h := testutil.HostileText
	run, err := st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", Label: h, SolutionHash: h, Stars: 1, Isolation: h,
		Workspace: h, SolutionKind: h})
	if err != nil {
		t.Fatal(err)
	}
	sr := grader.StarResult{StarID: "dev-0001", Rows: []grader.RowResult{{Rank: 1, Status: h, Note: h}}}
	matches, _ := json.Marshal(sr)
	if err := st.PutOutcome(ctx, store.Outcome{RunID: run, StarID: "dev-0001", Status: store.StatusMissed,
		ExitReason: h, StderrTail: h, Isolation: h, Matches: matches}); err != nil {
		t.Fatal(err)
	}
	if err := st.StartAgentSession(ctx, store.AgentSession{ID: "s1", Client: h, Preset: "mini"}); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordAgentCall(ctx, store.AgentCall{Session: "s1", Seq: 1, Tool: h, Status: store.CallError}); err != nil {
		t.Fatal(err)
	}
}

// hostileTasks writes a folder with one RV task whose task id and instrument names are hostile.
func hostileTasks(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rvTasksDir, "synthetic", "seed13_diff10.json"))
	if err != nil {
		t.Fatal(err)
	}
	var task map[string]any
	if err := json.Unmarshal(b, &task); err != nil {
		t.Fatal(err)
	}
	task["task_id"] = testutil.HostileText
	obs := task["observations"].(map[string]any)
	n := len(obs["times_days"].([]any))
	inst := make([]string, n)
	for i := range inst {
		inst[i] = testutil.HostileText
	}
	obs["instruments"] = inst
	dir := t.TempDir()
	b, _ = json.Marshal(task)
	if err := os.WriteFile(filepath.Join(dir, "evil.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHostileTextNeverReachesTerminal drives every command that prints what a solution, a task file or an
// agent wrote, as people and scripts read it, with hostile text in every such field: no control character
// (but newline and tab) reaches stdout or stderr raw, the text still shows (escaped), and JSON output decodes
// to the strings as they were written.
func TestHostileTextNeverReachesTerminal(t *testing.T) {
	hostileStore(t)
	tasks := hostileTasks(t)
	h := testutil.HostileText
	valid := strings.ToValidUTF8(h, "\uFFFD") // what a task id read from JSON becomes
	cases := []struct {
		args []string
		// shows: the output shows the hostile text (escaped); stored: its JSON holds the text as written.
		shows, stored bool
		rows          int // the rows of its tables (0: not a table)
		tables        int // how many tables, a blank line apart (0: one)
	}{
		{[]string{"star", "dev-0001"}, true, true, 0, 0},
		{[]string{"star", h}, true, false, 0, 0},
		{[]string{"failing", "--set", "dev"}, false, false, 2, 0}, // the line naming whose runs, and the star
		{[]string{"runs"}, true, true, 2, 0},                      // the line naming whose runs, and the run
		{[]string{"runs", "--agents"}, true, true, 2, 2},          // the agents' totals, then the sessions
		{[]string{"rv", "list", "--tasks", tasks}, true, true, 1, 0},
		{[]string{"rv", "show", valid, "--tasks", tasks}, true, true, 0, 0},
		{[]string{"rv", "show", "no-such-" + h, "--tasks", tasks}, true, false, 0, 0},
	}
	for _, c := range cases {
		for _, asJSON := range []bool{false, true} {
			a := c.args
			if asJSON {
				a = append(append([]string(nil), c.args...), "--json")
			}
			var out, errb bytes.Buffer
			code := runIO(a, &out, &errb)
			name := strings.Join(a, " ")
			for stream, b := range map[string][]byte{"stdout": out.Bytes(), "stderr": errb.Bytes()} {
				if termtext.HasControl(string(b)) {
					t.Errorf("%q (exit %d): %s holds a raw control character:\n%q", name, code, stream, b)
				}
			}
			tables := max(c.tables, 1)
			if lines := strings.Count(out.String(), "\n"); !asJSON && c.rows > 0 && lines != c.rows+2*tables-1 {
				t.Errorf("%q: %d lines, want %d table(s) of a header and %d rows in all (a name's newline breaks the table):\n%s",
					name, lines, tables, c.rows, out.String())
			}
			if c.shows && !strings.Contains(out.String()+errb.String(), `evil\x1b]52`) &&
				!strings.Contains(out.String(), `evil\u001b]52`) {
				t.Errorf("%q (exit %d): the hostile text is not shown escaped:\n%s\n%s", name, code, out.String(), errb.String())
			}
			if asJSON && c.stored {
				var v any
				if err := json.Unmarshal(out.Bytes(), &v); err != nil {
					t.Errorf("%q: stdout is not JSON: %v\n%s", name, err, out.String())
				} else if !containsString(v, valid) {
					t.Errorf("%q: the JSON does not hold the text as written:\n%s", name, out.String())
				}
			}
		}
	}
}

// containsString reports whether a decoded JSON value holds the string s (as a value, or inside one).
func containsString(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, s)
	case []any:
		for _, x := range v {
			if containsString(x, s) {
				return true
			}
		}
	case map[string]any:
		for _, x := range v {
			if containsString(x, s) {
				return true
			}
		}
	}
	return false
}
