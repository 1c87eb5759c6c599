package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data"
	"transitbench/internal/testsets"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// small are the compositions of the test sets: ten dev stars (the ≤ 10 a dev run in a test may take) and
// hidden sets of eight, so that a grading takes seconds.
var small = testsets.Small()

// tasksDir is the published Stargazer task folder beside the repository, as this package's tests see it.
const tasksDir = "../../../shared/data/stargazer"

// fixture is a server on a fresh data directory and workspace (the Python starter), and a client connected to
// it through the SDK's in-memory transports.
type fixture struct {
	srv    *Server
	cs     *mcp.ClientSession
	home   string
	ws     *workspace.Workspace
	mu     sync.Mutex
	events []*mcp.ProgressNotificationParams
}

func newFixture(t testing.TB, preset string) *fixture {
	t.Helper()
	home := t.TempDir()
	ws, err := workspace.Init(filepath.Join(t.TempDir(), "ws"), workspace.InitOptions{Home: home, Lang: "python",
		Preset: preset, Compositions: small})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Workspace: ws, Run: workspace.RunOptions{Home: home, Workers: 2, Compositions: small},
		TasksDir: tasksDir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	f := &fixture{srv: srv, home: home, ws: ws}
	f.cs = f.connect(t)
	return f
}

// connect opens a new client session on the fixture's server, recording its progress notifications.
func (f *fixture) connect(t testing.TB) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			f.mu.Lock()
			f.events = append(f.events, req.Params)
			f.mu.Unlock()
		}})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// callTool calls tool with args on cs and returns the result; it fails the test on a protocol error.
func callTool(t testing.TB, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// callOK calls tool and decodes its structured result into out, failing the test when the tool reports an error.
func callOK(t testing.TB, cs *mcp.ClientSession, tool string, args, out any) *mcp.CallToolResult {
	t.Helper()
	res := callTool(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, text(res))
	}
	decode(t, res, out)
	return res
}

// decode decodes a result's structured content into out.
func decode(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
}

// callErr calls tool and returns its error text, failing the test when the call succeeds.
func callErr(t *testing.T, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res := callTool(t, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want an error: %s", tool, args, text(res))
	}
	return text(res)
}

// text is the text content of a result.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// oracleSolution writes an executable `run` that looks its star's id up in star.json and prints the true
// ephemeris of the star's planet, taken from answers the test knows, and on every star one row at a period no
// planet has: every planet gets full credit and every star one false candidate.
func oracleSolution(t *testing.T, dir string, answers map[string]data.Answer) {
	t.Helper()
	testutil.WriteRunScript(t, dir, testsets.OracleScript(testsets.PlanetRows(answers), "", "echo 1.2345678,170.5,1\n"))
}
