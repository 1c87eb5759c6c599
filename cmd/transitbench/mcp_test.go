package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data/sets"
	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/workspace"
	"transitbench/workspace/mcpserver"
	"transitbench/workspace/quicklook"
	"transitbench/workspace/rvtrack"
)

// TestMCPOverStdio starts this program as 'transitbench mcp' (the test binary re-executed, see TestMain) and
// talks to it as an agent's client would over stdin and stdout: initialize, list the tools, run bls on a dev
// star (the peaks of the analysis every front end runs) and submit the true planet of an RV task (it passes, through the data
// directory's ledger). Then 'runs --agents' shows the session with its two tool calls.
func TestMCPOverStdio(t *testing.T) {
	home, dir, dev := mcpTestWorkspace(t)
	cmd := cliCommand("mcp", "--workspace", dir, "--tasks", rvTasksDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-client", Version: "0.1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	if got := cs.InitializeResult().ServerInfo; got.Name != "transitbench" || got.Version != version {
		t.Errorf("server info %+v", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 20 {
		t.Fatalf("tools/list: %d tools (%v)", len(tools.Tools), err)
	}

	id, period := strongestInjected(dev)
	var b struct {
		Peaks []struct {
			PeriodDays float64 `json:"period_days"`
		} `json:"peaks"`
	}
	callStructured(t, ctx, cs, "bls", map[string]any{"star": id, "pmin_days": 0.8 * period, "pmax_days": 1.25 * period}, &b)
	// The server's search is quicklook's: the same peaks as the analysis run here. (The strongest injected star of
	// the test set is a subgiant whose wide detrending window lets its variability outshine the planet; the
	// planet's period is checked on the stars where it is first, in workspace/mcpserver's TestTransitTools.)
	a, err := quicklook.Star(dev, id, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.BLS(quicklook.SearchOptions{PMinDays: 0.8 * period, PMaxDays: 1.25 * period, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Peaks) != len(want.Peaks) || len(b.Peaks) == 0 || b.Peaks[0].PeriodDays != want.Peaks[0].PeriodDays {
		t.Errorf("bls on %s (P = %.4f d): %+v, quicklook's peaks %+v", id, period, b, want.Peaks)
	}

	task, err := stargazer.ReadFile(filepath.Join(rvTasksDir, "synthetic", "seed1108_diff2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fb rvgate.Feedback
	callStructured(t, ctx, cs, "rv_submit", map[string]any{"task": task.TaskID,
		"planets": rvgate.FromPlanets(task.TruthPlanets(), 0).Planets}, &fb)
	if fb.Passed == nil || !*fb.Passed || fb.Submission != 1 {
		t.Errorf("rv_submit of the truth: %+v", fb)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(home))
	if err != nil || l.Used(task.TaskID) != 1 || !l.Passed(task.TaskID) {
		t.Errorf("the ledger of the data directory: %v", err)
	}

	var out, errb bytes.Buffer
	if code := runIO([]string{"runs", "--agents", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("runs --agents: exit %d: %s", code, errb.String())
	}
	var agents agentsJSON
	if err := json.Unmarshal(out.Bytes(), &agents); err != nil {
		t.Fatal(err)
	}
	sessions := agents.Sessions
	if len(sessions) != 1 || sessions[0].Turns != 2 || sessions[0].Client != "e2e-client 0.1" || sessions[0].Preset != "survey" {
		t.Errorf("agent sessions: %+v", sessions)
	}
	if a := agents.Agents; len(a) != 1 || a[0].Agent != mcpserver.WorkspaceAgent(&workspace.Workspace{Root: dir}) || a[0].Sessions != 1 || a[0].Turns != 2 {
		t.Errorf("agents: %+v", a)
	}
}

// mcpTestWorkspace makes a data directory (set as TRANSITBENCH_HOME) with small sets and a workspace in it, and
// returns them with the dev set. Its tests then start the server; it skips them in -short mode.
func mcpTestWorkspace(t *testing.T) (home, dir string, dev *sets.Set) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a small dev set and starts the server: not in -short mode")
	}
	home = newHome(t)
	dir = filepath.Join(t.TempDir(), "ws")
	if _, err := workspace.Init(dir, workspace.InitOptions{Home: home, Lang: "python", Compositions: hiddenTestSets}); err != nil {
		t.Fatal(err)
	}
	return home, dir, openTestDev(t, home)
}

// TestMCPOverHTTP starts 'transitbench mcp --http 127.0.0.1:0', reads the address it listens on and its token
// from stderr, and checks who gets in: no token or a wrong one gets 401, a web page's Origin 403 even with the
// token, a rebinding Host 403; with the token (as the token file, mode 0600, also holds it) a client calls
// star_info and rv_list over streamable HTTP. An interrupt stops the server cleanly and removes the file.
func TestMCPOverHTTP(t *testing.T) {
	home, dir, dev := mcpTestWorkspace(t)
	cmd, stderr := startMCP(t, dir, "127.0.0.1:0")
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	var url, token string
	for url == "" && sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "serving MCP (streamable HTTP) on "); ok {
			url = after
		}
		if _, after, ok := strings.Cut(sc.Text(), "transitbench mcp: token "); ok {
			token, _, _ = strings.Cut(after, " ")
		}
	}
	if url == "" || len(token) != 64 {
		t.Fatalf("the server did not say where it listens (%q) and its token (%q)", url, token)
	}
	go io.Copy(io.Discard, stderr)
	tokenFile := filepath.Join(home, mcpTokenFile)
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file %s: %v, mode %v; want 0600", tokenFile, err, fi)
	} else if b, _ := os.ReadFile(tokenFile); strings.TrimSpace(string(b)) != token {
		t.Errorf("the token file holds %q, the server printed %q", b, token)
	}

	// What another user of the machine, or a web page in the user's browser, can send.
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		what    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, http.StatusUnauthorized},
		{"the token without Bearer", map[string]string{"Authorization": token}, http.StatusUnauthorized},
		{"a web page's origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"a null origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "null"}, http.StatusForbidden},
		{"a rebinding host", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example"}, http.StatusForbidden},
		{"the token", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
		{"the token from the server's own origin", map[string]string{"Authorization": "Bearer " + token,
			"Origin": strings.TrimSuffix(url, "/")}, http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range c.headers {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("initialize with %s: %d, want %d", c.what, resp.StatusCode, c.want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "0.1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("initialize over HTTP at %s: %v", url, err)
	}
	var info struct {
		ID    string `json:"id"`
		Truth *struct {
			Category string `json:"category"`
		} `json:"truth"`
	}
	callStructured(t, ctx, cs, "star_info", map[string]any{"star": dev.IDs[0]}, &info)
	if info.ID != dev.IDs[0] || info.Truth == nil || info.Truth.Category != dev.Answers[dev.IDs[0]].Category {
		t.Errorf("star_info over HTTP: %+v", info)
	}
	var list struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	callStructured(t, ctx, cs, "rv_list", map[string]any{"tier": "real"}, &list)
	if len(list.Tasks) == 0 {
		t.Error("rv_list over HTTP lists no real task")
	}
	cs.Close()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server did not stop cleanly on an interrupt: %v", err)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("the token file outlived the server: %v", err)
	}
}

// bearer is a transport that sends a bearer token with every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPOverUnixSocket starts 'transitbench mcp --http unix:PATH': the socket is its owner's only (0600), a
// client connects through it without a token, and a web page's Origin is still refused.
func TestMCPOverUnixSocket(t *testing.T) {
	_, dir, dev := mcpTestWorkspace(t)
	sock := filepath.Join(t.TempDir(), "mcp.sock")
	cmd, stderr := startMCP(t, dir, "unix:"+sock)
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	listening := false
	for !listening && sc.Scan() {
		listening = strings.Contains(sc.Text(), "on the unix socket "+sock)
	}
	if !listening {
		t.Fatal("the server did not say it listens on the socket")
	}
	go io.Copy(io.Discard, stderr)
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("socket %s: %v %v, want a socket of mode 0600", sock, err, fi)
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	req, _ := http.NewRequest(http.MethodPost, "http://localhost/", strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := hc.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a web page's Origin over the socket: %v %v, want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "unix-client", Version: "0.1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://localhost/", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("initialize over the socket: %v", err)
	}
	var info struct {
		ID string `json:"id"`
	}
	callStructured(t, ctx, cs, "star_info", map[string]any{"star": dev.IDs[0]}, &info)
	if info.ID != dev.IDs[0] {
		t.Errorf("star_info over the socket: %+v", info)
	}
	cs.Close()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
}

func TestCheckListenAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8765", false, true},
		{"[::1]:0", false, true},
		{"localhost:8765", false, true},
		{"0.0.0.0:8765", false, false},
		{"192.168.1.5:8765", false, false},
		{"0.0.0.0:8765", true, true},
		{"8765", false, false},
		{"127.0.0.1:", false, false},
	} {
		if err := checkListenAddr("--http", c.addr, c.remote); (err == nil) != c.ok {
			t.Errorf("checkListenAddr(%q, %v) = %v, want ok %v", c.addr, c.remote, err, c.ok)
		}
	}
}

// strongestInjected is the dev star whose injected planet has the highest MES, and its period.
func strongestInjected(set *sets.Set) (string, float64) {
	ids := make([]string, 0, len(set.Answers))
	for id := range set.Answers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	best, mes, period := "", 0.0, 0.0
	for _, id := range ids {
		if a := set.Answers[id]; a.Planet != nil && a.Planet.MES > mes {
			best, mes, period = id, a.Planet.MES, a.Planet.PeriodDays
		}
	}
	return best, period
}

// callStructured calls a tool and decodes its structured result, failing the test on any error.
func callStructured(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args, out any) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: %v", tool, res.Content)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, raw)
	}
}

// startMCP starts 'transitbench mcp --http addr' on the workspace dir and returns the process and its stderr,
// where the server says where it listens (and, on TCP, its token). The caller kills the process.
func startMCP(t *testing.T, dir, addr string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := cliCommand("mcp", "--workspace", dir, "--tasks", rvTasksDir, "--http", addr)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stderr
}
