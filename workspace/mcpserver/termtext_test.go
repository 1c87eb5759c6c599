package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// TestHostileTextContent gives tools hostile text to show: a stored star's stderr (in the JSON text content)
// and a star id the error message quotes. No text content holds a raw control character, the JSON text still
// decodes to the stderr as the solution wrote it, and the error shows the id escaped. A client name and a tool
// name longer than the session record keeps are cut.
func TestHostileTextContent(t *testing.T) {
	f := newFixture(t, "mini")
	ctx := context.Background()
	h := testutil.HostileText
	run, err := f.srv.st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", Stars: 1, Workspace: f.ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	matches, _ := json.Marshal(grader.StarResult{StarID: "dev-0001", Rows: []grader.RowResult{{Rank: 1, Note: h}}})
	if err := f.srv.st.PutOutcome(ctx, store.Outcome{RunID: run, StarID: "dev-0001", Status: "missed",
		StderrTail: h, Matches: matches}); err != nil {
		t.Fatal(err)
	}

	res := callTool(t, f.cs, "star_outcome", map[string]any{"star": "dev-0001"})
	if res.IsError {
		t.Fatalf("star_outcome: %s", text(res))
	}
	if termtext.HasControl(text(res)) {
		t.Errorf("star_outcome's text holds a raw control character: %q", text(res))
	}
	var out StarOutcomeOut
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		t.Fatalf("star_outcome's text is not JSON: %v", err)
	}
	if want := strings.ToValidUTF8(h, "\uFFFD"); out.StderrTail != want {
		t.Errorf("the JSON text's stderr decodes to %q, want %q", out.StderrTail, want)
	}

	msg := callErr(t, f.cs, "star_outcome", map[string]any{"star": "dev-" + h})
	if termtext.HasControl(msg) || !strings.Contains(msg, `dev-evil\x1b]52`) {
		t.Errorf("the error text is not escaped: %q", msg)
	}

	// A client whose name and tool names are long and hostile: recorded cut, as valid UTF-8.
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: strings.Repeat(h, 100), Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: strings.Repeat(h, 50)}); err == nil {
		t.Fatal("an unknown tool answered")
	}
	sessions, err := f.srv.st.AgentSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range sessions {
		if !strings.HasPrefix(a.Client, "evil") {
			continue
		}
		found = true
		calls, err := f.srv.st.AgentCalls(ctx, a.ID)
		if err != nil || len(calls) != 1 {
			t.Fatalf("calls %v, %v", calls, err)
		}
		if len(a.Client) > maxClientBytes || len(calls[0].Tool) > maxToolBytes || !strings.HasPrefix(calls[0].Tool, "evil") {
			t.Errorf("recorded a %d-byte client name and a %d-byte tool name", len(a.Client), len(calls[0].Tool))
		}
	}
	if !found {
		t.Errorf("the hostile client's session is not recorded: %+v", sessions)
	}
}

// TestHostileTextNeverReachesLog loads a task folder holding a good task and a broken one whose file name is
// hostile: the server's log warns about the broken file with its name escaped.
func TestHostileTextNeverReachesLog(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join(tasksDir, "synthetic", rvTask+".json"))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.ReplaceAll(strings.ToValidUTF8(testutil.HostileText, "?"), "/", "_") + ".json"
	if err := os.WriteFile(filepath.Join(dir, rvTask+".json"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"task_id": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ws, err := workspace.Init(filepath.Join(t.TempDir(), "ws"), workspace.InitOptions{Home: home, Lang: "python", Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	srv, err := New(Options{Workspace: ws, Run: workspace.RunOptions{Home: home, Compositions: small}, TasksDir: dir,
		Version: "test", Log: &logged})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.rvTasks(); err != nil {
		t.Fatal(err)
	}
	if termtext.HasControl(logged.String()) || !strings.Contains(logged.String(), `evil\x1b]52`) {
		t.Errorf("the log: %q", logged.String())
	}
}
