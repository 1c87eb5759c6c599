package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPythonSolutionReadsStar runs the normal case: a Python solution with numpy reads its star and prints rows.
func TestPythonSolutionReadsStar(t *testing.T) {
	requireFull(t)
	sol := writeSolution(t, map[string]string{"solution.py": `import os, sys
import numpy as np
d = np.genfromtxt(os.path.join(sys.argv[1], "lightcurve.csv"), delimiter=",", names=True)
print("period_days,t0_days,score")
print(f"{d['time'].size:.1f},{d['flux'].mean():.4f},{len(os.sched_getaffinity(0))}")
print(os.environ["OPENBLAS_NUM_THREADS"], os.environ["HOME"], os.getcwd(), sys.argv[1], os.getuid() != 0, file=sys.stderr)
`})
	res := runOne(t, sol, Limits{}, map[string]string{
		"lightcurve.csv": "time,flux,flux_err,quality\n131.5,0.999,0.001,0\n131.52,1.001,0.001,0\n131.54,1.000,0.001,8\n",
		"star.json":      `{"id":"x"}`,
	})
	assertReason(t, res, ExitOK)
	// 3 rows, mean flux (0.999+1.001+1.000)/3 = 1.0000, one CPU.
	if want := "period_days,t0_days,score\n3.0,1.0000,1\n"; string(res.Stdout) != want {
		t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.StderrTail)
	}
	if want := "1 /tmp " + SolutionMount + " " + StarMount + " True\n"; res.StderrTail != want {
		t.Errorf("stderr %q, want %q", res.StderrTail, want)
	}
	if res.Isolation != "full" || res.ExitCode != 0 {
		t.Errorf("isolation %q, exit code %d", res.Isolation, res.ExitCode)
	}
	// numpy alone takes tens of MiB resident.
	if res.PeakRSSBytes < 10<<20 || res.Runtime <= 0 || res.Runtime > 30*time.Second {
		t.Errorf("peak RSS %d B, runtime %v: implausible", res.PeakRSSBytes, res.Runtime)
	}
}

func TestExitReasons(t *testing.T) {
	requireFull(t)
	cases := []struct {
		name, script string
		reason       string
		code         int
	}{
		{"ok", "echo fine", ExitOK, 0},
		{"exit code", "echo oops >&2; exit 3", ExitCode, 3},
		// A fault is delivered even to the PID-namespace init: 128 + SIGSEGV (11).
		{"signal", `exec /usr/bin/python3 -c 'import ctypes; ctypes.string_at(0)'`, ExitSignal, 139},
		{"memory message", "echo 'MemoryError' >&2; exit 1", ExitMemory, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runOne(t, shellSolution(t, c.script), Limits{}, nil)
			if res.ExitReason != c.reason || res.ExitCode != c.code {
				t.Errorf("got %s/%d, want %s/%d (stderr %q)", res.ExitReason, res.ExitCode, c.reason, c.code, res.StderrTail)
			}
		})
	}
}

// TestJobWallTime: a job's own wall time replaces the runner's limit for that star only.
func TestJobWallTime(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, "sleep 2; echo done")
	short := starJob("short", nil)
	short.WallTime = 500 * time.Millisecond
	r := &Runner{Workers: 2, Limits: Limits{WallTime: 20 * time.Second}, UIDBase: testUIDBase}
	got := runJobs(t, r, sol, short, starJob("long", nil))
	assertReason(t, got["short"], ExitTimeout)
	assertReason(t, got["long"], ExitOK)
	within(t, "runtime of the short job", got["short"].Runtime, 0, 1500*time.Millisecond)
	checkNoSurvivors(t, r)
}

func TestStartFailed(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, "echo should-not-run")
	r := &Runner{Workers: 1}
	got := runJobs(t, r, sol, Job{StarID: "bad", Prepare: func(string) error { return errors.New("no light curve") }})
	res := got["bad"]
	assertReason(t, res, ExitStartFailed)
	if !strings.Contains(res.StderrTail, "no light curve") || len(res.Stdout) != 0 {
		t.Errorf("stderr %q stdout %q", res.StderrTail, res.Stdout)
	}
	// A solution whose interpreter does not exist fails at the exec, inside the sandbox.
	res = runOne(t, writeSolution(t, map[string]string{"run": "#!/nonexistent/interpreter\n"}), Limits{}, nil)
	assertReason(t, res, ExitStartFailed)
	if !strings.Contains(res.StderrTail, "no such file") {
		t.Errorf("stderr %q, want the exec error", res.StderrTail)
	}
}

