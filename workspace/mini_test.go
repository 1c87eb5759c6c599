package workspace

import (
	"context"
	"path/filepath"
	"testing"

	"transitbench/data/sets"
	"transitbench/internal/testsets"
	"transitbench/internal/testutil"
)

// TestMiniTaskIsNotSolvedByLookup runs a mini task with a solution that embeds the answers of the public
// pools a contestant can build (dev, and a train pool) and looks its star up by the id in star.json and by its
// light curve: on a task drawn from public pools it would score reward 1. The hidden stars come from the
// secret pool, so the lookup finds none of them and earns no credit.
func TestMiniTaskIsNotSolvedByLookup(t *testing.T) {
	home := t.TempDir()
	const task = "mini-dev-00000003"
	ws, err := Init(filepath.Join(t.TempDir(), "ws"), InitOptions{Home: home, Preset: "mini", Task: task, Lang: "python"})
	if err != nil {
		t.Fatal(err)
	}
	pools := map[string]sets.Composition{sets.Train: sets.TrainComposition(200)}
	_, public, err := testsets.Open(home, pools)
	if err != nil {
		t.Fatal(err)
	}
	curves := map[string]string{}
	for _, name := range []string{sets.Dev, sets.Train} {
		so := sets.Options{}
		if c, ok := pools[name]; ok {
			so.Composition = &c
		}
		s, err := sets.Open(home, name, so)
		if err != nil {
			t.Fatal(err)
		}
		for id, a := range s.Answers {
			public[id] = a
		}
		if err := testsets.AddCurveIDs(curves, s); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteRunScript(t, ws.SolutionDir(), testsets.OracleScriptByCurve(testsets.PlanetRows(public), curves, "", ""))

	opt := RunOptions{Home: home, Workers: 2, AllowDegraded: true,
		Compositions: map[string]sets.Composition{sets.MiniPool: {Injected: 10, Untouched: 8, EB: 2, Confirmed: 1}}}
	res, err := ws.Mini(context.Background(), task, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Chance is what a solution printing nothing gets: credit 0, reward 0.
	if res.Credit != 0 || res.Reward > 0 {
		t.Errorf("the lookup solution scores reward %.3f (credit %.1f) on %s: the hidden stars are public", res.Reward, res.Credit, task)
	}
	st := openTestStore(t, home)
	defer st.Close()
	run, err := st.Run(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Set != sets.MiniPool || !run.Hidden || run.Stars != sets.MiniHidden {
		t.Errorf("the mini run ran on set %s (hidden %v, %d stars), want the secret pool's %d stars", run.Set, run.Hidden,
			run.Stars, sets.MiniHidden)
	}
	if outs, err := st.Outcomes(context.Background(), res.RunID); err != nil || len(outs) != 0 {
		t.Errorf("the mini run keeps %d per-star outcomes (%v): its hidden stars' aggregates only", len(outs), err)
	}
}
