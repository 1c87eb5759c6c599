package main

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/workspace"
)

// BenchmarkAgentLatency compares an agent's two ways in: one 'transitbench mcp' process answering tool calls
// over stdio (sets loaded once) against one 'transitbench' process per call, for star_info ('data show') and
// bls on a dev star (the default grid; the server's grid follows the star's radius and mass). Each reports
// the median latency of its calls as median-ms. It builds the standard dev set (196 stars) first, since
// 'data show' opens the set with its standard composition.
func BenchmarkAgentLatency(b *testing.B) {
	home := newHome(b)
	dir := filepath.Join(b.TempDir(), "ws")
	if _, err := workspace.Init(dir, workspace.InitOptions{Home: home, Lang: "python"}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cliCommand("mcp", "--workspace", dir)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	const star = "dev-0000"
	viaMCP := func(tool string) func(b *testing.B) {
		return func(b *testing.B) {
			timeCalls(b, func() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"star": star}})
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", tool, err, res)
				}
			})
		}
	}
	viaCLI := func(args ...string) func(b *testing.B) {
		return func(b *testing.B) {
			timeCalls(b, func() {
				cmd := cliCommand(append(args, "--json")...)
				cmd.Env = append(cmd.Env, "TRANSITBENCH_HOME="+home)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", args, err, out)
				}
			})
		}
	}
	// The server loads the dev set on its first call.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "star_info", Arguments: map[string]any{"star": star}}); err != nil {
		b.Fatal(err)
	}
	b.Run("star_info/mcp", viaMCP("star_info"))
	b.Run("star_info/cli", viaCLI("data", "show", "--set", "dev", "--star", star))
	b.Run("bls/mcp", viaMCP("bls"))
	b.Run("bls/cli", viaCLI("bls", filepath.Join(dir, "data", "dev", star)))
}

// timeCalls times each call of the benchmark loop and reports their median in milliseconds.
func timeCalls(b *testing.B, call func()) {
	var d []time.Duration
	for b.Loop() {
		s := time.Now()
		call()
		d = append(d, time.Since(s))
	}
	if len(d) > 0 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(float64(d[len(d)/2])/1e6, "median-ms")
	}
}
