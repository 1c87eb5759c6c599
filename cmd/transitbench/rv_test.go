package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"transitbench/workspace/rvtrack"
)

// rvTasksDir is the published task folder beside the repository, relative to this package.
const rvTasksDir = "../../../shared/data/stargazer"

func runRV(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	out, _, err := executeIn(strings.NewReader(stdin), append(args, "--tasks", rvTasksDir)...)
	return out, err
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
	newHome(t)
	out, err := runRV(t, "", "rv", "start", "seed13_diff10", "--json")
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"planets", "P_days", "m_sin_i", "sigma_white", "jitter", "difficulty", "gp"} {
		if strings.Contains(out, banned) {
			t.Errorf("rv start reveals %q", banned)
		}
	}
	if again, err := runRV(t, "", "rv", "show", "seed13_diff10", "--json"); err != nil || !strings.Contains(again, `"rvs_ms"`) {
		t.Errorf("rv show of the started task: %v\n%s", err, again)
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
	newHome(t)
	// A one-planet guess near real_010's published planet is irrelevant here: the budget is what is tested.
	planets := `[{"P_days": 4.2, "K_ms": 10, "e": 0.1, "omega_rad": 1, "M0_rad": 2}]`
	if _, err := runRV(t, "", "rv", "start", "seed1108_diff2"); err != nil {
		t.Fatal(err)
	}
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
		for _, k := range []string{"task", "ok_rms", "ok_delta_bic", "ok_match", "ok_count", "passed", "rms_ms", "delta_bic_per_point"} {
			if _, ok := fb[k]; !ok {
				t.Errorf("feedback lacks %q", k)
			}
		}
		if _, ok := fb["match_score"]; ok {
			t.Errorf("feedback shows the raw match score: %v", fb)
		}
	}
	if _, err := runRV(t, planets, "rv", "submit", "seed1108_diff2", "--planets", "-", "--json"); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("fourth submission on an easy task: %v, want a budget error", err)
	}
	// The same refusal under the --json error contract: code "budget", exit status 1.
	file := filepath.Join(t.TempDir(), "planets.json")
	if err := os.WriteFile(file, []byte(planets), 0o644); err != nil {
		t.Fatal(err)
	}
	checkJSONError(t, []string{"rv", "submit", "seed1108_diff2", "--planets", file, "--tasks", rvTasksDir, "--json"}, codeBudget)
}

