package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSlotsNotShared runs stars one after the other on one worker, whose next star's slot (its cgroup and its
// child, waiting at the gate) is made while a star runs: every star has namespaces, a cgroup and a process tree
// of its own, none of them the previous star's nor the runner's, and nothing of the unused last slot is left
// after the run. (A namespace's inode number is unique among the namespaces alive at one time and may be
// reused later: the next star's namespaces are made while a star runs, so consecutive stars must differ.)
func TestSlotsNotShared(t *testing.T) {
	requireFull(t)
	cg := `grep -E ':(memory|pids|cpuset):' /proc/self/cgroup`
	if v2Mount() != "" {
		cg = `grep '^0::' /proc/self/cgroup`
	}
	sol := shellSolution(t, `for ns in mnt pid net ipc uts; do readlink /proc/self/ns/$ns; done; `+cg+`; echo pid $$`)
	const stars = 6
	var jobs []Job
	for i := range stars {
		jobs = append(jobs, starJob("s"+strconv.Itoa(i), nil))
	}
	r := &Runner{Workers: 1}
	got := runJobs(t, r, sol, jobs...)
	host := map[string]bool{}
	for _, ns := range []string{"mnt", "pid", "net", "ipc", "uts"} {
		l, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			t.Fatal(err)
		}
		host[l] = true
	}
	cgroups := map[string]string{}
	var prev map[string]bool
	for i := range stars {
		id := "s" + strconv.Itoa(i)
		res := got[id]
		assertReason(t, res, ExitOK)
		if !res.Protections.Cgroup {
			t.Errorf("%s ran without a cgroup", id)
		}
		lines := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
			switch {
			case strings.HasPrefix(line, "pid "):
				if line != "pid 1" {
					t.Errorf("%s: the solution is %s, want PID 1 of its own namespace", id, line)
				}
			case strings.Contains(line, ":["):
				if host[line] {
					t.Errorf("%s is in the runner's namespace %s", id, line)
				}
				if prev[line] {
					t.Errorf("%s shares %s with the star before it", id, line)
				}
				lines[line] = true
			default:
				if other, ok := cgroups[line]; ok {
					t.Errorf("%s and %s share the cgroup %q", other, id, line)
				}
				cgroups[line] = id
			}
		}
		if len(lines) != 5 {
			t.Errorf("%s: namespaces %v, want 5", id, lines)
		}
		prev = lines
	}
	if len(cgroups) < stars {
		t.Errorf("cgroups %v for %d stars", cgroups, stars)
	}
	checkNoSurvivors(t, r)
	if kids := childProcesses(); len(kids) > 0 {
		t.Errorf("child processes left after the run (the unused slot's child?): %v", kids)
	}
	globs, _ := runCgroupGlob(t)
	for _, g := range globs {
		if m, _ := filepath.Glob(g); len(m) > 0 {
			t.Errorf("star cgroups left after the run: %v", m)
		}
	}
}

// childProcesses lists the live processes whose parent is this process.
func childProcesses() []string {
	entries, _ := os.ReadDir("/proc")
	self := strconv.Itoa(os.Getpid())
	var kids []string
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == self && f[0] != "Z" {
			kids = append(kids, e.Name()+" "+string(b[:i+1]))
		}
	}
	return kids
}

// TestSelfChildProgram runs stars with this executable as the child program, as where the small one cannot be
// built (no Go toolchain): the same setup, with every protection.
func TestSelfChildProgram(t *testing.T) {
	requireFull(t)
	if p := childProgram(); !strings.HasPrefix(p, "/proc/self/fd/") || childProgramErr != nil {
		t.Fatalf("the child program is %s (%v), want the small one built from package jail", p, childProgramErr)
	}
	childProgramOverride = selfExe
	t.Cleanup(func() { childProgramOverride = "" })
	sol := shellSolution(t, `grep -E '^(Seccomp|NoNewPrivs|CapEff):' /proc/self/status; id -u; cat /proc/self/mountinfo | wc -l; echo pid $$`)
	r := &Runner{Workers: 1, Hidden: true}
	res := runJobs(t, r, sol, starJob("s", nil))["s"]
	assertReason(t, res, ExitOK)
	if want := (Protections{Namespaces: true, Seccomp: true, Cgroup: true, FreshUID: true}); res.Protections != want {
		t.Errorf("protections %+v, want %+v", res.Protections, want)
	}
	out := string(res.Stdout)
	for _, want := range []string{"Seccomp:\t2\n", "NoNewPrivs:\t1\n", "CapEff:\t0000000000000000\n", "pid 1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "\n0\n") {
		t.Errorf("the solution ran as root: %q", out)
	}
	checkNoSurvivors(t, r)
}

// TestChildProgramSmall: the small child program is what stars start, and it is small (package jail and the
// standard library), not a copy of this executable; its descriptor is above those a child rearranges before
// its exec.
func TestChildProgramSmall(t *testing.T) {
	requireFull(t)
	p := childProgram()
	if fd, err := strconv.Atoi(strings.TrimPrefix(p, "/proc/self/fd/")); err != nil || fd < childProgramFD {
		t.Errorf("the child program is %s: want a descriptor of at least %d", p, childProgramFD)
	}
	fi, err := os.Stat(p)
	if err != nil || childProgramErr != nil {
		t.Fatalf("child program %s: %v (%v)", p, err, childProgramErr)
	}
	self, err := os.Stat(selfExe)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 8<<20 || fi.Size() >= self.Size() {
		t.Errorf("the child program is %d bytes (this executable %d): want a small program", fi.Size(), self.Size())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("the child program's mode is %v: writable by others", fi.Mode())
	}
}

