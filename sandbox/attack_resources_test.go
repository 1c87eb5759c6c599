package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Each attack is a small solution that must fail harmlessly while the run completes and records why.
// Attacks on the machine's resources: processes, memory, output, time, daemons and signals.

func TestAttackForkBomb(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `f() { f | f & }; f; sleep 60`)
	start := time.Now()
	res := runOne(t, sol, Limits{WallTime: 2 * time.Second, Processes: 32}, nil)
	// It ends by the timeout, or earlier when the shell itself cannot fork the final sleep.
	within(t, "run time", time.Since(start), 0, 15*time.Second)
	assertReason(t, res, ExitTimeout, ExitCode)
	// dash reports the refused fork; seeing it proves RLIMIT_NPROC, not the timeout, bounded the bomb.
	if !strings.Contains(res.StderrTail, "fork") {
		t.Errorf("stderr %q: expected failed forks", truncate(res.StderrTail))
	}
}

func TestAttackMemory(t *testing.T) {
	requireFull(t)
	lim := Limits{MemoryBytes: 512 << 20}
	// 50 GB at once: refused by the address-space cap.
	res := runOne(t, writeSolution(t, map[string]string{"solution.py": "x = bytearray(50 * 10**9)\nprint('allocated')\n"}), lim, nil)
	assertReason(t, res, ExitMemory)
	// Growing and touching memory until refused: the peak stays under the cap.
	res = runOne(t, writeSolution(t, map[string]string{"solution.py": `chunks = []
while True:
    chunks.append(bytearray(32 << 20))
    print(len(chunks), flush=True)
`}), lim, nil)
	assertReason(t, res, ExitMemory)
	if res.PeakRSSBytes > lim.MemoryBytes || res.PeakRSSBytes < 256<<20 {
		t.Errorf("peak RSS %d MiB, want between 256 MiB and the 512 MiB cap", res.PeakRSSBytes>>20)
	}
}

// TestAttackMemoryTree spreads memory over many processes, each under the per-process cap: the star's cgroup
// stops it at the cap or, without one, the watchdog on the tree's resident memory.
func TestAttackMemoryTree(t *testing.T) {
	requireFull(t)
	sol := writeSolution(t, map[string]string{"solution.py": `import os, time
for i in range(8):
    if os.fork() == 0:
        x = bytearray(200 << 20)  # bytearray zero-fills: 200 MiB resident
        print("child", i, "allocated", flush=True)
        time.sleep(30)
        os._exit(0)
time.sleep(30)
`})
	noCgroup := Probe()
	noCgroup.cgroup = false
	noCgroup.Missing = append([]string{"test: no cgroup"}, noCgroup.Missing...)
	for _, iso := range []Isolation{Probe(), noCgroup} {
		start := time.Now()
		r := &Runner{Workers: 1, isolation: &iso, Limits: Limits{MemoryBytes: 512 << 20, WallTime: 20 * time.Second}}
		res := runJobs(t, r, sol, starJob("m", nil))["m"]
		checkNoSurvivors(t, r)
		assertReason(t, res, ExitMemory)
		within(t, "run time", time.Since(start), 0, 10*time.Second)
		if res.Protections.Cgroup != iso.cgroup {
			t.Errorf("Protections.Cgroup %v, want %v", res.Protections.Cgroup, iso.cgroup)
		}
		if res.Protections.Cgroup {
			// The cgroup's limit holds the whole tree at the cap: two children fit, the third cannot.
			if res.PeakRSSBytes > 512<<20 || res.PeakRSSBytes < 400<<20 {
				t.Errorf("peak memory of the star's cgroup %d MiB, want up to the 512 MiB cap", res.PeakRSSBytes>>20)
			}
			continue
		}
		// Killed once over 512 MiB; a watchdog slowed by a busy machine may see more children first, but never
		// more than all 8 × 200 MiB plus nine interpreters (about 12 MiB each).
		if res.PeakRSSBytes <= 512<<20 || res.PeakRSSBytes > 1800<<20 {
			t.Errorf("without a cgroup: peak tree RSS %d MiB, want just over the 512 MiB cap", res.PeakRSSBytes>>20)
		}
	}
}

func TestAttackOutputFlood(t *testing.T) {
	requireFull(t)
	start := time.Now()
	res := runOne(t, shellSolution(t, `head -c 100000000 /dev/zero | tr '\0' 'a'; echo finished >&2`), Limits{}, nil)
	assertReason(t, res, ExitOutputLimit)
	if len(res.Stdout) != DefaultStdoutBytes {
		t.Errorf("kept %d bytes of stdout, want %d", len(res.Stdout), DefaultStdoutBytes)
	}
	if strings.Contains(res.StderrTail, "finished") {
		t.Error("the solution was not killed early: it printed all 100 MB")
	}
	within(t, "run time", time.Since(start), 0, 5*time.Second)
}

func TestAttackSleepForever(t *testing.T) {
	requireFull(t)
	start := time.Now()
	res := runOne(t, shellSolution(t, `sleep 1000 & setsid sleep 1000 & while :; do :; done`), Limits{WallTime: 1500 * time.Millisecond}, nil)
	assertReason(t, res, ExitTimeout)
	// The limit counts from the start of the sandbox's setup, the runtime from the solution's exec.
	within(t, "runtime", res.Runtime, time.Second, 3*time.Second)
	within(t, "run time", time.Since(start), 1400*time.Millisecond, 5*time.Second)
}

// TestAttackDaemon leaves a daemonised child behind; the solution itself exits at once and successfully.
func TestAttackDaemon(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `setsid sh -c 'trap "" HUP TERM; while :; do echo alive >&2; sleep 0.05; done' </dev/null >/dev/null &
D=$!; sleep 0.3; kill -0 $D && echo daemon-running`)
	r := &Runner{Workers: 1, UIDBase: testUIDBase}
	res := runJobs(t, r, sol, starJob("d", nil))["d"]
	assertReason(t, res, ExitOK)
	if string(res.Stdout) != "daemon-running\n" || !strings.Contains(res.StderrTail, "alive") {
		t.Fatalf("the daemon did not start: stdout %q stderr %q", res.Stdout, res.StderrTail)
	}
	checkNoSurvivors(t, r)
	time.Sleep(200 * time.Millisecond)
	checkNoSurvivors(t, r)
}

func TestAttackSignals(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `kill -9 "$PPID"; kill -9 1; kill -9 -1; kill -9 "$(cat "$1/runner")"; kill -9 0
echo still-here; echo "ppid=$PPID pid=$$"`)
	res := runOne(t, sol, Limits{}, map[string]string{"runner": strconv.Itoa(os.Getpid())})
	if !strings.Contains(string(res.Stdout), "still-here") || !strings.Contains(string(res.Stdout), "pid=1") {
		t.Errorf("stdout %q stderr %q: the solution should run on as PID 1", res.Stdout, res.StderrTail)
	}
	// The runner is alive (this test runs in it) and still runs stars.
	res = runOne(t, shellSolution(t, "echo next"), Limits{}, nil)
	assertReason(t, res, ExitOK)
	if string(res.Stdout) != "next\n" {
		t.Errorf("the next star printed %q", res.Stdout)
	}
	if err := syscallKill0(os.Getppid()); err != nil {
		t.Errorf("the test's parent process is gone: %v", err)
	}
}
