package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
)

// runCgroupGlob is the pattern of this process's star cgroups in one controller (v1) or in the unified
// hierarchy (v2), and the names of the files holding the memory cap, the process cap and the CPUs.
func runCgroupGlob(t *testing.T) (globs map[string]string, files map[string]string) {
	t.Helper()
	pat := fmt.Sprintf("%s/%d-*/star-*", cgroupBase, os.Getpid())
	if m := v2Mount(); m != "" {
		b, _ := os.ReadFile("/proc/self/cgroup")
		own := "/"
		for _, line := range strings.Split(string(b), "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				own = p
			}
		}
		globs = map[string]string{"unified": filepath.Join(m, own, pat)}
		if g, _ := filepath.Glob(globs["unified"]); len(g) == 0 {
			globs["unified"] = filepath.Join(m, pat)
		}
		return globs, map[string]string{"memory": "unified/memory.max", "swap": "unified/memory.swap.max",
			"pids": "unified/pids.max", "cpus": "unified/cpuset.cpus"}
	}
	base := cgroup1.NestedPath(cgroupBase)
	globs = map[string]string{}
	for _, n := range v1Controllers {
		if p, err := base(n); err == nil && v1Mounted(n) {
			globs[string(n)] = filepath.Join(cgroupMount, string(n), p, fmt.Sprintf("%d-*/star-*", os.Getpid()))
		}
	}
	return globs, map[string]string{"memory": "memory/memory.limit_in_bytes", "swap": "memory/memory.memsw.limit_in_bytes",
		"tcp":        "memory/memory.kmem.tcp.limit_in_bytes",
		"swappiness": "memory/memory.swappiness", "pids": "pids/pids.max", "cpus": "cpuset/cpuset.cpus"}
}

// TestCgroupPerStar watches the star's cgroup from outside while the star runs: its caps are the star's limits,
// the solution runs inside it, and it is gone in every controller once the star has ended.
func TestCgroupPerStar(t *testing.T) {
	requireFull(t)
	globs, files := runCgroupGlob(t)
	sol := shellSolution(t, `cat /proc/self/cgroup; sleep 1`)
	lim := Limits{MemoryBytes: 300 << 20, Processes: 40}
	seen := map[string]string{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			// The star's cgroup is the one the solution's sleep is in (the next star's, made while a star runs,
			// holds that star's child, waiting at its gate).
			dirs := map[string]string{}
			for c, g := range globs {
				m, _ := filepath.Glob(g)
				for _, d := range m {
					for _, pid := range readPIDs(filepath.Join(d, "cgroup.procs")) {
						if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); string(comm) == "sleep\n" {
							dirs[c] = d
						}
					}
				}
			}
			if len(dirs) < len(globs) {
				continue
			}
			for what, f := range files {
				c, name, _ := strings.Cut(f, "/")
				if b, err := os.ReadFile(filepath.Join(dirs[c], name)); err == nil {
					seen[what] = strings.TrimSpace(string(b))
				}
			}
			for c, d := range dirs {
				seen["dir "+c] = d
			}
			return
		}
	}()
	r := &Runner{Workers: 1, Limits: lim}
	res := runJobs(t, r, sol, starJob("c", nil))["c"]
	close(stop)
	wg.Wait()
	assertReason(t, res, ExitOK)
	if !res.Protections.Cgroup {
		t.Errorf("Protections.Cgroup is false under full isolation")
	}
	want := map[string]string{"memory": strconv.Itoa(300 << 20), "pids": "40", "swappiness": "0", "swap": strconv.Itoa(300 << 20),
		"tcp": strconv.Itoa(tcpBufferBytes)}
	if _, v2 := globs["unified"]; v2 {
		want["swap"] = "0"
	}
	for what, w := range want {
		if _, ok := files[what]; ok && seen[what] != w {
			if (what == "swap" || what == "tcp") && seen[what] == "" {
				continue // no swap accounting, or no separate TCP counter, in this kernel
			}
			t.Errorf("%s of the star's cgroup = %q, want %q (seen %v)", what, seen[what], w, seen)
		}
	}
	if cpus := allowedCPUs(); len(cpus) > 0 && seen["cpus"] != strconv.Itoa(cpus[0]) {
		t.Errorf("cpuset.cpus of the star's cgroup = %q, want the worker's CPU %d", seen["cpus"], cpus[0])
	}
	// The solution was inside the cgroup the runner made: /proc/self/cgroup names it.
	for c, d := range seen {
		c, ok := strings.CutPrefix(c, "dir ")
		if !ok {
			continue
		}
		rel := d[strings.Index(d, cgroupBase+"/"):]
		if !strings.Contains(string(res.Stdout), rel) {
			t.Errorf("the solution's /proc/self/cgroup %q does not name its %s cgroup %s", res.Stdout, c, rel)
		}
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("the star's %s cgroup %s is still there after the star (%v)", c, d, err)
		}
		if run := filepath.Dir(d); !os.IsNotExist(statErr(run)) {
			t.Errorf("the run's %s cgroup %s is still there after the run", c, run)
		}
	}
	if len(seen) == 0 {
		t.Fatalf("no star cgroup was found under %v while the star ran", globs)
	}
}

