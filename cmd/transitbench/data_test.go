package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/sets"
)

// runCmd runs transitbench with args and returns its stdout.
func runCmd(t *testing.T, args ...string) []byte {
	t.Helper()
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("transitbench %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

func TestDataCommands(t *testing.T) {
	t.Setenv("TRANSITBENCH_HOME", t.TempDir())
	// A 30-star train pool keeps the test fast with the real simulator; it is big enough for mini tasks
	// (12 injected, 11 untouched stars: sets.TrainComposition(30)).
	var built []map[string]any
	if err := json.Unmarshal(runCmd(t, "data", "build", "--set", "train", "--stars", "30", "--json"), &built); err != nil {
		t.Fatal(err)
	}
	if len(built) != 1 || built[0]["set"] != "train" || built[0]["stars"] != 30.0 {
		t.Fatalf("build output %v", built)
	}

	var sum sets.Summary
	if err := json.Unmarshal(runCmd(t, "data", "summary", "--set", "train", "--json"), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Categories != sets.TrainComposition(30) || sum.Fingerprint != built[0]["fingerprint"] {
		t.Errorf("summary %+v", sum)
	}
	// Populations split ⌈n/2⌉ random among 12 injected (6 + 6) and 11 untouched stars (6 + 5).
	if sum.Populations != (sets.Populations{Random: 12, FalseAlarm: 11}) || sum.Planets != 12 {
		t.Errorf("populations %+v, planets %d", sum.Populations, sum.Planets)
	}

	var show dataShowResult
	if err := json.Unmarshal(runCmd(t, "data", "show", "--set", "train", "--star", "train-000003", "--json"), &show); err != nil {
		t.Fatal(err)
	}
	if show.Info.ID != "train-000003" || show.Answer == nil || show.Answer.ID != "train-000003" || show.Info.Cadences < 14000 {
		t.Errorf("show %+v", show)
	}
	if human := string(runCmd(t, "data", "show", "--set", "train", "--star", "train-000003")); !strings.Contains(human, "answer") {
		t.Errorf("human show output:\n%s", human)
	}

	var status []sets.Status
	if err := json.Unmarshal(runCmd(t, "data", "status", "--json"), &status); err != nil {
		t.Fatal(err)
	}
	if len(status) != 4 || status[3].Set != "train" || !status[3].Built || status[3].Stars != 30 || status[0].Built {
		t.Errorf("status %+v", status)
	}

	var ver dataVerifyResult
	if err := json.Unmarshal(runCmd(t, "data", "verify", "--set", "train", "--json"), &ver); err != nil {
		t.Fatal(err)
	}
	if ver.Stars != 30 || len(ver.Differ) != 0 || ver.Fingerprint != sum.Fingerprint {
		t.Errorf("verify %+v", ver)
	}

	var mini sets.Mini
	if err := json.Unmarshal(runCmd(t, "data", "mini", "--task", "mini-train-00000001", "--json"), &mini); err != nil {
		t.Fatal(err)
	}
	if len(mini.Labelled) != sets.MiniLabelled || len(mini.Hidden) != sets.MiniHidden || mini.Pool != "train" {
		t.Errorf("mini %+v", mini)
	}
}

func TestDataUsageErrors(t *testing.T) {
	t.Setenv("TRANSITBENCH_HOME", t.TempDir())
	seed := filepath.Join(t.TempDir(), "seed")
	os.WriteFile(seed, []byte(strings.Repeat("ab", 32)), 0o600)
	for _, args := range [][]string{
		{"data", "build"},
		{"data", "build", "--set", "X"},
		{"data", "build", "--set", "dev", "--stars", "10"},
		{"data", "build", "--set", "dev", "--seed-file", seed},
		{"data", "summary"},
		{"data", "summary", "--set", "nosuch"},
		{"data", "show", "--set", "dev"},
		{"data", "mini", "--task", "mini-dev-00000032"},
		{"data", "import", "--set", "k"},
	} {
		if got := run(args); got != 2 {
			t.Errorf("transitbench %s exited %d, want 2", strings.Join(args, " "), got)
		}
	}
}

func TestDataImportKepler90(t *testing.T) {
	t.Setenv("TRANSITBENCH_HOME", t.TempDir())
	// Kepler-90 b and c from the KOI table (koi_period, koi_time0bk, koi_duration in hours, koi_depth in ppm).
	labels := filepath.Join(t.TempDir(), "labels.csv")
	os.WriteFile(labels, []byte("kic,category,period,t0,duration,depth\n"+
		"11442793,confirmed,7.008217870,137.6716400,3.81200,116.4\n"+
		"11442793,confirmed,8.719801350,139.5213400,3.74540,160.4\n"), 0o644)
	var out struct {
		sets.Summary
		Unlabelled []int `json:"unlabelled"`
	}
	b := runCmd(t, "data", "import", "--fits", "../../../shared/data/kepler/fits/kic011442793", "--labels", labels,
		"--set", "kepler90", "--json")
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Stars != 1 || out.Categories.Confirmed != 1 || out.ScoredStars != 0 || out.Kind != sets.KindImported {
		t.Errorf("import output %s", b)
	}
	var show dataShowResult
	json.Unmarshal(runCmd(t, "data", "show", "--set", "kepler90", "--star", "kepler90-0000", "--json"), &show)
	if show.Info.KIC != 11442793 || show.Answer == nil || len(show.Answer.Confirmed) != 2 {
		t.Errorf("show %+v", show)
	}
}