// TestParallelStreaming runs more stars than workers and checks that every star gets its own result, each
// pinned to a single CPU, and that results arrive as stars finish (a quick star before the slow one).
func TestParallelStreaming(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `cat "$1/id"; grep Cpus_allowed_list /proc/self/status | tr -d ' \t'; sleep "$(cat "$1/sleep")"`)
	var jobs []Job
	for i := range 6 {
		sleep := "0"
		if i == 0 {
			sleep = "2"
		}
		jobs = append(jobs, starJob(fmt.Sprintf("star-%d", i), map[string]string{"id": fmt.Sprintf("id-%d\n", i), "sleep": sleep}))
	}
	r := &Runner{Workers: 2, UIDBase: testUIDBase, Home: testHome}
	ch := make(chan Result)
	trackUIDs(r)
	go func() { r.Run(context.Background(), sol, jobs, ch); close(ch) }()
	var order []string
	for res := range ch {
		order = append(order, res.StarID)
		assertReason(t, res, ExitOK)
		lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
		if len(lines) != 2 || lines[0] != "id-"+strings.TrimPrefix(res.StarID, "star-") {
			t.Errorf("%s: stdout %q", res.StarID, res.Stdout)
			continue
		}
		if cpus := strings.TrimPrefix(lines[1], "Cpus_allowed_list:"); strings.ContainsAny(cpus, "-,") {
			t.Errorf("%s: allowed CPUs %q, want one", res.StarID, cpus)
		}
	}
	if len(order) != len(jobs) {
		t.Fatalf("got %d results, want %d", len(order), len(jobs))
	}
	// star-0 sleeps 2 s while the other worker runs the quick star-1: a stream in job order would put star-0 first.
	if order[0] == "star-0" {
		t.Errorf("completion order %v: the slow star-0 should not come first", order)
	}
	checkNoSurvivors(t, r)
}

// TestCancel cancels a run in the middle: the running stars are delivered as cancelled, the others not at all,
// and nothing of them survives.
func TestCancel(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, "sleep 30 & sleep 30")
	jobs := []Job{starJob("a", nil), starJob("b", nil), starJob("c", nil)}
	r := &Runner{Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	start := time.Now()
	got, err := runJobsErr(ctx, r, sol, jobs...)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	within(t, "cancel latency", time.Since(start), 900*time.Millisecond, 6*time.Second)
	if len(got) != 2 {
		t.Errorf("got %d results, want the 2 running stars", len(got))
	}
	for id, res := range got {
		if res.ExitReason != ExitCancelled {
			t.Errorf("%s: reason %s, want cancelled", id, res.ExitReason)
		}
	}
	checkNoSurvivors(t, r)
}

// TestHiddenRefusedWhenDegraded checks the refusal, and that AllowDegraded runs with limits but no namespaces.
func TestHiddenRefusedWhenDegraded(t *testing.T) {
	sol := shellSolution(t, `setsid sleep 100 & echo ran; grep NoNewPrivs /proc/self/status; cat "$1/star.json"; ls "$1/.." 2>&1 | grep -c denied`)
	degraded := Isolation{Missing: []string{"test: pretend the kernel refused namespaces"}}
	r := &Runner{Workers: 1, Hidden: true, isolation: &degraded}
	_, err := runJobsErr(context.Background(), r, sol, starJob("h", nil))
	if !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "--allow-degraded") {
		t.Fatalf("Run on a hidden set under degraded isolation: %v, want ErrDegraded naming --allow-degraded", err)
	}
	r.AllowDegraded = true
	got := runJobs(t, r, sol, starJob("h", map[string]string{"star.json": "{}\n"}))
	res := got["h"]
	assertReason(t, res, ExitOK)
	if res.Isolation != degraded.String() || !strings.HasPrefix(res.Isolation, "degraded: ") {
		t.Errorf("isolation %q, want %q", res.Isolation, degraded)
	}
	// The star is readable at its host path, and its siblings cannot be listed.
	if string(res.Stdout) != "ran\nNoNewPrivs:\t1\n{}\n1\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	checkNoSurvivors(t, r) // the daemon escaped the process group; the runner killed it by its user
}