func statErr(p string) error { _, err := os.Stat(p); return err }

// TestCgroupPidsMax forks until the kernel refuses, as root (which RLIMIT_NPROC does not bind), inside a star's
// cgroup: pids.max alone stops it at the cap.
func TestCgroupPidsMax(t *testing.T) {
	requireFull(t)
	rc, err := newRunCgroup()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.remove()
	cg, err := rc.star(Limits{Processes: 24}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	g := &starGroup{cg: cg}
	defer g.end()
	cmd := exec.Command("/usr/bin/python3", "-c", `import os, sys, time
sys.stdin.readline()
n = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    n += 1
print(n, flush=True)
`)
	in, _ := cmd.StdinPipe()
	// A file, not a pipe: the sleeping children keep their copy of stdout open.
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.enter(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	in.Write([]byte("go\n"))
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		g.kill()
		<-done
		t.Fatal("the fork loop did not stop: no cap on processes")
	}
	// 24 tasks: the parent and 23 children.
	b, _ := os.ReadFile(out.Name())
	if got := strings.TrimSpace(string(b)); got != "23" {
		t.Errorf("forked %q children, want 23 under pids.max = 24", got)
	}
	g.kill()
	if procs := readPIDs(filepath.Join(cgDir(cg, "pids"), "cgroup.procs")); len(procs) != 0 {
		t.Errorf("processes left in the cgroup after kill: %v", procs)
	}
}

// cgDir is the directory of a star's cgroup holding the given v1 controller's files (v2: its only directory).
func cgDir(cg starCgroup, controller string) string {
	switch s := cg.(type) {
	case *v1Star:
		if controller == "memory" {
			return s.mem
		}
		return s.pids
	case *v2Star:
		return s.dir
	}
	return ""
}

// TestCgroupKillsDaemon runs without namespaces (so no PID namespace kills the tree) and without the per-user
// kill (replaced by the cgroup's): a daemon that left the process group and session dies with the star.
func TestCgroupKillsDaemon(t *testing.T) {
	requireFull(t)
	iso := Isolation{cgroup: true, Missing: []string{"test: no namespaces"}}
	sol := shellSolution(t, `setsid sh -c 'trap "" HUP TERM; while :; do sleep 0.05; done' </dev/null >/dev/null 2>&1 &
sleep 0.2; echo started; sleep 60`)
	r := &Runner{Workers: 1, isolation: &iso, Limits: Limits{WallTime: 1500 * time.Millisecond}}
	start := time.Now()
	res := runJobs(t, r, sol, starJob("d", nil))["d"]
	assertReason(t, res, ExitTimeout)
	if !res.Protections.Cgroup || res.Protections.Namespaces {
		t.Errorf("protections %+v, want a cgroup and no namespaces", res.Protections)
	}
	within(t, "run time", time.Since(start), time.Second, 5*time.Second)
	checkNoSurvivors(t, r)
}

// TestAttackTmpfsFill writes files to /tmp and /dev/shm beyond the memory cap: tmpfs pages are charged to the
// star's cgroup, which stops it at the cap with exit reason memory.
func TestAttackTmpfsFill(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `i=0; for d in /dev/shm /tmp; do
  while head -c 16M /dev/zero > $d/f$i; do i=$((i+1)); echo "$((i*16))" >&2; done
done; echo "wrote $((i*16)) MiB"`)
	lim := Limits{MemoryBytes: 256 << 20, TmpBytes: 1 << 30}
	res := runOne(t, sol, lim, nil)
	assertReason(t, res, ExitMemory)
	checkNearCap(t, res, 256<<20)
	if mib := lastNumber(res.StderrTail); mib > 256 {
		t.Errorf("the star wrote %d MiB to tmpfs under a 256 MiB cap", mib)
	}
	// One process alone, far under its address-space cap, writing one file.
	one := writeSolution(t, map[string]string{"solution.py": `import sys
with open("/tmp/big", "wb") as f:
    for i in range(1, 1024):
        f.write(b"x" * (1 << 20))
        f.flush()
        if i % 16 == 0:
            print(i, file=sys.stderr, flush=True)
`})
	res = runOne(t, one, lim, nil)
	assertReason(t, res, ExitMemory)
	checkNearCap(t, res, 256<<20)
	if mib := lastNumber(res.StderrTail); mib > 256 || mib < 128 {
		t.Errorf("one process wrote %d MiB to tmpfs, want up to the 256 MiB cap", mib)
	}
}

