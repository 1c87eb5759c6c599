package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Each attack is a small solution that must fail harmlessly while the run completes and records why.

const secret = "SECRET-ANSWER-4242"

// fakeDataDir makes a data directory readable by anybody, outside /tmp (which the sandbox replaces anyway), so
// that only the mask stands between the solution and the answers.
func fakeDataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "transitbench-test-data-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	os.MkdirAll(filepath.Join(dir, "sets", "A"), 0o755)
	for _, f := range []string{"answers.json", "sets/A/answers.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(`{"`+secret+`": 1}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readAttempts is a script that tries every route to the answers it knows of, given their absolute path in $1's
// "target" file, and prints whatever it reads.
const readAttempts = `T=$(cat "$1/target")
cat "$T/answers.json" "$T/sets/A/answers.json"
cat "/proc/1/root$T/answers.json" "/proc/self/root$T/answers.json" "/proc/1/cwd/../../..$T/answers.json"
cd "$1/../../../../../../../.." && cat ".$T/answers.json"
cd /tmp && ln -s "$T" link && cat link/answers.json
ls -la "$T" /proc/1/root/ "$1/.." 2>&1
grep -rs "SECRET-ANS""WER" "$T" /run /tmp /var/tmp
echo "entries=$(ls -A "$T" | wc -l)"
for p in /proc/[0-9]*; do cat "$p/root$T/answers.json"; done
exit 0`

func TestAttackReadAnswers(t *testing.T) {
	requireFull(t)
	data := fakeDataDir(t)
	sol := shellSolution(t, readAttempts)
	star := map[string]string{"target": data}

	// Control: outside the sandbox the same script does find the answers, so the test can fail.
	if out, _ := runOnHost(t, sol, star); !strings.Contains(out, secret) {
		t.Fatalf("control: the answers were not read on the host (stdout %q); the attack script is broken", truncate(out))
	}
	// The sandbox's root holds nothing of /var; the mask is a second lock.
	for _, lim := range []Limits{{}, {Mask: []string{data}}} {
		res := runOne(t, sol, lim, star)
		assertReason(t, res, ExitOK)
		mustNotContain(t, res, secret)
		if !strings.Contains(string(res.Stdout), "entries=0\n") {
			t.Errorf("ls of the data directory: %q", truncate(string(res.Stdout)))
		}
	}
}

// TestAttackMaskInsideTree puts the answers inside a tree that the sandbox shows (/usr): only the mask hides them.
func TestAttackMaskInsideTree(t *testing.T) {
	requireFull(t)
	data, err := os.MkdirTemp("/usr/local/share", "transitbench-test-data-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(data)
	os.Chmod(data, 0o755)
	if err := os.WriteFile(filepath.Join(data, "answers.json"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	sol := shellSolution(t, `cat "$(cat "$1/target")/answers.json"; echo "entries=$(ls -A "$(cat "$1/target")" | wc -l)"`)
	star := map[string]string{"target": data}
	// Control: unmasked, the sandbox shows /usr and the script reads the answers.
	res := runOne(t, sol, Limits{}, star)
	if !strings.Contains(string(res.Stdout), secret) {
		t.Fatalf("control: the unmasked answers under /usr were not read (stdout %q, stderr %q)", res.Stdout, res.StderrTail)
	}
	res = runOne(t, sol, Limits{Mask: []string{data}}, star)
	assertReason(t, res, ExitOK)
	mustNotContain(t, res, secret)
	if !strings.Contains(string(res.Stdout), "entries=0\n") {
		t.Errorf("ls of the masked directory: %q", res.Stdout)
	}
}

// TestAttackReadOtherStar puts the stars' directories outside /tmp and has the second star read the first by
// its absolute host path.
func TestAttackReadOtherStar(t *testing.T) {
	requireFull(t)
	work, err := os.MkdirTemp("/var/tmp", "transitbench-test-work-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	os.Chmod(work, 0o755) // the run directory inside stays private (0700) but is also masked
	firstDir := make(chan string, 1)
	first := Job{StarID: "first", Prepare: func(dir string) error {
		firstDir <- dir
		return os.WriteFile(filepath.Join(dir, "lightcurve.csv"), []byte(secret), 0o644)
	}}
	sol := shellSolution(t, `T=$(cat "$1/target" 2>/dev/null) || { sleep 1; exit 0; }
cat "$T/lightcurve.csv" "/proc/1/root$T/lightcurve.csv"; ls -la "$(dirname "$T")"; exit 0`)
	second := Job{StarID: "second", Prepare: func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "target"), []byte(<-firstDir), 0o644)
	}}
	r := &Runner{Workers: 2, WorkDir: work}
	got := runJobs(t, r, sol, first, second)
	assertReason(t, got["second"], ExitOK)
	mustNotContain(t, got["second"], secret)
	// "No such file", not "Permission denied": the run directory is covered by the mask.
	if !strings.Contains(got["second"].StderrTail, "No such file") || strings.Contains(got["second"].StderrTail, "denied") {
		t.Errorf("stderr %q: expected the star directory to be invisible", got["second"].StderrTail)
	}
	checkNoSurvivors(t, r)
}

func TestAttackNetwork(t *testing.T) {
	requireFull(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	sol := writeSolution(t, map[string]string{"solution.py": `import socket, subprocess, sys
port = int(open(sys.argv[1] + "/port").read())
for host in ("127.0.0.1", "localhost", "10.0.2.2", "8.8.8.8"):
    try:
        s = socket.create_connection((host, port), timeout=1)
        print("CONNECTED", host)
    except OSError as e:
        print("refused", host, e, file=sys.stderr)
print(subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True).returncode, file=sys.stderr)
`})
	res := runOne(t, sol, Limits{}, map[string]string{"port": strconv.Itoa(port)})
	assertReason(t, res, ExitOK)
	if strings.Contains(string(res.Stdout), "CONNECTED") {
		t.Errorf("the solution connected: %q", res.Stdout)
	}
	if !strings.Contains(res.StderrTail, "refused 127.0.0.1") {
		t.Errorf("stderr %q: the connection attempt did not run", res.StderrTail)
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener saw %d connections from the sandbox", n)
	}
}

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

func TestAttackDisk(t *testing.T) {
	requireFull(t)
	// A 10 GB file: the file-size cap stops it (SIGXFSZ is ignored by PID 1, so the write fails instead).
	res := runOne(t, shellSolution(t, `head -c 10G /dev/zero > /tmp/big; echo "status $?"; ls -l /tmp/big`),
		Limits{FileBytes: 8 << 20}, nil)
	if !strings.Contains(res.StderrTail, "File size limit exceeded") && !strings.Contains(res.StderrTail, "File too large") {
		t.Errorf("stderr %q: expected the file-size cap", truncate(res.StderrTail))
	}
	if !strings.Contains(string(res.Stdout), " 8388608 ") {
		t.Errorf("stdout %q: the file should stop at 8 MiB", res.Stdout)
	}
	// Many files under the size cap fill the tmpfs instead.
	res = runOne(t, shellSolution(t, `for i in 1 2 3 4 5 6; do head -c 4M /dev/zero > /tmp/f$i || exit 9; done`),
		Limits{FileBytes: 8 << 20, TmpBytes: 16 << 20}, nil)
	if res.ExitCode != 9 || !strings.Contains(res.StderrTail, "No space left") {
		t.Errorf("exit %d, stderr %q: expected the tmpfs cap", res.ExitCode, res.StderrTail)
	}
}

func TestAttackWriteReadOnly(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `for f in "$1/new" "$1/lightcurve.csv" ./new ./run /run/new /new /var/tmp/new /dev/shm/../new "$HOME/../new"; do
  (echo x > "$f") 2>/dev/null && echo "WROTE $f"
done
touch /tmp/ok && echo tmp-writable`)
	res := runOne(t, sol, Limits{}, map[string]string{"lightcurve.csv": "time,flux\n"})
	assertReason(t, res, ExitOK)
	if string(res.Stdout) != "tmp-writable\n" {
		t.Errorf("stdout %q: a read-only path was written, or /tmp was not writable", res.Stdout)
	}
	if b, err := os.ReadFile(filepath.Join(sol.Dir, "run")); err != nil || !strings.Contains(string(b), "WROTE") {
		t.Errorf("the solution source changed: %q, %v", b, err)
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
	_ = fmt.Sprint()
}

// TestAttackHostUnixSocket listens on unix sockets of the host outside /run and /tmp's view: in a world-writable
// directory of /var/tmp, in the host's /dev/shm and in the test's temporary directory. A read-only mount would
// not stop connect(2); only their absence from the sandbox's tree does.
func TestAttackHostUnixSocket(t *testing.T) {
	requireFull(t)
	var dirs []string
	for _, parent := range []string{"/var/tmp", "/dev/shm", t.TempDir()} {
		d, err := os.MkdirTemp(parent, "transitbench-test-sock-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(d)
		os.Chmod(d, 0o777)
		dirs = append(dirs, d)
	}
	os.Chmod(filepath.Dir(dirs[2]), 0o755) // the test's temporary directory: open to the sandbox user
	os.Chmod(filepath.Dir(filepath.Dir(dirs[2])), 0o755)
	var accepted atomic.Int32
	var paths []string
	for _, d := range dirs {
		p := filepath.Join(d, "s.sock")
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		os.Chmod(p, 0o777)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				c.Close()
			}
		}()
		paths = append(paths, p)
	}
	sol := writeSolution(t, map[string]string{"solution.py": `import socket, sys
for p in open(sys.argv[1] + "/paths").read().split():
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p)
        print("CONNECTED", p)
    except OSError as e:
        print("refused", p, e, file=sys.stderr)
`})
	star := map[string]string{"paths": strings.Join(paths, "\n")}

	// Control: outside the sandbox the same client reaches every listener.
	out, errOut := runOnHost(t, sol, star)
	if n := strings.Count(out, "CONNECTED"); n != len(paths) {
		t.Fatalf("control: %d of %d connections on the host (stdout %q, stderr %q)", n, len(paths), out, errOut)
	}
	waitFor(t, func() bool { return accepted.Load() == int32(len(paths)) })
	accepted.Store(0)

	res := runOne(t, sol, Limits{}, star)
	assertReason(t, res, ExitOK)
	if strings.Contains(string(res.Stdout), "CONNECTED") {
		t.Errorf("the solution connected to a host socket: %q", res.Stdout)
	}
	for _, p := range paths {
		if !strings.Contains(res.StderrTail, "refused "+p+" [Errno 2]") {
			t.Errorf("stderr %q: want ENOENT for %s", res.StderrTail, p)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listeners saw %d connections from the sandbox", n)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not met within 5 s")
}

// TestSandboxMountTable reads the sandbox's mount table: nothing in it may name the home, the data directory,
// the workspace, the solution's directory or the run directory, and its mount points are only those of the
// sandbox's own tree.
func TestSandboxMountTable(t *testing.T) {
	requireFull(t)
	work, err := os.MkdirTemp("/var/tmp", "transitbench-test-work-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	os.Chmod(work, 0o755)
	sol := shellSolution(t, `cat /proc/self/mountinfo`)
	r := &Runner{Workers: 1, WorkDir: work}
	res := runJobs(t, r, sol, starJob("m", map[string]string{"star.json": "{}"}))["m"]
	assertReason(t, res, ExitOK)
	table := string(res.Stdout)
	t.Logf("the sandbox's mount table:\n%s", table)
	if strings.Count(table, "\n") < 5 {
		t.Fatalf("mount table %q: too short to be real", table)
	}
	forbidden := []string{work, "transitbench-run-", sol.Dir, filepath.Dir(sol.Dir)}
	if home, err := os.UserHomeDir(); err == nil {
		forbidden = append(forbidden, home)
	}
	forbidden = append(forbidden, testHome) // the run's data directory (runJobs sets Runner.Home)
	allowed := map[string]bool{"/": true, "/usr": true, "/etc/alternatives": true, "/dev": true, "/dev/shm": true,
		"/proc": true, "/tmp": true, StarMount: true, SolutionMount: true}
	for _, d := range []string{"null", "zero", "full", "random", "urandom"} {
		allowed["/dev/"+d] = true
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		for _, f := range forbidden {
			if strings.Contains(line, f) {
				t.Errorf("the mount table names the host path %s: %q", f, line)
			}
		}
		f := strings.Fields(line)
		if len(f) < 10 {
			t.Errorf("mount table line %q", line)
			continue
		}
		mp := f[4]
		if !allowed[mp] && !strings.HasPrefix(mp, "/usr/") && !strings.HasPrefix(mp, "/proc/") {
			t.Errorf("unexpected mount point %s: %q", mp, line)
		}
		if mp == "/" && (f[3] != "/" || !strings.Contains(line, " - tmpfs ")) {
			t.Errorf("the root is not a fresh tmpfs: %q", line)
		}
		if mp == StarMount && f[3] != "/" {
			t.Errorf("the star is bound from the host (%s), not copied: %q", f[3], line)
		}
	}
}

// TestSandboxHostPathsHidden looks for the host's private places: none is in the sandbox's tree.
func TestSandboxHostPathsHidden(t *testing.T) {
	requireFull(t)
	for _, p := range []string{"/root", "/etc/shadow", "/var"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("control: the host has no %s (%v), so the test would prove nothing", p, err)
		}
	}
	sol := shellSolution(t, `for p in /home /root /var /var/tmp /srv /opt /mnt /boot /work /sys /etc/shadow /etc/ssh /etc/hostname /run/systemd; do
  [ -e "$p" ] && echo "VISIBLE $p"
  cat "$p" >/dev/null 2>&1 && echo "READ $p"
done
echo "root: $(ls -A / | tr '\n' ' ')"
echo "etc: $(ls -A /etc | tr '\n' ' ')"`)
	res := runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	out := string(res.Stdout)
	if strings.Contains(out, "VISIBLE") || strings.Contains(out, "READ") {
		t.Errorf("host paths are visible in the sandbox:\n%s", out)
	}
	var want []string
	for _, p := range []string{"/dev", "/etc", "/proc", "/run", "/tmp", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"} {
		if _, err := os.Lstat(p); err == nil {
			want = append(want, p[1:])
		}
	}
	sort.Strings(want)
	if line := "root: " + strings.Join(want, " ") + " \n"; !strings.Contains(out, line) {
		t.Errorf("stdout %q, want the line %q", out, line)
	}
	if strings.Contains(out, "shadow") || !strings.Contains(out, "passwd") {
		t.Errorf("/etc of the sandbox: %q", out)
	}
}

// TestSandboxToolsRun runs the everyday tools in the minimal tree: a shell pipeline, awk (through
// /etc/alternatives), python3 with numpy, the user's name from the sandbox's own /etc/passwd, and /dev.
func TestSandboxToolsRun(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `printf 'b\na\nc\n' | sort | tr a-z A-Z | awk '{printf "%s", $1}'; echo
/usr/bin/python3 -c 'import numpy; print(int(numpy.arange(5).sum()))'
id -un
echo x > /dev/null && head -c 4 /dev/urandom | wc -c
echo "dev: $(ls /dev | tr '\n' ' ')"`)
	res := runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	want := "ABC\n10\nsandbox\n4\ndev: fd full null random shm stderr stdin stdout urandom zero \n"
	if string(res.Stdout) != want {
		t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.StderrTail)
	}
}

// withoutSeccomp is the machine's isolation minus the system-call filter: the controls of the seccomp attacks
// run under it to show that each attack works where the filter is missing.
func withoutSeccomp(t *testing.T) *Isolation {
	t.Helper()
	iso := Probe()
	if !iso.seccomp {
		t.Fatalf("isolation %s: the seccomp attacks need the filter", iso)
	}
	iso.seccomp = false
	iso.Missing = append(slices.Clone(iso.Missing), "seccomp: switched off for a control")
	return &iso
}

// namespaceEscape tries to become root of a new user namespace (unshare, then clone with the flags) and mount a
// tmpfs there; it prints what worked.
const namespaceEscape = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x20000, 17
uid, gid = os.getuid(), os.getgid()
if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0:
    print("UNSHARED")
    open("/proc/self/setgroups", "w").write("deny")
    open("/proc/self/uid_map", "w").write("0 %d 1" % uid)
    open("/proc/self/gid_map", "w").write("0 %d 1" % gid)
    if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
        print("MOUNTED", os.getuid())
else:
    print("unshare refused:", os.strerror(ctypes.get_errno()), file=sys.stderr)
libc.syscall.restype = ctypes.c_long
pid = libc.syscall(56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)  # clone on x86-64
if pid == 0:
    os._exit(0)
if pid > 0:
    os.waitpid(pid, 0)
    print("CLONED")
else:
    print("clone refused:", os.strerror(ctypes.get_errno()), file=sys.stderr)
`

// TestAttackUserNamespace: a star may not become root of a new user namespace (by unshare, clone or the unshare
// command) and mount there.
func TestAttackUserNamespace(t *testing.T) {
	requireFull(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("the attack script uses the x86-64 number of clone; this is %s", runtime.GOARCH)
	}
	sol := writeSolution(t, map[string]string{"solution.py": namespaceEscape})
	shell := shellSolution(t, `unshare -Urm sh -c 'mount -t tmpfs x /tmp && echo MOUNTED'; exit 0`)
	_, unshareErr := os.Stat("/usr/bin/unshare")

	// Control: without the filter the same script gets a user namespace and mounts in it.
	r := &Runner{Workers: 1, isolation: withoutSeccomp(t)}
	res := runJobs(t, r, sol, starJob("control", nil))["control"]
	for _, want := range []string{"UNSHARED\n", "MOUNTED 0\n", "CLONED\n"} {
		if !strings.Contains(string(res.Stdout), want) {
			t.Fatalf("control: stdout %q lacks %q (stderr %q): the attack does not work even without the filter",
				res.Stdout, want, res.StderrTail)
		}
	}
	if unshareErr == nil {
		res = runJobs(t, r, shell, starJob("control-cmd", nil))["control-cmd"]
		if string(res.Stdout) != "MOUNTED\n" {
			t.Fatalf("control: unshare -Urm printed %q (stderr %q)", res.Stdout, res.StderrTail)
		}
	}

	res = runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	if len(res.Stdout) != 0 {
		t.Errorf("under the filter the solution got: %q", res.Stdout)
	}
	for _, want := range []string{"unshare refused: Operation not permitted", "clone refused: Operation not permitted"} {
		if !strings.Contains(res.StderrTail, want) {
			t.Errorf("stderr %q lacks %q", res.StderrTail, want)
		}
	}
	if unshareErr == nil {
		res = runOne(t, shell, Limits{}, nil)
		if len(res.Stdout) != 0 || !strings.Contains(res.StderrTail, "Operation not permitted") {
			t.Errorf("unshare -Urm under the filter: stdout %q, stderr %q", res.Stdout, res.StderrTail)
		}
	}
}

// kernelCalls makes refused system calls with arguments for which the kernel itself would answer otherwise
// (a missing process, a null pointer, a bad descriptor), and prints "name errno" for each ("name 0" when the
// call succeeded). It also makes an i386 system call (getpid by int 0x80) from machine code in memory.
const kernelCalls = `import ctypes, errno, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(nr, *[ctypes.c_long(a) for a in args])
    print(name, ctypes.get_errno() if r < 0 else 0, flush=True)
    if name == "userfaultfd" and r >= 0:
        os.close(r)
# x86-64 numbers
call("ptrace", 101, 16, 999999, 0, 0)                 # PTRACE_ATTACH to no process: ESRCH
call("process_vm_readv", 310, 999999, 0, 1, 0, 1, 0)  # local iovec NULL: EFAULT
call("perf_event_open", 298, 0, 0, -1, -1, 0)         # attr NULL: EFAULT
call("userfaultfd", 323, 1)                           # UFFD_USER_MODE_ONLY: a descriptor
call("bpf", 321, 0, 0, 0)                             # BPF_MAP_CREATE with no attr
call("kexec_load", 246, 0, 0, 0, 0)
call("kexec_file_load", 320, -1, -1, 0, 0, 0)
call("init_module", 175, 0, 0, 0)
call("finit_module", 313, -1, 0, 0)
call("delete_module", 176, 0, 0)
call("setns", 308, -1, 0)                             # bad descriptor: EBADF
call("io_uring_setup", 425, 1, 0)                     # params NULL: EFAULT
call("name_to_handle_at", 303, -100, 0, 0, 0, 0)      # path NULL: EFAULT
call("keyctl", 250, 0, -4, 0, 0, 0)                   # KEYCTL_GET_KEYRING_ID of the user keyring
call("clone3", 435, 0, 0)                             # no args: EINVAL
call("adjtimex", 159, 0)                              # buf NULL: EFAULT
call("syslog", 103, 10, 0, 0)                         # SYSLOG_ACTION_SIZE_BUFFER
# i386: mov eax, 20 (getpid); int 0x80; ret
code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
code.write(b"\xb8\x14\x00\x00\x00\xcd\x80\xc3")
f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(code)))
r = f()
print("i386_getpid", -r if r < 0 else 0, flush=True)
`

// TestAttackKernelCalls: the system calls that reach into other processes or the kernel are refused by the
// filter, and so is the i386 system-call ABI.
func TestAttackKernelCalls(t *testing.T) {
	requireFull(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("the attack script uses x86-64 system call numbers and machine code; this is %s", runtime.GOARCH)
	}
	sol := writeSolution(t, map[string]string{"solution.py": kernelCalls})
	parse := func(res Result) map[string]int {
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
	r := &Runner{Workers: 1, isolation: withoutSeccomp(t)}
	control := parse(runJobs(t, r, sol, starJob("control", nil))["control"])
	filtered := parse(runOne(t, sol, Limits{}, nil))
	eperm, enosys := int(unix.EPERM), int(unix.ENOSYS)
	// Control: the calls whose arguments the kernel rejects by itself, or which work, answer otherwise without
	// the filter, so EPERM under it comes from the filter.
	for name, want := range map[string]int{"ptrace": int(unix.ESRCH), "process_vm_readv": int(unix.EFAULT),
		"perf_event_open": int(unix.EFAULT), "userfaultfd": 0, "setns": int(unix.EBADF),
		"io_uring_setup": int(unix.EFAULT), "name_to_handle_at": int(unix.EFAULT), "keyctl": 0,
		"clone3": int(unix.EINVAL), "adjtimex": int(unix.EFAULT), "i386_getpid": 0} {
		if got, ok := control[name]; !ok || got != want {
			t.Errorf("control: %s answered %d (present %v), want %d without the filter", name, got, ok, want)
		}
	}
	for _, name := range []string{"ptrace", "process_vm_readv", "perf_event_open", "userfaultfd", "bpf", "kexec_load",
		"kexec_file_load", "init_module", "finit_module", "delete_module", "setns", "io_uring_setup",
		"name_to_handle_at", "keyctl", "adjtimex", "syslog"} {
		if got, ok := filtered[name]; !ok || got != eperm {
			t.Errorf("%s answered %d (present %v) under the filter, want EPERM", name, got, ok)
		}
	}
	if got := filtered["clone3"]; got != enosys {
		t.Errorf("clone3 answered %d under the filter, want ENOSYS", got)
	}
	if got, ok := filtered["i386_getpid"]; !ok || got != enosys {
		t.Errorf("the i386 getpid answered %d (present %v) under the filter, want ENOSYS", got, ok)
	}
}

// TestAttackInheritedDescriptors: descriptors the runner's process holds without close-on-exec (left open by
// whatever started it) do not reach the solution: it reads and writes nothing through descriptors 3 to 64 or
// their /proc/self/fd links, and cannot fchdir through them.
func TestAttackInheritedDescriptors(t *testing.T) {
	requireFull(t)
	dir := fakeDataDir(t) // masked below: the descriptors are the only way in
	secretPath, logPath := filepath.Join(dir, "answers.json"), filepath.Join(dir, "runner.log")
	if err := os.WriteFile(logPath, []byte("log start\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var fds []int
	for _, f := range []struct {
		path string
		mode int
	}{{secretPath, syscall.O_RDONLY}, {logPath, syscall.O_WRONLY | syscall.O_APPEND}, {dir, syscall.O_RDONLY | syscall.O_DIRECTORY}} {
		fd, err := syscall.Open(f.path, f.mode, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil { // inheritable, as a careless parent leaves it
			t.Fatal(err)
		}
		fds = append(fds, fd)
	}
	if fds[2] > 64 {
		t.Fatalf("descriptor %d is past the 64 the attack tries", fds[2])
	}

	// Control: a child that Go starts inherits them, so the sandbox child does too until it closes them.
	out, err := exec.Command("/bin/sh", "-c", fmt.Sprintf(`cat /proc/self/fd/%d; echo FROM-CHILD >&%d; ls /proc/self/fd/%d/`,
		fds[0], fds[1], fds[2])).CombinedOutput()
	if b, _ := os.ReadFile(logPath); err != nil || !strings.Contains(string(out), secret) || !strings.Contains(string(b), "FROM-CHILD") {
		t.Fatalf("control: a child of the test did not inherit the descriptors (%v): %q; log %q", err, out, b)
	}
	if err := os.WriteFile(logPath, []byte("log start\n"), 0o666); err != nil {
		t.Fatal(err)
	}

	sol := writeSolution(t, map[string]string{"solution.py": `import os