func TestClassify(t *testing.T) {
	exited := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	signaled := func(sig syscall.Signal) syscall.WaitStatus { return syscall.WaitStatus(sig) }
	cases := []struct {
		ws     syscall.WaitStatus
		stderr string
		reason string
		code   int
	}{
		{exited(0), "", ExitOK, 0},
		{exited(0), "MemoryError", ExitOK, 0},
		{exited(2), "boom", ExitCode, 2},
		{exited(1), "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 373. GiB", ExitMemory, 1},
		{exited(2), "fatal error: runtime: out of memory", ExitMemory, 2},
		{signaled(syscall.SIGSEGV), "", ExitSignal, 139},
		{signaled(syscall.SIGKILL), "", ExitMemory, 137}, // the OOM killer; the runner's own kills are recorded before classify
	}
	for _, c := range cases {
		reason, code := classify(c.ws, c.stderr)
		if reason != c.reason || code != c.code {
			t.Errorf("classify(%v, %q) = %s/%d, want %s/%d", c.ws, c.stderr, reason, code, c.reason, c.code)
		}
	}
}

func TestTailBufferAndReadCapped(t *testing.T) {
	tb := tailBuffer{max: 4}
	for _, s := range []string{"ab", "cdefg", "h", "ijklmnopq"} {
		tb.Write([]byte(s))
	}
	if tb.String() != "nopq" {
		t.Errorf("tail %q, want nopq", tb.String())
	}
	overs := 0
	out := readCapped(strings.NewReader(strings.Repeat("x", 100)), 10, func() { overs++ })
	if len(out) != 10 || overs != 1 {
		t.Errorf("readCapped kept %d bytes, over called %d times; want 10 and 1", len(out), overs)
	}
	out = readCapped(strings.NewReader("exactly10!"), 10, func() { overs++ })
	if string(out) != "exactly10!" || overs != 1 {
		t.Errorf("readCapped at the limit: %q, over %d", out, overs)
	}
}

func TestResolveMask(t *testing.T) {
	dir := t.TempDir()
	link := dir + "/link"
	os.Symlink(dir, link)
	got, err := resolveMask([]string{link, dir, dir + "/missing", ""})
	if err != nil || len(got) != 1 || got[0] != dir {
		t.Errorf("resolveMask = %v, %v; want [%s]", got, err, dir)
	}
	if _, err := resolveMask([]string{"/"}); err == nil {
		t.Error("resolveMask accepted the filesystem root")
	}
}

// TestFreshUIDPerStar: every star runs as a user id no earlier star had, on the same worker, across workers and
// across runs, and RLIMIT_NPROC is the star's own cap.
func TestFreshUIDPerStar(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `echo "$(id -u) $(id -g) $(awk '/^Max processes/ {print $3}' /proc/self/limits)"`)
	var jobs []Job
	for i := range 5 {
		jobs = append(jobs, starJob(fmt.Sprintf("s%d", i), nil))
	}
	seen := map[string]string{}
	for run, workers := range []int{1, 2} {
		r := &Runner{Workers: workers, Limits: Limits{Processes: 40}}
		got := runJobs(t, r, sol, jobs...)
		recorded := usedUIDs(r)
		if len(recorded) != len(jobs) {
			t.Fatalf("run %d: %d user ids recorded, want one per star", run, len(recorded))
		}
		for id, res := range got {
			assertReason(t, res, ExitOK)
			f := strings.Fields(string(res.Stdout))
			if len(f) != 3 || f[0] != f[1] || f[2] != "40" {
				t.Errorf("run %d star %s: id and limit %q, want uid = gid and a process cap of 40", run, id, res.Stdout)
				continue
			}
			if prev, ok := seen[f[0]]; ok {
				t.Errorf("run %d star %s ran as %s, as %s did before", run, id, f[0], prev)
			}
			seen[f[0]] = fmt.Sprintf("run %d star %s", run, id)
			uid, _ := strconv.Atoi(f[0])
			if !slices.Contains(recorded, uid) || uid < testUIDBase || uid >= uidEnd {
				t.Errorf("star %s ran as %d: not a recorded id in [%d, %d)", id, uid, testUIDBase, uidEnd)
			}
			if !res.Protections.FreshUID {
				t.Errorf("star %s: Protections.FreshUID is false", id)
			}
		}
		checkNoSurvivors(t, r)
	}
	// A base among the host's users is refused.
	r := &Runner{Workers: 1, UIDBase: 1000}
	if _, err := runJobsErr(context.Background(), r, sol, jobs[0]); err == nil || !strings.Contains(err.Error(), "UIDBase 1000") {
		t.Errorf("Run with UIDBase 1000: %v, want a refusal", err)
	}
}

