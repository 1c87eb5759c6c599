package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"transitbench/workspace/rvtrack"
)

// Kill-and-resume tests of the commands whose state lives outside the results store: 'rv grade' (its progress
// file) and 'data build' (the set's build journal). Each runs this test binary as the transitbench command
// (cliCommand), SIGKILLs it once some tasks or stars are kept on disk, runs the command again and checks that
// it resumed ("resuming … N of M" on stderr), that the finished work was not redone, and that the result
// equals an uninterrupted run's.

// killWhen starts cmd, waits until ready() holds (polling), SIGKILLs it and waits for it to end.
func killWhen(t *testing.T, cmd *exec.Cmd, what string, ready func() bool) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(120 * time.Second)
	for !ready() {
		select {
		case err := <-exited:
			t.Fatalf("%s ended before it was killed: %v\n%s", what, err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%s: not far enough in time to be killed\n%s", what, stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
}

// countLines counts the complete lines of the files matching pattern.
func countLines(pattern string) int {
	paths, _ := filepath.Glob(pattern)
	n := 0
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		n += bytes.Count(b, []byte("\n"))
	}
	return n
}

var resumedRE = regexp.MustCompile(`(\d+) of (\d+) (tasks done|stars already made)`)

// resumedCount reads "N of M" from a command's resume line on stderr.
func resumedCount(t *testing.T, stderr string) (int, int) {
	t.Helper()
	m := resumedRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no resume line on stderr:\n%s", stderr)
	}
	n, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	return n, total
}

func TestRVGradeSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills an rv grade run in a child process")
	}
	home := newHome(t)
	// Six published easy tasks, copied to a temporary folder to keep the run short.
	tasks := t.TempDir()
	paths, _ := filepath.Glob(filepath.Join(rvTasksDir, "synthetic", "seed3000*_diff1.json"))
	if len(paths) < 6 {
		t.Fatalf("found %d easy tasks in %s", len(paths), rvTasksDir)
	}
	for _, p := range paths[:6] {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tasks, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A solution that takes a while per task and submits one planet at 10 d.
	sol := t.TempDir()
	script := "#!/bin/sh\nsleep 0.5\necho '[{\"P_days\": 10, \"K_ms\": 5, \"e\": 0, \"omega_rad\": 0, \"M0_rad\": 0}]'\n"
	if err := os.WriteFile(filepath.Join(sol, "run"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"rv", "grade", "--solution", sol, "--tasks", tasks, "--workers", "1", "--quiet", "--json"}
	progress := filepath.Join(home, "rv", "grade", "*.jsonl")
	killWhen(t, cliCommand(args...), "rv grade", func() bool { return countLines(progress) >= 2 })
	kept := map[string]rvtrack.TaskOutcome{}
	files, _ := filepath.Glob(progress)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, line := range bytes.Split(b, []byte("\n")) {
			var o rvtrack.TaskOutcome
			if json.Unmarshal(line, &o) == nil {
				kept[o.Task] = o
			}
		}
	}
	if len(kept) < 2 || len(kept) >= 6 {
		t.Fatalf("killed run kept %d of 6 tasks", len(kept))
	}

	var out, errb bytes.Buffer
	if code := runIO(args, &out, &errb); code != 0 {
		t.Fatalf("resumed rv grade: exit %d\n%s", code, errb.String())
	}
	if n, total := resumedCount(t, errb.String()); n != len(kept) || total != 6 {
		t.Errorf("resumed %d of %d tasks, want %d of 6", n, total, len(kept))
	}
	var rep rvtrack.SolutionReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Resumed != len(kept) || len(rep.Outcomes) != 6 {
		t.Errorf("report: resumed %d (kept %d), %d outcomes", rep.Resumed, len(kept), len(rep.Outcomes))
	}
	for _, o := range rep.Outcomes {
		if k, ok := kept[o.Task]; ok && (k.Seconds != o.Seconds || k.Result.RMSMS != o.Result.RMSMS) {
			t.Errorf("task %s was run again: %.3f s before the kill, %.3f s in the report", o.Task, k.Seconds, o.Seconds)
		}
	}
	if left, _ := filepath.Glob(progress); len(left) != 0 {
		t.Errorf("the progress file of a finished run is still there: %v", left)
	}

	// An uninterrupted run (the progress file is gone, so it starts afresh) gives the same grades.
	out.Reset()
	errb.Reset()
	if code := runIO(args, &out, &errb); code != 0 {
		t.Fatalf("second rv grade: exit %d\n%s", code, errb.String())
	}
	if strings.Contains(errb.String(), "resuming") {
		t.Errorf("a finished run was resumed:\n%s", errb.String())
	}
	var whole rvtrack.SolutionReport
	if err := json.Unmarshal(out.Bytes(), &whole); err != nil {
		t.Fatal(err)
	}
	for i := range whole.Outcomes {
		a, b := rep.Outcomes[i], whole.Outcomes[i]
		a.Seconds, b.Seconds = 0, 0
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(b)
		if !bytes.Equal(aj, bj) {
			t.Errorf("task %s: resumed outcome %s, uninterrupted %s", a.Task, aj, bj)
		}
	}
	tj, _ := json.Marshal(rep.Tiers)
	wj, _ := json.Marshal(whole.Tiers)
	if !bytes.Equal(tj, wj) {
		t.Errorf("tiers: resumed %s, uninterrupted %s", tj, wj)
	}
}

func TestDataBuildSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 40-star train pool twice")
	}
	home := newHome(t)
	// A 40-star train pool: the same builder as every simulated set, at a size that keeps the test short.
	build := []string{"data", "build", "--set", "train", "--stars", "40", "--json"}
	journal := filepath.Join(home, "sets", ".build-train", "journal.jsonl")
	killWhen(t, cliCommand(append(build, "--workers", "1")...), "data build",
		func() bool { return countLines(journal) >= 10 })
	made := countLines(journal)

	var out, errb bytes.Buffer
	if code := runIO(build, &out, &errb); code != 0 {
		t.Fatalf("resumed build: exit %d\n%s", code, errb.String())
	}
	n, total := resumedCount(t, errb.String())
	if n < made || n >= total {
		t.Errorf("resumed build took over %d of %d stars; %d were in the journal at the kill", n, total, made)
	}
	var res []dataBuildResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res) != 1 {
		t.Fatalf("data build --json: %v\n%s", err, out.String())
	}

	// The same set built in one go in another data directory has the same fingerprint.
	newHome(t)
	out.Reset()
	errb.Reset()
	if code := runIO(build, &out, &errb); code != 0 {
		t.Fatalf("uninterrupted build: exit %d\n%s", code, errb.String())
	}
	var whole []dataBuildResult
	if err := json.Unmarshal(out.Bytes(), &whole); err != nil || len(whole) != 1 {
		t.Fatalf("data build --json: %v\n%s", err, out.String())
	}
	if res[0].Fingerprint != whole[0].Fingerprint || res[0].Stars != whole[0].Stars {
		t.Errorf("resumed build: fingerprint %s (%d stars), uninterrupted %s (%d stars)", res[0].Fingerprint,
			res[0].Stars, whole[0].Fingerprint, whole[0].Stars)
	}
}