print("fds=" + ",".join(sorted(os.listdir("/proc/self/fd"), key=int)), flush=True)
for fd in range(3, 65):
    try:
        print("READ", fd, os.pread(fd, 200, 0), flush=True)
    except OSError:
        pass
    try:
        with open("/proc/self/fd/%d" % fd, "rb") as f:
            print("PROC", fd, f.read(200), flush=True)
    except OSError:
        pass
    try:
        os.write(fd, b"WRITTEN-BY-STAR\n")
        print("WROTE", fd, flush=True)
    except OSError:
        pass
    try:
        os.fchdir(fd)
        print("FCHDIR", fd, os.listdir("."), flush=True)
    except OSError:
        pass
print("done")
`})
	res := runOne(t, sol, Limits{Mask: []string{dir}}, nil)
	assertReason(t, res, ExitOK)
	mustNotContain(t, res, secret)
	out = res.Stdout
	// listdir's own descriptor is the one above 2.
	if !strings.HasPrefix(string(out), "fds=0,1,2,3\n") || !strings.HasSuffix(string(out), "done\n") {
		t.Errorf("stdout %q: want only 0, 1, 2 (and listdir's own) open, and the attack run to its end", truncate(string(out)))
	}
	for _, bad := range []string{"READ", "PROC", "WROTE", "FCHDIR"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("the solution got through a descriptor: %q", truncate(string(out)))
			break
		}
	}
	if b, err := os.ReadFile(logPath); err != nil || string(b) != "log start\n" {
		t.Errorf("the runner's log changed: %q, %v", b, err)
	}
}

// hardenedStatus is the line of /proc/self/status that shows the filter in force: mode 2, one filter.
const hardenedStatus = "Seccomp:\t2\n"

// TestHardenedSolutionsRun: under the filter, with an inherited-descriptor sweep and a fresh user, the forms of
// solution still work: Python with numpy (threads, a subprocess), a static Go binary (threads, os/exec), and a
// shell script with pipes, subshells and background jobs.
func TestHardenedSolutionsRun(t *testing.T) {
	requireFull(t)
	sols := map[string]struct {
		files map[string]string
		want  string
	}{
		"numpy": {map[string]string{"solution.py": `import subprocess, threading