// TestAttackSocketBuffers queues data in the kernel through many socket pairs with the largest buffers the
// kernel grants: socket buffers are charged to the star's cgroup.
func TestAttackSocketBuffers(t *testing.T) {
	requireFull(t)
	sol := writeSolution(t, map[string]string{"solution.py": `import socket, sys
total, pairs = 0, []
buf = b"x" * 65536
for i in range(400):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM if i % 2 else socket.SOCK_DGRAM)
    pairs.append((a, b))
    for s in (a, b):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
        s.setblocking(False)
        while True:
            try:
                total += s.send(buf)
            except (BlockingIOError, OSError):
                break
    print(total >> 20, file=sys.stderr, flush=True)
print("queued", total >> 20, "MiB")
`})
	res := runOne(t, sol, Limits{MemoryBytes: 256 << 20}, nil)
	assertReason(t, res, ExitMemory, ExitOK)
	checkNearCap(t, res, 256<<20)
	if mib := lastNumber(res.StderrTail); mib > 256 || mib < 64 {
		t.Errorf("the star queued %d MiB in socket buffers, want up to the 256 MiB cap", mib)
	}
}

// checkNearCap checks that the star held memory up to the cap (its cgroup's peak) and not beyond.
func checkNearCap(t *testing.T, res Result, limit int64) {
	t.Helper()
	if !res.Protections.Cgroup {
		t.Fatalf("no cgroup for the star")
	}
	if res.PeakRSSBytes > limit || res.PeakRSSBytes < limit/2 {
		t.Errorf("peak memory of the star's cgroup %d MiB, want up to the %d MiB cap", res.PeakRSSBytes>>20, limit>>20)
	}
}

// lastNumber is the last line of s that is a number (progress lines), or -1.
func lastNumber(s string) int {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if n, err := strconv.Atoi(strings.TrimSpace(lines[i])); err == nil {
			return n
		}
	}
	return -1
}

// affinityAttack widens its affinity to every CPU and keeps two processes busy for two seconds of wall time;
// it prints how many CPUs it may use, its children's CPU time and the wall time, in seconds.
const affinityAttack = `import os, time, resource
os.sched_setaffinity(0, range(os.cpu_count()))
start = time.time()
kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        while time.time() - start < 2.0:
            pass
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(len(os.sched_getaffinity(0)), ru.ru_utime + ru.ru_stime, time.time() - start)
`

