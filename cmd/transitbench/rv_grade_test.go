package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"transitbench/data/stargazer"
)

// The example RV solution (data/stargazer/starter), graded through 'rv grade' on three Easy single-planet tasks
// copied to a folder of their own (true e = 0.24, 0.01 and 0.06): every run ends normally with one planet within
// 1 % of the true period, and its Keplerian fit passes the gate on all three.
func TestRVGradeStarter(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"seed1108_diff2", "seed1206_diff2", "seed300016_diff1"}
	truth := map[string]float64{}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(rvTasksDir, "synthetic", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		task, err := stargazer.Parse(b, id)
		if err != nil {
			t.Fatal(err)
		}
		truth[id] = task.Config.Planets[0].PDays
	}
	var rep struct {
		Tiers map[string]struct {
			Tasks, Passed int
		} `json:"tiers"`
		Results []struct {
			Task    string    `json:"task"`
			Exit    string    `json:"exit"`
			Periods []float64 `json:"periods_days"`
			Result  struct {
				Passed bool `json:"passed"`
			} `json:"result"`
		} `json:"results"`
	}
	executeJSON(t, &rep, "rv", "grade", "--solution", "../../data/stargazer/starter", "--tasks", dir, "--workers", "2", "--timeout", "120", "--json")
	if e := rep.Tiers["easy"]; e.Tasks != 3 || e.Passed != 3 || len(rep.Results) != 3 {
		t.Fatalf("tiers %+v, %d results; want 3 easy tasks", rep.Tiers, len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Exit != "ok" || len(r.Periods) != 1 || math.Abs(r.Periods[0]/truth[r.Task]-1) > 0.01 {
			t.Errorf("%s: exit %s, periods %v; true period %.4f d", r.Task, r.Exit, r.Periods, truth[r.Task])
		}
		if !r.Result.Passed {
			t.Errorf("%s: not passed", r.Task)
		}
	}
}

func TestRVGradeTimeoutFlag(t *testing.T) {
	for _, bad := range []string{"0", "-5"} {
		args := []string{"rv", "grade", "--solution", "../../data/stargazer/starter", "--tasks", rvTasksDir, "--timeout", bad}
		if code := run(args); code != 2 {
			t.Errorf("--timeout %s: exit %d, want 2", bad, code)
		}
	}
}