import numpy
u, s, vt = numpy.linalg.svd(numpy.random.rand(50, 50))
out = []
th = threading.Thread(target=lambda: out.append(int(numpy.allclose((u * s) @ vt, (u * s) @ vt))))
th.start(); th.join()
print(len(s), out[0], subprocess.run(["/bin/echo", "sub"], capture_output=True, text=True).stdout.strip())
print([l for l in open("/proc/self/status") if l.startswith("Seccomp:")][0], end="")
`}, "50 1 sub\n" + hardenedStatus},
		"go": {map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	sums := make([]int, 8)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // a thread of its own: clone with the thread flags
			for j := range 100000 {
				sums[i] += j % 7
			}
		}()
	}
	wg.Wait()
	out, err := exec.Command("/bin/sh", "-c", "echo child").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Seccomp:") {
			fmt.Printf("%d %s%s\n", sums[3], out, l)
		}
	}
}
`}, "299995 child\n" + hardenedStatus}, // Σ j mod 7 over 0…99999: 14285 cycles of 21, then 0+1+2+3+4
		"shell": {map[string]string{"run": `#!/bin/sh
x=$(echo abc | tr a-c x-z)
(echo "sub $x") | cat
sh -c 'echo child' &
wait
grep Seccomp: /proc/self/status
`}, "sub xyz\nchild\n" + hardenedStatus},
	}
	for name, c := range sols {
		t.Run(name, func(t *testing.T) {
			res := runOne(t, writeSolution(t, c.files), Limits{}, map[string]string{"star.json": "{}"})
			assertReason(t, res, ExitOK)
			if string(res.Stdout) != c.want {
				t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, c.want, truncate(res.StderrTail))
			}
			want := Protections{Namespaces: true, Seccomp: true, Cgroup: true, FreshUID: true}
			if res.Protections != want {
				t.Errorf("protections %+v, want %+v", res.Protections, want)
			}
		})
	}
}
