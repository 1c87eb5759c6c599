package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// rvTasksDir is the published task folder beside the repository, relative to this package.
const rvTasksDir = "../../../shared/data/stargazer"

func runRV(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(append(args, "--tasks", rvTasksDir))
	err := root.Execute()
	return out.String(), err
}

func TestRVListTiers(t *testing.T) {
	// SPEC B1: Easy 20, Medium 40, Hard 40, Real 20 tasks.
	for tier, want := range map[string]int{"easy": 20, "medium": 40, "hard": 40, "real": 20} {
		out, err := runRV(t, "", "rv", "list", "--tier", tier, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Tasks []struct {
				Task, Tier string
			} `json:"tasks"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Tasks) != want {
			t.Errorf("tier %s: %d tasks, want %d", tier, len(v.Tasks), want)
		}
	}
	if code := run([]string{"rv", "list", "--tier", "extreme", "--tasks", rvTasksDir}); code != 2 {
		t.Errorf("unknown tier: exit %d, want 2", code)
	}
}

func TestRVShowHidesTruth(t *testing.T) {
	out, err := runRV(t, "", "rv", "show", "seed13_diff10", "--json")
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"planets", "P_days", "m_sin_i", "sigma_white", "jitter", "difficulty", "gp"} {
		if strings.Contains(out, banned) {
			t.Errorf("rv show reveals %q", banned)
		}
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	// seed13_diff10: 43 observations, first time 1.1419124199884236 d (from the task file).
	if v["n_obs"].(float64) != 43 || v["t_ref_days"].(float64) != 1.1419124199884236 || v["tier"] != "hard" {
		t.Errorf("show: n_obs %v t_ref %v tier %v", v["n_obs"], v["t_ref_days"], v["tier"])
	}
}

func TestRVSubmitBudget(t *testing.T) {
	t.Setenv("TRANSITBENCH_HOME", t.TempDir())
	// A one-planet guess near real_010's published planet is irrelevant here: the budget is what is tested.
	planets := `[{"P_days": 4.2, "K_ms": 10, "e": 0.1, "omega_rad": 1, "M0_rad": 2}]`
	out, err := runRV(t, planets, "rv", "submit", "seed1108_diff2", "--planets", "-", "--dry-run", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"dry_run": true`) || strings.Contains(out, "match_score") {
		t.Errorf("dry run reports truth-derived fields or is not marked:\n%s", out)
	}
	for i := 1; i <= 3; i++ { // easy tier: 3 submissions
		out, err := runRV(t, planets, "rv", "submit", "seed1108_diff2", "--planets", "-", "--json")
		if err != nil {
			t.Fatalf("submission %d: %v", i, err)
		}
		var fb map[string]any
		json.Unmarshal([]byte(out), &fb)
		if int(fb["submission"].(float64)) != i || int(fb["submissions_left"].(float64)) != 3-i {
			t.Errorf("submission %d: %v", i, fb)
		}
		for _, k := range []string{"task", "ok_rms", "ok_delta_bic", "ok_match", "ok_count", "passed", "rms_ms", "delta_bic_per_point", "match_score"} {
			if _, ok := fb[k]; !ok {
				t.Errorf("feedback lacks %q", k)
			}
		}
	}
	if _, err := runRV(t, planets, "rv", "submit", "seed1108_diff2", "--planets", "-", "--json"); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("fourth submission on an easy task: %v, want a budget error", err)
	}
}

func TestRVGenerateAndBaseline(t *testing.T) {
	dir := t.TempDir()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"rv", "generate", "--tier", "easy", "--count", "2", "--out", dir, "--json"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var gen struct {
		Tasks []struct{ Task, Tier, Path string } `json:"tasks"`
	}
	if err := json.Unmarshal(out.Bytes(), &gen); err != nil || len(gen.Tasks) != 2 || gen.Tasks[0].Tier != "easy" {
		t.Fatalf("generate: %v %s", err, out.String())
	}
	root = newRootCmd()
	out.Reset()
	root.SetOut(&out)
	root.SetArgs([]string{"rv", "baseline", "classical", "--tasks", dir, "--json", "--quiet"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Tiers map[string]struct {
			Tasks          *int     `json:"tasks"`
			Passed         *int     `json:"passed"`
			PassRate       *float64 `json:"pass_rate"`
			SolvableTasks  *int     `json:"solvable_tasks"`
			SolvablePassed *int     `json:"solvable_passed"`
			Criteria       map[string]float64
		} `json:"tiers"`
		Seconds *float64 `json:"seconds"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	e, ok := rep.Tiers["easy"]
	if !ok || rep.Seconds == nil || e.Tasks == nil || *e.Tasks != 2 || e.PassRate == nil || e.SolvableTasks == nil || len(e.Criteria) != 4 {
		t.Errorf("baseline JSON does not follow the schema: %s", out.String())
	}
	if code := run([]string{"rv", "baseline", "nosuch", "--tasks", dir}); code != 2 {
		t.Errorf("unknown pipeline: exit %d, want 2", code)
	}
}