// TestAttackChildProgramCache: every star's setup runs the child program as root, so the cache that holds it
// must be the runner's alone. A cache directory another user may write is refused (the stars then start this
// executable), and a file planted under the program's name that another user may write, or that is another
// user's, is never executed: the program is built again over it.
func TestAttackChildProgramCache(t *testing.T) {
	requireFull(t)
	real := childProgram()
	if childProgramErr != nil {
		t.Fatalf("the child program could not be built: %v", childProgramErr)
	}
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if p, err := buildChildProgram(open); err == nil || !strings.Contains(err.Error(), "writable by it alone") {
		t.Errorf("a cache directory writable by all: %s, %v; want a refusal", p, err)
	}

	root := filepath.Join(base, "cache")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	// The real cache's compiled packages keep the builds below short.
	realRoot := filepath.Join(mustUserCacheDir(t), "transitbench", "sandbox-child")
	if err := os.Symlink(filepath.Join(realRoot, "gocache"), filepath.Join(root, "gocache")); err != nil {
		t.Fatal(err)
	}
	first, err := buildChildProgram(root)
	if err != nil {
		t.Fatal(err)
	}
	name, err := os.Readlink(first)
	if err != nil || filepath.Dir(name) != root {
		t.Fatalf("the child program %s is %s (%v), want a file in %s", first, name, err, root)
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if same, _ := os.ReadFile(real); string(same) != string(want) {
		t.Errorf("the program built in %s differs from the one in use, built from the same sources", root)
	}
	const planted = "#!/bin/sh\necho planted\n"
	for _, plant := range []struct {
		what  string
		mode  os.FileMode
		owner int
	}{{"writable by all", 0o777, 0}, {"another user's", 0o755, testUIDBase}} {
		os.Remove(name)
		if err := os.WriteFile(name, []byte(planted), plant.mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(name, plant.mode)
		os.Chown(name, plant.owner, plant.owner)
		p, err := buildChildProgram(root)
		if err != nil {
			t.Fatalf("%s: %v", plant.what, err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) == planted || string(got) != string(want) {
			t.Errorf("a planted file %s: the child program read %d bytes (%v), want the rebuilt program", plant.what, len(got), err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s: the child program's mode is %v (%v)", plant.what, fi.Mode(), err)
		}
	}
}

func mustUserCacheDir(t *testing.T) string {
	c, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChildEnviron: the child runs with its collector off, which jail's execCapped relies on (after the
// address-space cap no allocation may fail, and a collection could need memory), and on one processor.
func TestChildEnviron(t *testing.T) {
	env := childEnviron()
	for _, want := range []string{"GOGC=off", "GOMAXPROCS=1", childEnv + "=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("the child's environment %q lacks %s", env, want)
		}
	}
}

// TestSolutionCredentials: the solution runs as the star's user and group alone, on every thread it starts,
// with no capabilities and an empty bounding set, though the child changed its user on its own thread only
// (the one that executes the solution) and dropped the bounding set ahead, before its gate.
func TestSolutionCredentials(t *testing.T) {
	requireFull(t)
	sol := shellSolution(t, `grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status | tr -d ' \t'
(grep -E '^(Uid|CapEff):' /proc/self/status | tr -d ' \t' | sed 's/^/sub/') &
wait`)
	r := &Runner{Workers: 1}
	res := runJobs(t, r, sol, starJob("s", nil))["s"]
	assertReason(t, res, ExitOK)
	uids := usedUIDs(r)
	if len(uids) != 1 {
		t.Fatalf("user ids %v, want one", uids)
	}
	id := strconv.Itoa(uids[0])
	zero := "0000000000000000"
	for _, want := range []string{"Uid:" + id + id + id + id, "Gid:" + id + id + id + id, "Groups:\n",
		"CapInh:" + zero, "CapPrm:" + zero, "CapEff:" + zero, "CapBnd:" + zero, "CapAmb:" + zero, "NoNewPrivs:1",
		"subUid:" + id + id + id + id, "subCapEff:" + zero} {
		if !strings.Contains(string(res.Stdout), want) {
			t.Errorf("stdout %q lacks %q", res.Stdout, want)
		}
	}
}

// TestStarFilesCopied: the star's files, in directories too, reach the solution in a read-only /run/star (the
// child copies them in after its gate, its root built before); links are left out.
func TestStarFilesCopied(t *testing.T) {
	requireFull(t)
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: more than one read of the copy's buffer
	job := Job{StarID: "s", Prepare: func(dir string) error {
		if err := os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755); err != nil {
			return err
		}
		for name, body := range map[string]string{"a.txt": "A", "sub/b.txt": "B", "sub/deeper/c.txt": "C", "big": big} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
				return err
			}
		}
		return os.Symlink("/etc/passwd", filepath.Join(dir, "link"))
	}}
	sol := shellSolution(t, `cd "$1" && find . | sort | tr '\n' ' '; echo
cat a.txt sub/b.txt sub/deeper/c.txt; echo; wc -c < big
touch new 2>/dev/null && echo WRITABLE
grep -c ' /run/star ro,' /proc/self/mountinfo`)
	res := runJobs(t, &Runner{Workers: 1}, sol, job)["s"]
	assertReason(t, res, ExitOK)
	want := ". ./a.txt ./big ./sub ./sub/b.txt ./sub/deeper ./sub/deeper/c.txt \nABC\n1048576\n1\n"
	if string(res.Stdout) != want {
		t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.StderrTail)
	}
}
