package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data/sets"
	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/grader/store"
	"transitbench/workspace"
	"transitbench/workspace/rvtrack"
)

// TestMCPOverStdio starts this program as 'transitbench mcp' (the test binary re-executed, see TestMain) and
// talks to it as an agent's client would over stdin and stdout: initialize, list the tools, run bls on a dev
// star (it finds the injected planet) and submit the true planet of an RV task (it passes, through the data
// directory's ledger). Then 'runs --agents' shows the session with its two tool calls.
func TestMCPOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a small dev set and starts the server: not in -short mode")
	}
	home := t.TempDir()
	t.Setenv("TRANSITBENCH_HOME", home)
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := workspace.Init(dir, workspace.InitOptions{Home: home, Lang: "python", Compositions: hiddenTestSets}); err != nil {
		t.Fatal(err)
	}
	c := hiddenTestSets[sets.Dev]
	dev, err := sets.Open(home, sets.Dev, sets.Options{Composition: &c})
	if err != nil {
		t.Fatal(err)
	}

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
	if err != nil || len(tools.Tools) != 15 {
		t.Fatalf("tools/list: %d tools (%v)", len(tools.Tools), err)
	}

	id, period := strongestInjected(dev)
	var b struct {
		Peaks []struct {
			PeriodDays float64 `json:"period_days"`
		} `json:"peaks"`
	}
	callStructured(t, ctx, cs, "bls", map[string]any{"star": id, "pmin_days": 0.8 * period, "pmax_days": 1.25 * period}, &b)
	if len(b.Peaks) == 0 || math.Abs(b.Peaks[0].PeriodDays/period-1) > 0.01 {
		t.Errorf("bls on %s (P = %.4f d): %+v", id, period, b)
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
	var sessions []store.AgentSession
	if err := json.Unmarshal(out.Bytes(), &sessions); err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 || sessions[0].Turns != 2 || sessions[0].Client != "e2e-client 0.1" || sessions[0].Preset != "survey" {
		t.Errorf("agent sessions: %+v", sessions)
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
