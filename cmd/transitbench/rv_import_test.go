package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/grader/rvgate"
)

// hd164922File is HD 164922's published series beside the repository (../shared/data/rv-public).
const hd164922File = "../../../shared/data/rv-public/hd164922_radvel.txt"

// TestRVImportListsBesideThePublished imports HD 164922's radvel file and a reduced-BJD CSV, and checks that
// the task is written to the user folder, listed in tier user beside the 120 published tasks, shown, left out
// of the baselines, and refused by submit (no truth) while a dry run answers.
func TestRVImportListsBesideThePublished(t *testing.T) {
	home := newHome(t)
	out, err := runRV(t, "", "rv", "import", hd164922File, "--name", "hd164922", "--mstar", "0.874", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var imp rvImportJSON
	if err := json.Unmarshal([]byte(out), &imp); err != nil {
		t.Fatal(err)
	}
	if imp.NObs != 401 || len(imp.Instruments) != 3 || imp.Files[0].Format != "radvel" || imp.Files[0].TimeSystem.Name != "BJD" || imp.MStarAssumed {
		t.Fatalf("import %+v", imp)
	}
	if imp.Path != filepath.Join(home, "rv", "tasks", "hd164922.json") {
		t.Fatalf("written to %s", imp.Path)
	}
	csv := filepath.Join(t.TempDir(), "mine.csv")
	var b strings.Builder
	b.WriteString("# my own series\ntime,rv,err\n")
	for i := range 30 {
		b.WriteString(strings.Join([]string{ftoa(6000 + 3.1*float64(i)), ftoa(float64(i%7) - 3), "1.5"}, ",") + "\n")
	}
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Times 6000-6090 could be BJD - 2450000, BKJD or BTJD: refused until the time system is named.
	if _, err = runRV(t, "", "rv", "import", csv); err == nil || !strings.Contains(err.Error(), "--time-system BJD-2450000, BKJD or BTJD") {
		t.Fatalf("import of 4-digit times without a time system: %v", err)
	} else if code, _ := classify(err); code != codeBadInput {
		t.Fatalf("ambiguous times: code %s, want %s", code, codeBadInput)
	}
	if _, err = runRV(t, "", "rv", "import", csv, "--time-system", "BKJD", "--time-offset", "2450000"); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Fatalf("both --time-system and --time-offset: %v", err)
	}
	out, err = runRV(t, "", "rv", "import", csv, "--time-system", "BJD-2450000")
	if err != nil || !strings.Contains(out, "BJD - 2450000 assumed: named by the caller") || !strings.Contains(out, "M★ 1.000 M☉ (assumed; give --mstar)") {
		t.Fatalf("import mine.csv: %v\n%s", err, out)
	}
	if _, err := runRV(t, "", "rv", "import", csv, "--time-offset", "2450000"); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("second import: %v", err)
	}
	// The same file as BKJD lands 4833 d later.
	out, err = runRV(t, "", "rv", "import", csv, "--time-system", "bkjd", "--name", "mine_bkjd", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var bk rvImportJSON
	if err := json.Unmarshal([]byte(out), &bk); err != nil || bk.Files[0].TimeSystem.Offset != 2454833 || bk.Files[0].TimeSystem.Reason == "" {
		t.Fatalf("import as BKJD: %v %+v", err, bk)
	}
	if imp.Files[0].TimeSystem.Reason != "times of 2.3–2.6 million days are full Julian days" {
		t.Errorf("HD 164922's time system reason: %q", imp.Files[0].TimeSystem.Reason)
	}
	out, err = runRV(t, "", "rv", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list rvListJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	users := 0
	for _, r := range list.Tasks {
		if r.Tier == "user" {
			users++
		}
	}
	if len(list.Tasks) != 123 || users != 3 || list.Tasks[122].Tier != "user" {
		t.Fatalf("%d tasks, %d user; want 120 published + 3 imported, imported last", len(list.Tasks), users)
	}
	if out, err = runRV(t, "", "rv", "show", "hd164922", "--json"); err != nil || !strings.Contains(out, `"tier": "user"`) {
		t.Fatalf("show: %v %s", err, out)
	}
	sub := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(sub, []byte(`{"planets": [{"P_days": 1201, "K_ms": 7, "e": 0.1, "omega_rad": 0, "M0_rad": 0}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runRV(t, "", "rv", "submit", "hd164922", "--planets", sub); err == nil || !strings.Contains(err.Error(), "no truth") {
		t.Fatalf("submit on an imported task: %v", err)
	}
	if out, err = runRV(t, "", "rv", "submit", "hd164922", "--planets", sub, "--dry-run", "--json"); err != nil || !strings.Contains(out, "rms") {
		t.Fatalf("dry run: %v %s", err, out)
	}
	// rv fit on an imported task runs the honest search by default: HD 164922's two planets.
	out, err = runRV(t, "", "rv", "fit", "hd164922", "--json")
	if err != nil {
		t.Fatal(err)
	}
	checkHonestFitJSON(t, out, sub)
	if out, err = runRV(t, "", "rv", "fit", "hd164922"); err != nil || !strings.Contains(out, "(honest, the default for imported data)") || !strings.Contains(out, "no significant peak") {
		t.Fatalf("fit text: %v\n%s", err, out)
	}
	for _, c := range [][]string{{"truthcheck"}, {"baseline", "honest"}} {
		args := append(append([]string{"rv"}, c...), "--tier", "user")
		if _, err := runRV(t, "", args...); err == nil || !strings.Contains(err.Error(), "no truth") {
			t.Fatalf("%v --tier user: %v, want a refusal", c, err)
		}
	}
}

func ftoa(x float64) string { b, _ := json.Marshal(x); return string(b) }

// checkHonestFitJSON checks 'rv fit --json' of HD 164922 by the honest search: its two planets, each
// instrument's own jitter (HIRES before and after 2004, APF), and that the output still reads back as a
// submission (a dry run through file sub).
func checkHonestFitJSON(t *testing.T, out, sub string) {
	t.Helper()
	var fit struct {
		Planets []struct {
			P float64 `json:"P_days"`
		} `json:"planets"`
		Instruments []rvgate.InstrumentFit `json:"instruments"`
	}
	if err := json.Unmarshal([]byte(out), &fit); err != nil || len(fit.Planets) != 2 {
		t.Fatalf("fit: %v %s", err, out)
	}
	points := 0
	for _, in := range fit.Instruments {
		points += in.Points
		if in.JitterMS <= 0 || in.JitterMS > 10 {
			t.Errorf("instrument %s: jitter %.2f m/s", in.Name, in.JitterMS)
		}
	}
	if len(fit.Instruments) != 3 || points != 401 {
		t.Errorf("instruments %+v, want 3 with 401 points", fit.Instruments)
	}
	if err := os.WriteFile(sub, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runRV(t, "", "rv", "submit", "hd164922", "--planets", sub, "--dry-run"); err != nil {
		t.Errorf("the fit's JSON as a submission: %v", err)
	}
}