// TestAttackAffinityWidening: the cpuset holds the star to its one CPU whatever affinity it asks for.
func TestAttackAffinityWidening(t *testing.T) {
	requireFull(t)
	if runtime.NumCPU() < 2 || len(allowedCPUs()) < 2 {
		t.Skip("needs two CPUs to tell one CPU from more")
	}
	sol := writeSolution(t, map[string]string{"solution.py": affinityAttack})
	// Control: without a cgroup the widening works (the affinity the runner set is undone).
	iso := Probe()
	iso.cgroup = false
	iso.Missing = append([]string{"test: no cgroup"}, iso.Missing...)
	r := &Runner{Workers: 1, isolation: &iso}
	ctl := runJobs(t, r, sol, starJob("a", nil))["a"]
	assertReason(t, ctl, ExitOK)
	if ctl.Protections.Cgroup {
		t.Errorf("control: Protections.Cgroup is true for a run without cgroups")
	}
	if f := strings.Fields(string(ctl.Stdout)); len(f) != 3 || f[0] == "1" {
		t.Fatalf("control: without a cpuset the solution should widen its affinity: %q %q", ctl.Stdout, ctl.StderrTail)
	}
	res := runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	f := strings.Fields(string(res.Stdout))
	if len(f) != 3 {
		t.Fatalf("stdout %q, stderr %q", res.Stdout, res.StderrTail)
	}
	cpu, _ := strconv.ParseFloat(f[1], 64)
	wall, _ := strconv.ParseFloat(f[2], 64)
	if f[0] != "1" {
		t.Errorf("the solution may use %s CPUs after widening its affinity, want 1", f[0])
	}
	if cpu > 1.15*wall || wall < 1.9 {
		t.Errorf("two busy processes used %.2f s of CPU in %.2f s of wall time: more than one CPU", cpu, wall)
	}
}

// killedRunEnv makes the test binary a run that stops in the middle of a star, to be killed (see
// TestStaleRunRemoved).
const killedRunEnv = "TRANSITBENCH_TEST_KILLED_RUN"

// killedRunHomeEnv is the data directory of that run.
const killedRunHomeEnv = "TRANSITBENCH_TEST_KILLED_RUN_HOME"

func init() {
	if os.Getenv(killedRunEnv) == "" || IsChild() {
		return
	}
	sol, err := Detect(os.Getenv(killedRunEnv))
	if err == nil {
		r := &Runner{Workers: 1, UIDBase: testUIDBase, Home: os.Getenv(killedRunHomeEnv)}
		ch := make(chan Result, 1)
		job := starJob("k", map[string]string{"lightcurve.csv": secret})
		err = r.Run(context.Background(), sol, []Job{job}, ch)
	}
	fmt.Fprintln(os.Stderr, "the run ended without being killed:", err)
	os.Exit(3)
}

// TestStaleRunRemoved kills a run (another process) in the middle of a star, then starts a run: what the killed
// one left (its run directory with the star's light curve, its cgroups) is removed.
func TestStaleRunRemoved(t *testing.T) {
	requireFull(t)
	home := t.TempDir()
	sol := shellSolution(t, `echo started >&2; sleep 60`)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killedRunEnv+"="+sol.Dir, killedRunHomeEnv+"="+home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(home, "run", runDirPrefix+"run-"+strconv.Itoa(cmd.Process.Pid)+"-*", "star-*", "lightcurve.csv")
	var left []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && len(left) == 0; {
		time.Sleep(20 * time.Millisecond)
		left, _ = filepath.Glob(pattern)
	}
	if len(left) == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the run never prepared its star (%s): %s", pattern, stderr.String())
	}
	runDir := filepath.Dir(filepath.Dir(left[0]))
	for _, d := range []string{filepath.Join(home, "run"), runDir} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v), want 0700", d, fi.Mode().Perm(), err)
		}
	}
	// Its star's cgroup exists while the star runs.
	globs, _ := runCgroupGlob(t)
	var cgLeft []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(cgLeft) == 0; {
		for _, g := range globs {
			g = strings.Replace(g, fmt.Sprintf("/%d-*", os.Getpid()), fmt.Sprintf("/%d-*", cmd.Process.Pid), 1)
			m, _ := filepath.Glob(g)
			cgLeft = append(cgLeft, m...)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(cgLeft) == 0 {
		t.Errorf("no cgroup of the killed run's star was found")
	}
	if _, err := os.Stat(left[0]); err != nil {
		t.Fatalf("the killed run's star file is already gone (%v): the test cannot show the cleanup", err)
	}
	next := &Runner{Workers: 1, Home: home} // the same data directory, hence the same run root
	res := runJobs(t, next, shellSolution(t, "echo next"), starJob("s", nil))["s"]
	assertReason(t, res, ExitOK)
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("the killed run's directory %s is still there after the next run started (%v)", runDir, err)
	}
	for _, d := range cgLeft {
		if _, err := os.Stat(filepath.Dir(d)); !os.IsNotExist(err) {
			t.Errorf("the killed run's cgroup %s is still there after the next run started", filepath.Dir(d))
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "run")); len(entries) != 0 {
		t.Errorf("left in the run root after the run: %v", entries)
	}
}

