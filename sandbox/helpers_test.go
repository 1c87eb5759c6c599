package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"transitbench/internal/testutil"
)

// testUIDBase is the lowest user id the tests' stars take. Every star has its own id anyway; the base keeps
// the tests' ids apart from those of runs with the default base.
var testUIDBase = 2_100_000_000

// testHome is the tests' data directory (Runner.Home of their runs, made by TestMain): the Go build caches of
// their solutions go there and are removed at the end.
var testHome string

func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "transitbench-test-home-")
	if err != nil {
		panic(err)
	}
	testHome = home
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// sharedTempDir makes a directory under parent (a host directory outside the test's private temporary one,
// where the sandbox's user can reach it), gives it mode and removes it when the test ends.
func sharedTempDir(t *testing.T, parent, prefix string, mode os.FileMode) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, mode)
	return dir
}

// requireFull fails the test when the machine cannot give full isolation: the attack tests check protections
// that only exist with namespaces (run them as root on Linux, as CI does).
func requireFull(t *testing.T) {
	t.Helper()
	if iso := Probe(); !iso.Full() {
		t.Fatalf("isolation is %s: this test needs root on Linux with namespaces", iso)
	}
}

// writeSolution creates dir/solution with the given files; names ending in "run" are made executable.
func writeSolution(t testing.TB, files map[string]string) *Solution {
	t.Helper()
	sol, err := Detect(testutil.NewSolution(t, files))
	if err != nil {
		t.Fatal(err)
	}
	sol.CacheDir = goCacheRoot(testHome)
	t.Cleanup(func() { sol.Close() })
	return sol
}

// shellSolution is a solution whose run is the given /bin/sh script.
func shellSolution(t testing.TB, script string) *Solution {
	return writeSolution(t, map[string]string{"run": "#!/bin/sh\n" + script + "\n"})
}

// starJob writes files into the star directory.
func starJob(id string, files map[string]string) Job {
	return Job{StarID: id, Prepare: func(dir string) error {
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
				return err
			}
		}
		return nil
	}}
}

// runJobs runs the jobs and returns the results by star id, failing on a Run error.
func runJobs(t *testing.T, r *Runner, sol *Solution, jobs ...Job) map[string]Result {
	t.Helper()
	got, err := runJobsErr(context.Background(), r, sol, jobs...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return got
}

func runJobsErr(ctx context.Context, r *Runner, sol *Solution, jobs ...Job) (map[string]Result, error) {
	if r.UIDBase == 0 {
		r.UIDBase = testUIDBase
	}
	if r.Home == "" {
		r.Home = testHome
	}
	trackUIDs(r)
	ch := make(chan Result)
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx, sol, jobs, ch); close(ch) }()
	got := map[string]Result{}
	for res := range ch {
		got[res.StarID] = res
	}
	return got, <-errc
}

// runOne runs sol on one star holding the given files, with limits lim, and returns its result.
func runOne(t *testing.T, sol *Solution, lim Limits, files map[string]string) Result {
	t.Helper()
	r := &Runner{Workers: 1, Limits: lim}
	res := runJobs(t, r, sol, starJob("s", files))["s"]
	if res.StarID != "s" {
		t.Fatalf("no result delivered")
	}
	checkNoSurvivors(t, r)
	return res
}

// runnerUIDs holds, for each runner that trackUIDs set up, the user ids its stars ran as.
var runnerUIDs sync.Map // *Runner → *uidLog

type uidLog struct {
	mu   sync.Mutex
	uids []int
}

// trackUIDs makes r record its stars' user ids for checkNoSurvivors; runJobs and runOne call it.
func trackUIDs(r *Runner) *uidLog {
	v, loaded := runnerUIDs.LoadOrStore(r, &uidLog{})
	l := v.(*uidLog)
	if !loaded {
		r.onUID = func(uid int) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.uids = append(l.uids, uid)
		}
	}
	return l
}

// usedUIDs lists the user ids of r's stars so far.
func usedUIDs(r *Runner) []int {
	l := trackUIDs(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.uids)
}

// checkNoSurvivors fails when any process of the user ids the runner's stars ran as is still alive. The runner
// must have been set up with trackUIDs before its run (runJobs does that).
func checkNoSurvivors(t *testing.T, r *Runner) {
	t.Helper()
	if _, ok := runnerUIDs.Load(r); !ok {
		t.Fatal("checkNoSurvivors: call trackUIDs(r) before r.Run, so the stars' user ids are known")
	}
	for _, uid := range usedUIDs(r) {
		if pids := userPIDs(uid); len(pids) > 0 {
			t.Errorf("processes of sandbox user %d survived the run: %v", uid, pids)
			killUser(uid)
		}
	}
}

func assertReason(t *testing.T, res Result, want ...string) {
	t.Helper()
	for _, w := range want {
		if res.ExitReason == w {
			return
		}
	}
	t.Errorf("exit reason %q (code %d), want one of %v; stdout %q, stderr %q",
		res.ExitReason, res.ExitCode, want, truncate(string(res.Stdout)), truncate(res.StderrTail))
}

func truncate(s string) string {
	if len(s) > 600 {
		return s[:300] + " … " + s[len(s)-300:]
	}
	return s
}

// within fails when d is outside [lo, hi].
func within(t *testing.T, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d > hi {
		t.Errorf("%s = %v, want within [%v, %v]", what, d, lo, hi)
	}
}

func mustNotContain(t *testing.T, res Result, secret string) {
	t.Helper()
	if strings.Contains(string(res.Stdout), secret) || strings.Contains(res.StderrTail, secret) {
		t.Errorf("the solution read %q: stdout %q, stderr %q", secret, truncate(string(res.Stdout)), truncate(res.StderrTail))
	}
}

// runOnHost runs sol's run or solution.py directly, outside any sandbox, as the test's user, on a star directory
// holding files: the control of an attack, showing that the attack works where nothing stops it.
func runOnHost(t *testing.T, sol *Solution, files map[string]string) (stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	if err := starJob("host", files).Prepare(dir); err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	switch sol.Kind {
	case KindExecutable:
		cmd = exec.Command(filepath.Join(sol.Dir, "run"), dir)
	case KindPython:
		cmd = exec.Command(sol.Python, filepath.Join(sol.Dir, "solution.py"), dir)
	default:
		t.Fatalf("runOnHost: cannot run a %s solution", sol.Kind)
	}
	cmd.Dir = sol.Dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run() // the attack scripts may fail on the host too; what they print is what counts
	return out.String(), errb.String()
}

func syscallKill0(pid int) error { return syscall.Kill(pid, 0) }

// probeCodes checks that a probe solution exited normally and reads its stdout, one "name code" line per system
// call it tried (0 for success, else the errno), into a map.
func probeCodes(t *testing.T, res Result) map[string]int {
	t.Helper()
	assertReason(t, res, ExitOK)
	got := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			got[f[0]], _ = strconv.Atoi(f[1])
		}
	}
	return got
}
