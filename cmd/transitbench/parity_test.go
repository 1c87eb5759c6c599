package main

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data"
	"transitbench/workspace"
	"transitbench/workspace/mcpserver"
)

// TestCLIAndMCPSamePeaks searches injected dev stars with 'transitbench bls --star' and with the agent server's
// bls tool, with the quick-look search (no options) and with an explicit grid (a period range, a number of
// periods and durations): both report the same peaks, measured the same (one analysis, workspace/quicklook).
// The same star's directory (as a solution reads it: times to 10⁻⁷ d, flux to 9 significant digits) is
// searched too: its strongest peak is the same signal, within a BLS grid step, since rounding moves a few points
// across the edges of the search's phase bins.
func TestCLIAndMCPSamePeaks(t *testing.T) {
	home, dir, dev := mcpTestWorkspace(t)
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{Workspace: ws, Run: workspace.RunOptions{Home: home, Compositions: hiddenTestSets},
		TasksDir: rvTasksDir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "parity", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()

	compared := 0
	for _, id := range []string{"dev-0000", "dev-0001", "dev-0002", "dev-0003", "dev-0004", "dev-0005", "dev-0006"} {
		a, ok := dev.Answers[id]
		if !ok || a.Planet == nil {
			continue
		}
		c, star, err := dev.Star(id)
		if err != nil {
			t.Fatal(err)
		}
		sd := filepath.Join(t.TempDir(), id)
		if err := data.WriteStarDir(sd, c, star); err != nil {
			t.Fatal(err)
		}
		p := a.Planet.PeriodDays
		for _, o := range []struct {
			cli []string
			mcp map[string]any
		}{
			{nil, map[string]any{}},
			{[]string{"--pmin", "1", "--pmax", "40", "--periods", "4000", "--durations", "0.08,0.16,0.3"},
				map[string]any{"pmin_days": 1, "pmax_days": 40, "periods": 4000, "durations_hours": []float64{1.92, 3.84, 7.2}}},
		} {
			var cli blsJSON
			executeJSON(t, &cli, append([]string{"bls", "--star", id, "--json", "--peaks", "3"}, o.cli...)...)
			var fromDir blsJSON
			executeJSON(t, &fromDir, append([]string{"bls", sd, "--json", "--peaks", "3"}, o.cli...)...)
			if len(fromDir.Peaks) == 0 || math.Abs(fromDir.Peaks[0].PeriodDays/cli.Peaks[0].PeriodDays-1) > 1e-3 {
				t.Errorf("%s %v: the star directory's strongest peak %+v, the set star's %+v", id, o.cli, fromDir.Peaks, cli.Peaks[0])
			}
			o.mcp["star"], o.mcp["peaks"] = id, 3
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bls", Arguments: o.mcp})
			if err != nil || res.IsError {
				t.Fatalf("bls %v: %v %v", o.mcp, err, res)
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var out mcpserver.BLSOut
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatal(err)
			}
			if len(cli.Peaks) != len(out.Peaks) || cli.Search != out.Search || cli.NPoints != out.NPoints ||
				cli.NPeriods != out.NPeriods || cli.WindowDays != out.WindowDays {
				t.Fatalf("%s %v: the command searched %d points (%s, %d periods, window %g d), the server %d (%s, %d, %g d)", id, o.cli,
					cli.NPoints, cli.Search, cli.NPeriods, cli.WindowDays, out.NPoints, out.Search, out.NPeriods, out.WindowDays)
			}
			for i, cp := range cli.Peaks {
				mp := out.Peaks[i]
				if !close6(cp.PeriodDays, mp.PeriodDays) || !close6(cp.T0Days, mp.T0Days) || !close6(cp.SNR, mp.SNR) ||
					cp.Single != mp.Single || len(cp.Events) != len(mp.Events) || (cp.Measured == nil) != (mp.Measured == nil) {
					t.Errorf("%s %v peak %d: command %+v, server %+v", id, o.cli, i+1, cp, mp)
					continue
				}
				if m, n := cp.Measured, mp.Measured; m != nil && (!close6(m.MES, n.MES) || !close6(m.T14Days, n.T14Days) ||
					!close6(m.SecondaryMES, n.SecondaryMES)) {
					t.Errorf("%s %v peak %d measured: command %+v, server %+v", id, o.cli, i+1, *m, *n)
				}
			}
			t.Logf("%s (P %.4f d) %v: peak 1 P %.5f d, SNR %.1f in both", id, p, o.cli, cli.Peaks[0].PeriodDays, cli.Peaks[0].SNR)
			compared++
		}
	}
	if compared < 4 {
		t.Fatalf("%d searches compared", compared)
	}
}

// close6 reports whether a and b agree to 10⁻⁶ relative (or absolute near 0).
func close6(a, b float64) bool {
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
