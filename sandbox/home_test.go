package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"transitbench/internal/testutil"
)

// TestRunRefusesWithoutHome checks that a runner without a data directory runs nothing, on a public set as on a
// hidden one: no star is prepared, the solution is not snapshotted, and the error says what to set.
func TestRunRefusesWithoutHome(t *testing.T) {
	for _, hidden := range []bool{false, true} {
		sol := shellSolution(t, `echo ran`)
		var prepared atomic.Int32
		job := Job{StarID: "s", Prepare: func(string) error { prepared.Add(1); return nil }}
		r := &Runner{Workers: 1, Hidden: hidden, AllowDegraded: true}
		ch := make(chan Result, 1)
		err := r.Run(context.Background(), sol, []Job{job}, ch)
		if !errors.Is(err, ErrNoHome) || !strings.Contains(err.Error(), "Runner.Home") {
			t.Fatalf("hidden=%v: Run without Home: %v, want ErrNoHome naming Runner.Home", hidden, err)
		}
		if len(ch) != 0 || prepared.Load() != 0 {
			t.Errorf("hidden=%v: %d results, %d stars prepared; want none", hidden, len(ch), prepared.Load())
		}
		if stage, _, _ := sol.prepared(); stage != "" {
			t.Errorf("hidden=%v: the solution was snapshotted at %s before the refusal", hidden, stage)
		}
	}
}

// TestAttackHomeMasked puts the data directory inside a tree the sandbox shows (/usr) and gives it as
// Runner.Home alone (no Limits.Mask): the runner masks it. The control runs the same star with another home.
func TestAttackHomeMasked(t *testing.T) {
	requireFull(t)
	home := plantAnswers(t, "transitbench-test-home-")
	sol := shellSolution(t, `cat "$(cat "$1/target")/answers.json"; echo "entries=$(ls -A "$(cat "$1/target")" | wc -l)"`)
	star := starJob("s", map[string]string{"target": home})

	control := runJobs(t, &Runner{Workers: 1, Home: testHome}, sol, star)["s"]
	if !strings.Contains(string(control.Stdout), secret) {
		t.Fatalf("control: with another home the answers under /usr were not read (stdout %q, stderr %q)", control.Stdout, control.StderrTail)
	}
	res := runJobs(t, &Runner{Workers: 1, Home: home, WorkDir: t.TempDir()}, sol, star)["s"]
	assertReason(t, res, ExitOK)
	mustNotContain(t, res, secret)
	if !strings.Contains(string(res.Stdout), "entries=0\n") {
		t.Errorf("ls of the data directory given as Runner.Home: %q", res.Stdout)
	}
}

// TestGoCacheDir checks where a Go solution's build cache goes: Prepare refuses a Go solution without
// CacheDir before snapshotting it, and Run builds it with the cache under Runner.Home/cache/gobuild.
func TestGoCacheDir(t *testing.T) {
	sol, err := Detect(testutil.NewSolution(t, map[string]string{
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built\") }\n"}))
	if err != nil {
		t.Fatal(err)
	}
	defer sol.Close()
	if err := sol.Prepare(context.Background()); !errors.Is(err, errNoCacheDir) || !strings.Contains(err.Error(), "CacheDir") {
		t.Fatalf("Prepare of a Go solution without CacheDir: %v, want the error naming CacheDir", err)
	}
	if stage, _, _ := sol.prepared(); stage != "" {
		t.Fatalf("the refused solution was snapshotted at %s", stage)
	}
	home := t.TempDir()
	res := runJobs(t, &Runner{Workers: 1, Home: home}, sol, starJob("s", nil))["s"]
	assertReason(t, res, ExitOK)
	if string(res.Stdout) != "built\n" {
		t.Errorf("stdout %q, want built (stderr %q)", res.Stdout, res.StderrTail)
	}
	sum := sha256.Sum256([]byte(sol.Dir))
	cache := filepath.Join(home, "cache", "gobuild", hex.EncodeToString(sum[:8]))
	if fi, err := os.Stat(cache); err != nil || !fi.IsDir() {
		t.Errorf("no build cache of %s under Runner.Home: %v", sol.Dir, err)
	}
}