func TestRVGenerateAndBaseline(t *testing.T) {
	dir := t.TempDir()
	var gen struct {
		Tasks []struct{ Task, Tier, Path string } `json:"tasks"`
	}
	out := executeJSON(t, &gen, "rv", "generate", "--tier", "easy", "--count", "2", "--out", dir, "--json")
	if len(gen.Tasks) != 2 || gen.Tasks[0].Tier != "easy" {
		t.Fatalf("generate: %s", out)
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
	out = executeJSON(t, &rep, "rv", "baseline", "classical", "--tasks", dir, "--json", "--quiet")
	e, ok := rep.Tiers["easy"]
	if !ok || rep.Seconds == nil || e.Tasks == nil || *e.Tasks != 2 || e.PassRate == nil || e.SolvableTasks == nil || len(e.Criteria) != 4 {
		t.Errorf("baseline JSON does not follow the schema: %s", out)
	}
	if code := run([]string{"rv", "baseline", "nosuch", "--tasks", dir}); code != 2 {
		t.Errorf("unknown pipeline: exit %d, want 2", code)
	}
}

// copyTask copies a published synthetic task into a folder of its own, so that commands run on it load one task.
func copyTask(t *testing.T, id string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(rvTasksDir, "synthetic", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// submitJSON runs 'rv submit' with --json on the published tasks and decodes the answer.
func submitJSON(t *testing.T, planets string, args ...string) map[string]any {
	t.Helper()
	out, err := runRV(t, planets, append([]string{"rv", "submit"}, append(args, "--planets", "-", "--json")...)...)
	if err != nil {
		t.Fatal(err)
	}
	var fb map[string]any
	if err := json.Unmarshal([]byte(out), &fb); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return fb
}

// TestRVSubmitTimeAndTokens: 'rv start' starts a task's clock; a submission declares its tokens; one over the
// token budget or after the time budget is graded and recorded with within_budget false.
func TestRVSubmitTimeAndTokens(t *testing.T) {
	home := newHome(t)
	const task = "seed1108_diff2" // easy: 200k tokens, 600 s, 3 submissions
	planets := `[{"P_days": 4.2, "K_ms": 10, "e": 0.1, "omega_rad": 1, "M0_rad": 2}]`
	if _, err := runRV(t, "", "rv", "start", task, "--json"); err != nil {
		t.Fatal(err)
	}
	path := rvtrack.LedgerPath(home)
	l, err := rvtrack.OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	opened, ok := l.StartTime(task)
	if !ok || time.Since(opened) > time.Minute {
		t.Fatalf("rv start did not start the clock: %v %v", opened, ok)
	}

	fb := submitJSON(t, planets, task, "--tokens-used", "150000")
	if fb["within_budget"] != true || fb["tokens_left"] != 50000.0 || fb["tokens_used"] != 150000.0 ||
		!(fb["seconds_left"].(float64) > 500) || !(fb["elapsed_seconds"].(float64) < 100) || fb["over_budget"] != nil {
		t.Errorf("first submission: %v", fb)
	}
	for _, k := range []string{"task", "submission", "submissions_left", "ok_rms", "ok_delta_bic", "ok_match", "ok_count",
		"passed", "rms_ms", "delta_bic_per_point", "within_budget", "elapsed_seconds", "seconds_left"} {
		if _, ok := fb[k]; !ok {
			t.Errorf("feedback lacks %q", k)
		}
	}
	if _, ok := fb["match_score"]; ok {
		t.Errorf("feedback shows the raw match score, which reveals the true planet count: %v", fb)
	}
	fb = submitJSON(t, planets, task, "--tokens-used", "200001")
	if fb["within_budget"] != false || fb["tokens_left"] != 0.0 || fmt.Sprint(fb["over_budget"]) != "[tokens]" {
		t.Errorf("over-token submission: %v", fb)
	}

	// Move the task's start 700 s into the past, as if the contestant had opened it then.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	started, _ := json.Marshal(map[string]time.Time{task: time.Now().Add(-700 * time.Second)})
	doc["started"] = started
	raw, _ = json.Marshal(doc)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	fb = submitJSON(t, planets, task)
	if fb["within_budget"] != false || fb["seconds_left"] != 0.0 || !(fb["elapsed_seconds"].(float64) >= 700) ||
		fb["tokens_left"] != nil || fmt.Sprint(fb["over_budget"]) != "[seconds]" || fb["submissions_left"] != 0.0 {
		t.Errorf("late submission: %v", fb)
	}
	// A dry run reports the standing too, and spends nothing.
	fb = submitJSON(t, planets, task, "--dry-run")
	if fb["dry_run"] != true || fb["within_budget"] != false || fb["submissions_left"] != 0.0 {
		t.Errorf("dry run: %v", fb)
	}
	l, err = rvtrack.OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	if rs := l.Tasks[task]; len(rs) != 3 || !rs[0].WithinBudget || rs[1].WithinBudget || rs[2].WithinBudget ||
		rs[1].TokensUsed == nil || *rs[1].TokensUsed != 200001 || rs[2].TokensUsed != nil || rs[2].ElapsedSeconds < 700 {
		t.Errorf("ledger records: %+v", rs)
	}

	if _, err := runRV(t, planets, "rv", "submit", task, "--planets", "-", "--tokens-used", "-1"); err == nil {
		t.Error("a negative --tokens-used was accepted")
	}
}

// TestRVSubmitConcurrentProcesses runs 8 'transitbench rv submit' processes at once on a Medium task (5
// submissions) in one data directory: exactly 5 are recorded, the other 3 fail with the budget error, and the
// ledger stays valid JSON.
func TestRVSubmitConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	home := t.TempDir()
	const task = "seed16_diff4" // medium: 5 submissions
	tasks := copyTask(t, task)
	planets := `[{"P_days": 4.2, "K_ms": 10, "e": 0.1, "omega_rad": 1, "M0_rad": 2}]`
	const procs = 8
	var wg sync.WaitGroup
	codes := make([]int, procs)
	stderrs := make([]string, procs)
	for i := range procs {
		cmd := cliCommand("rv", "submit", task, "--planets", "-", "--tasks", tasks, "--json")
		cmd.Env = append(cmd.Env, "TRANSITBENCH_HOME="+home)
		cmd.Stdin = strings.NewReader(planets)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		wg.Go(func() {
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Errorf("process %d: %v", i, err)
			}
			codes[i], stderrs[i] = cmd.ProcessState.ExitCode(), errb.String()
		})
	}
	wg.Wait()
	ok, spent := 0, 0
	for i, c := range codes {
		switch {
		case c == 0:
			ok++
		case c == 1 && strings.Contains(stderrs[i], rvtrack.ErrBudgetSpent.Error()):
			spent++
		default:
			t.Errorf("process %d: exit %d: %s", i, c, stderrs[i])
		}
	}
	if ok != 5 || spent != procs-5 {
		t.Errorf("%d recorded, %d refused; want 5 and %d", ok, spent, procs-5)
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(home))
	if err != nil {
		t.Fatal(err)
	}
	if n := l.Used(task); n != 5 {
		t.Errorf("the ledger holds %d submissions, want 5", n)
	}
}
