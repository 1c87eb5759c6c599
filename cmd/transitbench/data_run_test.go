package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/sets"
)

// TestDataRunFunctions drives every data subcommand through its run function with an options struct: build a
// 30-star train pool, then status, summary, show, verify and mini on it, and an import of Kepler-90.
func TestDataRunFunctions(t *testing.T) {
	home := t.TempDir()
	t.Setenv("TRANSITBENCH_HOME", home)
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
		!strings.HasPrefix(lines[2], fmt.Sprintf("hidden (%d)    train-", sets.MiniHidden)) {
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