// TestProtectionsRecorded: each star records the protections it ran with, the isolation knows what the machine
// allows, and a hidden set is refused when one of them is missing.
func TestProtectionsRecorded(t *testing.T) {
	requireFull(t)
	iso := Probe()
	if want := (Protections{Namespaces: true, Seccomp: true, Cgroup: true, FreshUID: true}); iso.Protections() != want {
		t.Fatalf("Probe().Protections() = %+v, want %+v as root on Linux", iso.Protections(), want)
	}
	sol := shellSolution(t, "grep Seccomp: /proc/self/status")
	r := &Runner{Workers: 1, Hidden: true}
	res := runJobs(t, r, sol, starJob("h", nil))["h"]
	assertReason(t, res, ExitOK)
	if want := (Protections{Namespaces: true, Seccomp: true, Cgroup: true, FreshUID: true}); res.Protections != want {
		t.Errorf("hidden star: protections %+v, want %+v", res.Protections, want)
	}

	// Without seccomp: named in Missing, a hidden set refused, and the stars say so when allowed to run.
	noFilter := withoutSeccomp(t)
	if noFilter.Full() || !strings.Contains(noFilter.String(), "seccomp: ") {
		t.Fatalf("isolation without seccomp is %q", noFilter)
	}
	r = &Runner{Workers: 1, Hidden: true, isolation: noFilter}
	if _, err := runJobsErr(context.Background(), r, sol, starJob("h", nil)); !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "seccomp") {
		t.Fatalf("hidden set without seccomp: %v, want ErrDegraded naming seccomp", err)
	}
	r.AllowDegraded = true
	res = runJobs(t, r, sol, starJob("h", nil))["h"]
	assertReason(t, res, ExitOK)
	if res.Protections.Seccomp || string(res.Stdout) != "Seccomp:\t0\n" {
		t.Errorf("without the filter: protections %+v, stdout %q", res.Protections, res.Stdout)
	}
}

// TestHiddenStarNeedsFreshUID: when the uid counter fails during a run, a hidden set's star is not run without
// a fresh uid; with --allow-degraded it runs and says it had none.
func TestHiddenStarNeedsFreshUID(t *testing.T) {
	requireFull(t)
	broken := filepath.Join(t.TempDir(), "uid")
	if err := os.WriteFile(broken, []byte("not a number\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	saved := uids
	uids = &uidAllocator{path: broken}
	t.Cleanup(func() { uids = saved })
	sol := shellSolution(t, "id -u")
	r := &Runner{Workers: 1, Hidden: true}
	res := runJobs(t, r, sol, starJob("h", nil))["h"]
	assertReason(t, res, ExitStartFailed)
	if !strings.Contains(res.StderrTail, "no fresh user id") || !strings.Contains(res.StderrTail, "not a number") || len(res.Stdout) != 0 {
		t.Errorf("stderr %q stdout %q: want the star refused, saying why", res.StderrTail, res.Stdout)
	}
	r = &Runner{Workers: 1, Hidden: true, AllowDegraded: true}
	res = runJobs(t, r, sol, starJob("h", nil))["h"]
	assertReason(t, res, ExitOK)
	if res.Protections.FreshUID || strings.TrimSpace(string(res.Stdout)) == "0" {
		t.Errorf("degraded: protections %+v, uid %q: want no fresh uid, but still not root", res.Protections, res.Stdout)
	}
	checkNoSurvivors(t, r)
}
