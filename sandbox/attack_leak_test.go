package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Small leaks of the host's identity and of the solution: /etc naming the host, a world-readable snapshot, the
// runner's process id in the mount table.

// TestAttackEtcNamesHost: nothing in the sandbox's /etc, its host name or its NIS domain name names the host.
// /etc/hosts holds localhost only; the host's time zone and resolver configuration are not in view.
func TestAttackEtcNamesHost(t *testing.T) {
	requireFull(t)
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Fatalf("control: the host has no name (%v)", err)
	}
	names := []string{host}
	// The host's /etc/hosts may name the machine in other ways (its containers' or VM's names): none may show.
	if b, err := os.ReadFile("/etc/hosts"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			l, _, _ = strings.Cut(l, "#")
			f := strings.Fields(l)
			for _, n := range f[min(1, len(f)):] {
				if !strings.HasPrefix(n, "localhost") && !strings.HasPrefix(n, "ip6-") {
					names = append(names, n)
				}
			}
		}
	}
	sol := shellSolution(t, `echo "uname: $(uname -n)"
echo "domain: $(cat /proc/sys/kernel/domainname)"
echo "etc: $(ls -A /etc | tr '\n' ' ')"
for f in $(find /etc -type f -o -type l | grep -v '^/etc/alternatives/'); do echo "== $f"; cat "$f" 2>/dev/null | tr -d '\000' | head -c 65536; echo; done
echo "== end"`)
	res := runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	out := string(res.Stdout)
	for _, n := range names {
		if regexp.MustCompile(`(^|[^A-Za-z0-9.-])` + regexp.QuoteMeta(n) + `($|[^A-Za-z0-9.-])`).MatchString(out) {
			t.Errorf("the sandbox names the host (%q):\n%s", n, truncate(out))
		}
	}
	for _, want := range []string{"uname: sandbox\n", "domain: (none)\n",
		"== /etc/hosts\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, truncate(out))
		}
	}
	for _, absent := range []string{"localtime", "resolv.conf", "hostname", "machine-id", "mailname"} {
		if strings.Contains(out, "== /etc/"+absent+"\n") {
			t.Errorf("/etc/%s is in the sandbox:\n%s", absent, truncate(out))
		}
	}
}

// TestAttackSnapshotPrivate: the solution snapshot in the system's temporary directory is the runner's alone
// (another local user can neither list nor read it), the stars still read it, and the mount table shows a
// random name for it, not the runner's process id.
func TestAttackSnapshotPrivate(t *testing.T) {
	requireFull(t)
	sol := writeSolution(t, map[string]string{"solution.py": `import sys
print(open("/run/solution/secret.txt").read().strip())
for l in open("/proc/self/mountinfo"):
    f = l.split()
    if f[4] == "/run/solution": print("mount", f[3])
`, "secret.txt": "the contestant's own idea"})
	if err := sol.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	stage, _, _ := sol.prepared()
	if fi, err := os.Stat(stage); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the snapshot %s has mode %v (%v), want 0700", stage, fi.Mode().Perm(), err)
	}
	// Another local user (nobody) tries to list the temporary directory's snapshot and read the file.
	for _, argv := range [][]string{{"/bin/ls", stage}, {"/bin/cat", filepath.Join(stage, "solution", "secret.txt")}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if out, err := cmd.CombinedOutput(); err == nil || strings.Contains(string(out), "own idea") {
			t.Errorf("another user ran %v: %q (%v), want permission denied", argv, out, err)
		}
	}
	res := runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	out := string(res.Stdout)
	if !strings.HasPrefix(out, "the contestant's own idea\n") {
		t.Errorf("the star could not read its snapshot: %q (stderr %q)", out, res.StderrTail)
	}
	m := regexp.MustCompile(`(?m)^mount (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no /run/solution mount in %q", out)
	}
	if strings.Contains(m[1], strconv.Itoa(os.Getpid())) {
		t.Errorf("the mount table shows the runner's process id %d: %s", os.Getpid(), m[1])
	}
	if !regexp.MustCompile(`/transitbench-snap-[0-9a-f]{24}/solution$`).MatchString(m[1]) {
		t.Errorf("the snapshot is mounted from %s, want a random transitbench-snap-<24 hex> name", m[1])
	}
}

// TestStaleSnapshotRemoved: without the process id in their names, snapshots are still told apart by their
// owner file: a live one is kept, a dead run's removed, and other transitbench-* directories of the
// temporary directory are left alone.
func TestStaleSnapshotRemoved(t *testing.T) {
	base := t.TempDir()
	live, err := newSnapshotDir(base, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	dead := filepath.Join(base, runDirPrefix+snapshotKind+"-0123456789abcdef01234567")
	other := filepath.Join(base, runDirPrefix+"test-home-42")
	for _, d := range []string{dead, other} {
		if err := os.MkdirAll(filepath.Join(d, "solution"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Beyond pid_max: no such process.
	if err := os.WriteFile(filepath.Join(dead, ownerFile), []byte("999999999"), 0o600); err != nil {
		t.Fatal(err)
	}
	cleanStaleRunDirs(base, false)
	for d, want := range map[string]bool{live.path: true, dead: false, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", d, err == nil, want)
		}
	}
}