// TestLiveRunDirKept: the stale cleanup leaves a live run's directory alone, removes a dead one's and one
// without an owner.
func TestLiveRunDirKept(t *testing.T) {
	base := t.TempDir()
	live, err := newRunDir(base, "solution", 0o700)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	dead := filepath.Join(base, runDirPrefix+"run-999999999-abcd") // beyond pid_max: no such process
	orphan := filepath.Join(base, runDirPrefix+"stage")
	other := filepath.Join(base, "unrelated")
	for _, d := range []string{dead, orphan, other} {
		if err := os.MkdirAll(filepath.Join(d, "star"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cleanStaleRunDirs(base, true)
	for d, want := range map[string]bool{live.path: true, dead: false, orphan: false, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", d, err == nil, want)
		}
	}
	if fi, err := os.Stat(live.path); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("live run directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}

// BenchmarkStarCgroup measures what a star's cgroup costs the runner: create it, move a process in, kill what
// is inside and remove it.
func BenchmarkStarCgroup(b *testing.B) {
	if !Probe().cgroup {
		b.Skip("no cgroups here: " + Probe().String())
	}
	rc, err := newRunCgroup()
	if err != nil {
		b.Fatal(err)
	}
	defer rc.remove()
	lim := Limits{}.withDefaults()
	cpu := -1
	if c := allowedCPUs(); len(c) > 0 {
		cpu = c[0]
	}
	for b.Loop() {
		cg, err := rc.star(lim)
		if err != nil {
			b.Fatal(err)
		}
		g := &starGroup{cg: cg}
		if err := g.pin(cpu); err != nil {
			b.Fatal(err)
		}
		g.overMemory()
		g.peak()
		g.end()
	}
}

// TestAttackKernelObjects fills kernel memory with objects no RLIMIT_AS counts: inodes and dentries of empty
// files on the tmpfs, and pipe buffers. Both are charged to the star's cgroup, which stops them at the cap.
func TestAttackKernelObjects(t *testing.T) {
	requireFull(t)
	files := writeSolution(t, map[string]string{"solution.py": `import os, sys
for i in range(10**8):
    open("/tmp/%d" % i, "w").close()
    if i % 20000 == 0:
        print(i, file=sys.stderr, flush=True)
`})
	res := runOne(t, files, Limits{MemoryBytes: 64 << 20}, nil)
	assertReason(t, res, ExitMemory)
	checkNearCap(t, res, 64<<20)
	if n := lastNumber(res.StderrTail); n < 20000 {
		t.Errorf("only %d files before the end (stderr %q): the kernel objects were not what stopped it", n, truncate(res.StderrTail))
	}
	t.Logf("files: %s after %v, %d files, peak %d MiB", res.ExitReason, res.Runtime, lastNumber(res.StderrTail), res.PeakRSSBytes>>20)
	pipes := writeSolution(t, map[string]string{"solution.py": `import fcntl, os, sys
total, keep = 0, []
while True:
    try:
        r, w = os.pipe()
    except OSError:
        break
    keep.append((r, w))
    try:
        fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
    except OSError:
        pass
    os.set_blocking(w, False)
    while True:
        try:
            total += os.write(w, b"x" * 65536)
        except OSError:
            break
    print(total >> 20, file=sys.stderr, flush=True)
print("pipes", len(keep), "MiB", total >> 20)
`})
	res = runOne(t, pipes, Limits{MemoryBytes: 128 << 20}, nil)
	assertReason(t, res, ExitMemory, ExitOK)
	if !res.Protections.Cgroup || res.PeakRSSBytes > 128<<20 {
		t.Errorf("peak memory of the star's cgroup %d MiB over the 128 MiB cap (cgroup %v)", res.PeakRSSBytes>>20, res.Protections.Cgroup)
	}
	// The pipes' pages are in the cgroup's count (the per-user pipe quota may stop the filling first).
	if mib := lastNumber(res.StderrTail); mib > 128 || int64(mib) > res.PeakRSSBytes>>20 || mib < 16 {
		t.Errorf("the star queued %d MiB in pipes, its cgroup's peak is %d MiB: want the pipes counted, under the 128 MiB cap",
			mib, res.PeakRSSBytes>>20)
	}
}
