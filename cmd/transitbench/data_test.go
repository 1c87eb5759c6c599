package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/sets"
)

// runCmd runs transitbench with args and returns its stdout.
func runCmd(t *testing.T, args ...string) []byte {
	t.Helper()
	out, stderr, err := execute(args...)
	if err != nil {
		t.Fatalf("transitbench %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return []byte(out)
}

func TestDataCommands(t *testing.T) {
	newHome(t)
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
	if len(mini.Labelled) != sets.MiniLabelled || len(mini.Hidden) != 0 || mini.HiddenStars != sets.MiniHidden ||
		mini.HiddenPool != sets.MiniPool || mini.Pool != "train" {
		t.Errorf("mini %+v", mini)
	}
}

func TestDataUsageErrors(t *testing.T) {
	newHome(t)
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
	newHome(t)
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

// TestDataRunFunctions drives every data subcommand through its run function with an options struct: build a
// 30-star train pool, then status, summary, show, verify and mini on it, and an import of Kepler-90.
func TestDataRunFunctions(t *testing.T) {
	newHome(t)
	ctx := context.Background()
	var out, errb bytes.Buffer
	js := streams{Out: &out, Err: &errb, JSON: true}
	text := streams{Out: &out, Err: &errb}

	if err := runDataBuild(ctx, js, &dataBuildOptions{Set: sets.Dev, Stars: 30}); !isCode(err, codeUsage) {
		t.Fatalf("--stars with --set dev: %v, want code usage", err)
	}
	if err := runDataBuild(ctx, js, &dataBuildOptions{Set: sets.Train, Stars: 30}); err != nil {
		t.Fatalf("runDataBuild: %v\n%s", err, errb.String())
	}
	var built []dataBuildResult
	decodeJSON(t, &out, &built)
	if len(built) != 1 || built[0].Set != sets.Train || built[0].Stars != 30 || built[0].Categories != sets.TrainComposition(30) {
		t.Fatalf("build result %+v", built)
	}

	if err := runDataStatus(ctx, js); err != nil {
		t.Fatal(err)
	}
	var status []sets.Status
	decodeJSON(t, &out, &status)
	for _, st := range status {
		if (st.Set == sets.Train) != st.Built {
			t.Errorf("status %+v: only train is built", st)
		}
	}

	if err := runDataSummary(ctx, text, &dataSummaryOptions{Set: sets.Train}); err != nil {
		t.Fatal(err)
	}
	c := sets.TrainComposition(30)
	if want := fmt.Sprintf("stars        30: %d injected, %d untouched, %d eclipsing binaries, %d confirmed hosts\n",
		c.Injected, c.Untouched, c.EB, c.Confirmed); !strings.Contains(out.String(), want) ||
		!strings.Contains(out.String(), "fingerprint  "+built[0].Fingerprint+"\n") {
		t.Fatalf("summary:\n%s", out.String())
	}
	out.Reset()

	id := "train-000007"
	if err := runDataShow(ctx, js, &dataShowOptions{Set: sets.Train, Star: id}); err != nil {
		t.Fatal(err)
	}
	var show dataShowResult
	decodeJSON(t, &out, &show)
	if show.Info.ID != id || show.Hidden || show.Answer == nil || show.Info.ValidCadences == 0 {
		t.Fatalf("show %+v", show)
	}
	if err := runDataShow(ctx, js, &dataShowOptions{Set: sets.Train, Star: "train-999999"}); !isCode(err, codeNotFound) {
		t.Fatalf("show of a missing star: %v, want not_found", err)
	}

	if err := runDataVerify(ctx, js, &dataVerifyOptions{Set: sets.Train, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var ver dataVerifyResult
	decodeJSON(t, &out, &ver)
	if ver.Stars != 30 || len(ver.Differ) != 0 || ver.Fingerprint != built[0].Fingerprint {
		t.Fatalf("verify %+v", ver)
	}

	if err := runDataMini(ctx, text, &dataMiniOptions{Task: "mini-train-00000003"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "mini task mini-train-00000003: stars of set train" ||
		!strings.HasPrefix(lines[1], fmt.Sprintf("labelled (%d)  train-", sets.MiniLabelled)) ||
		lines[2] != fmt.Sprintf("hidden (%d)    stars of the secret pool M, not listed", sets.MiniHidden) {
		t.Fatalf("mini:\n%s", out.String())
	}
	out.Reset()

	labels := filepath.Join(t.TempDir(), "labels.csv")
	if err := os.WriteFile(labels, []byte("kic,category,period,t0,duration,depth\n"+
		"11442793,confirmed,7.008217870,137.6716400,3.81200,116.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &dataImportOptions{FITSDir: "../../../shared/data/kepler/fits/kic011442793", Labels: labels, Set: "k90"}
	if err := runDataImport(ctx, js, opts); err != nil {
		t.Fatal(err)
	}
	var imp dataImportResult
	decodeJSON(t, &out, &imp)
	if imp.Set != "k90" || imp.Stars != 1 || imp.Categories.Confirmed != 1 || imp.Unlabelled == nil || len(imp.Unlabelled) != 0 {
		t.Fatalf("import %+v", imp)
	}
}
