package sandbox

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Each attack is a small solution that must fail harmlessly while the run completes and records why.
// Attacks on the filesystem: reading the answers or another star, filling the disk, writing where the sandbox
// is read-only, and what the sandbox's tree shows.

const secret = "SECRET-ANSWER-4242"

// fakeDataDir makes a data directory readable by anybody, outside /tmp (which the sandbox replaces anyway), so
// that only the mask stands between the solution and the answers.
func fakeDataDir(t *testing.T) string {
	t.Helper()
	dir := sharedTempDir(t, "/var/tmp", "transitbench-test-data-", 0o755)
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

// plantAnswers makes a directory under /usr/local/share, a tree the sandbox shows, holding answers.json with
// the secret, and returns it.
func plantAnswers(t *testing.T, prefix string) string {
	t.Helper()
	dir := sharedTempDir(t, "/usr/local/share", prefix, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "answers.json"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAttackMaskInsideTree puts the answers inside a tree that the sandbox shows (/usr): only the mask hides them.
func TestAttackMaskInsideTree(t *testing.T) {
	requireFull(t)
	data := plantAnswers(t, "transitbench-test-data-")
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
	// The run directory inside stays private (0700) but is also masked.
	work := sharedTempDir(t, "/var/tmp", "transitbench-test-work-", 0o755)
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

// TestSandboxMountTable reads the sandbox's mount table: nothing in it may name the home, the data directory,
// the workspace, the solution's directory or the run directory, and its mount points are only those of the
// sandbox's own tree.
func TestSandboxMountTable(t *testing.T) {
	requireFull(t)
	work := sharedTempDir(t, "/var/tmp", "transitbench-test-work-", 0o755)
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
