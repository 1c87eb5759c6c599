package testsets

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"transitbench/data/sets"
)

// TestOracleScriptAnswersByID runs the script of a small dev set's planets (and a star with two rows) on star
// folders of three ids: each prints the header, its own rows and the rows for every star, and its stderr line.
func TestOracleScriptAnswersByID(t *testing.T) {
	answers, all, err := Open(t.TempDir(), map[string]sets.Composition{sets.Dev: {Injected: 2, Untouched: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(answers[sets.Dev]) != 3 || len(all) != 3 {
		t.Fatalf("%d dev answers, %d in all: want 3 and 3", len(answers[sets.Dev]), len(all))
	}
	rows := PlanetRows(all)
	if len(rows) != 2 {
		t.Fatalf("%d stars with a planet row, want the 2 injected: %v", len(rows), rows)
	}
	rows["two-rows"] = []string{"1,2,3", "4,5,6"}
	script := filepath.Join(t.TempDir(), "run")
	if err := os.WriteFile(script, []byte(OracleScript(rows, "echo \"mark $id\" >&2\n", "echo 7,8,9\n")), 0o755); err != nil {
		t.Fatal(err)
	}
	ids := []string{"two-rows", "no-such-star"}
	for id := range rows {
		if id != "two-rows" {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "star.json"), []byte(`{"id": "`+id+`", "kepmag": 12}`), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(script, dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v %s", id, err, stderr.Bytes())
		}
		if got := stderr.String(); got != "mark "+id+"\n" {
			t.Errorf("%s: stderr %q", id, got)
		}
		want := "period_days,t0_days,score\n"
		for _, r := range rows[id] {
			want += r + "\n"
		}
		want += "7,8,9\n"
		if string(out) != want {
			t.Errorf("%s: printed %q, want %q", id, out, want)
		}
	}
}
