package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"transitbench/internal/testutil"
)

func TestDetect(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]os.FileMode // name → mode
		body  string                 // content of every file
		want  Kind
		err   string
	}{
		{"python", map[string]os.FileMode{"solution.py": 0o644, "run": 0o755}, "print(1)\n", KindPython, ""},
		{"run", map[string]os.FileMode{"run": 0o755, "main.go": 0o644}, "package main\n", KindExecutable, ""},
		{"run not executable", map[string]os.FileMode{"run": 0o644}, "#!/bin/sh\n", "", "chmod +x"},
		{"go main", map[string]os.FileMode{"main.go": 0o644, "x_test.go": 0o644}, "package main\n", KindGo, ""},
		{"go library", map[string]os.FileMode{"lib.go": 0o644}, "package lib\n", "", "no solution found in"},
		{"empty", nil, "", "", "add solution.py, an executable `run`, or a Go main package"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, mode := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(c.body), mode); err != nil {
					t.Fatal(err)
				}
			}
			sol, err := Detect(dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Detect: error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sol.Kind != c.want || sol.Dir != dir {
				t.Fatalf("Detect = %s in %s, want %s in %s", sol.Kind, sol.Dir, c.want, dir)
			}
		})
	}
	if _, err := Detect(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "no solution found in") {
		t.Fatalf("Detect(missing dir): %v", err)
	}
}

func TestDetectPrefersSystemPython(t *testing.T) {
	if _, err := os.Stat(systemPython); err != nil {
		t.Fatalf("%s is needed for Python solutions: %v", systemPython, err)
	}
	sol := writeSolution(t, map[string]string{"solution.py": "print(1)\n"})
	if sol.Python != systemPython {
		t.Fatalf("Python = %s, want %s", sol.Python, systemPython)
	}
}

// TestPrepareSnapshot checks that the snapshot is readable by anybody even when the source is private, and
// that later edits of the source do not reach it.
func TestPrepareSnapshot(t *testing.T) {
	sol := writeSolution(t, map[string]string{"run": "#!/bin/sh\necho v1\n", "model.txt": "weights"})
	os.Chmod(filepath.Join(sol.Dir, "model.txt"), 0o600)
	os.Chmod(sol.Dir, 0o700)
	if err := sol.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sol.Dir, "run"), []byte("#!/bin/sh\necho v2\n"), 0o755)
	stage, _, argv := sol.prepared()
	for name, want := range map[string]os.FileMode{"model.txt": 0o644, "run": 0o755, ".": 0o755} {
		fi, err := os.Stat(filepath.Join(stage, "solution", name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("snapshot %s has mode %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
	b, _ := os.ReadFile(filepath.Join(stage, "solution", "run"))
	if !strings.Contains(string(b), "v1") {
		t.Errorf("snapshot changed with the source: %q", b)
	}
	if len(argv) != 1 || argv[0] != SolutionMount+"/run" {
		t.Errorf("argv = %q", argv)
	}
	sol.Close()
	if _, err := os.Stat(stage); !os.IsNotExist(err) {
		t.Errorf("Close left the snapshot %s", stage)
	}
}

func TestGoSolution(t *testing.T) {
	requireFull(t)
	sol := writeSolution(t, map[string]string{"main.go": `package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	b, err := os.ReadFile(filepath.Join(os.Args[1], "star.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s %s %d\n", os.Args[1], b, runtime.GOMAXPROCS(0))
}
`})
	if sol.Kind != KindGo {
		t.Fatalf("Kind = %s, want go", sol.Kind)
	}
	res := runOne(t, sol, Limits{}, map[string]string{"star.json": `{"id":"g1"}`})
	assertReason(t, res, ExitOK)
	if want := StarMount + ` {"id":"g1"} 1` + "\n"; string(res.Stdout) != want {
		t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.StderrTail)
	}
}

func TestGoSolutionBuildError(t *testing.T) {
	sol := writeSolution(t, map[string]string{"main.go": "package main\n\nfunc main() { undefined() }\n"})
	err := sol.Prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), "undefined") || !strings.Contains(err.Error(), "fix the build errors") {
		t.Fatalf("Prepare: %v, want the compiler's message", err)
	}
}

// hostSecret writes a file holding token into a world-readable directory of /var/tmp (outside every tree the
// sandbox shows) and returns its path.
func hostSecret(t *testing.T, token string) string {
	t.Helper()
	dir := sharedTempDir(t, "/var/tmp", "transitbench-test-secret-", 0o755)
	p := filepath.Join(dir, "secret")
	if err := os.WriteFile(p, []byte(token+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// prepareFails prepares the solution in dir and returns Prepare's error, failing when there is none or when it
// shows token.
func prepareFails(t *testing.T, dir, token string) string {
	t.Helper()
	sol, err := Detect(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sol.Close()
	sol.CacheDir = goCacheRoot(testHome)
	err = sol.Prepare(context.Background())
	if err == nil {
		t.Fatal("Prepare succeeded, want an error")
	}
	if strings.Contains(err.Error(), token) {
		t.Fatalf("the build showed the host's secret: %v", err)
	}
	t.Logf("Prepare: %v", err)
	return err.Error()
}

func TestGoBuildEmbedSymlinkRefused(t *testing.T) {
	secretFile := hostSecret(t, secret)
	for name, link := range map[string]func(dir string) string{
		"absolute": func(string) string { return secretFile },
		"relative": func(dir string) string {
			rel, err := filepath.Rel(filepath.Join(dir, "assets"), secretFile)
			if err != nil {
				t.Fatal(err)
			}
			return rel
		},
	} {
		t.Run(name, func(t *testing.T) {
			sol := writeSolution(t, map[string]string{"main.go": `package main

import (
	_ "embed"
	"fmt"
)

//go:embed assets/secret.txt
var s string

func main() { fmt.Print(s) }
`})
			os.Mkdir(filepath.Join(sol.Dir, "assets"), 0o755)
			target := link(sol.Dir)
			if err := os.Symlink(target, filepath.Join(sol.Dir, "assets", "secret.txt")); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(filepath.Join(sol.Dir, "assets", "secret.txt")); err != nil || !strings.Contains(string(b), secret) {
				t.Fatalf("control: the link does not lead to the secret: %q, %v", b, err)
			}
			msg := prepareFails(t, sol.Dir, secret)
			if !strings.Contains(msg, "symbolic link to "+target+", outside the solution directory") {
				t.Errorf("Prepare: %s", msg)
			}
		})
	}
}

// TestSnapshotRefusesLinkThroughLinks escapes the solution directory through a link to a directory inside it:
// every link's text stays inside, but the path they make together leads out.
func TestSnapshotRefusesLinkThroughLinks(t *testing.T) {
	sol := writeSolution(t, map[string]string{"run": "#!/bin/sh\n"})
	os.Mkdir(filepath.Join(sol.Dir, "a"), 0o755)
	if err := os.Symlink("..", filepath.Join(sol.Dir, "a", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a/up/a/up/..", filepath.Join(sol.Dir, "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sol.Dir, "x", filepath.Base(sol.Dir))); err != nil {
		t.Fatalf("control: the link does not lead out of the solution directory: %v", err)
	}
	err := sol.Prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), "x is a symbolic link to a/up/a/up/.., outside the solution directory") {
		t.Fatalf("Prepare: %v", err)
	}
}

// TestSnapshotKeepsInsideLinks checks that a relative link that stays inside the solution is kept.
func TestSnapshotKeepsInsideLinks(t *testing.T) {
	sol := writeSolution(t, map[string]string{"run": "#!/bin/sh\ncat models/current\n", "v3.txt": "weights"})
	os.Mkdir(filepath.Join(sol.Dir, "models"), 0o755)
	if err := os.Symlink("../v3.txt", filepath.Join(sol.Dir, "models", "current")); err != nil {
		t.Fatal(err)
	}
	if err := sol.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	stage, _, _ := sol.prepared()
	b, err := os.ReadFile(filepath.Join(stage, "solution", "models", "current"))
	if err != nil || string(b) != "weights" {
		t.Errorf("the snapshot's link reads %q, %v", b, err)
	}
}

// TestGoBuildAsmIncludeHostFile has the assembler #include a host file by its absolute path: outside the
// sandbox the file's first word shows in the error; inside, the file does not exist.
func TestGoBuildAsmIncludeHostFile(t *testing.T) {
	requireFull(t)
	const token = "TOPSECRET4242"
	secretFile := hostSecret(t, token)
	sol := writeSolution(t, map[string]string{
		"go.mod":  "module m\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
		"x.s":     "#include \"" + secretFile + "\"\n",
	})
	// Control: the host's go reads the file.
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Dir = sol.Dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=0")
	if out, _ := cmd.CombinedOutput(); !strings.Contains(string(out), token) {
		t.Fatalf("control: the host's build did not show the included file: %s", out)
	}
	msg := prepareFails(t, sol.Dir, token)
	if !strings.Contains(msg, "fix the build errors") || !strings.Contains(msg, "no such file or directory") {
		t.Errorf("Prepare: %s", msg)
	}
}

func TestGoBuildGoModRefused(t *testing.T) {
	lib, err := os.MkdirTemp("/var/tmp", "transitbench-test-lib-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(lib)
	os.WriteFile(filepath.Join(lib, "go.mod"), []byte("module example.com/lib\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(lib, "lib.go"), []byte("package lib\n\nconst S = \""+secret+"\"\n"), 0o644)
	for name, gomod := range map[string]string{
		"replace": "module m\n\ngo 1.22\n\nreplace example.com/lib => " + lib + "\n",
		"require": "module m\n\ngo 1.22\n\nrequire (\n\texample.com/lib v1.0.0 // a comment\n)\n",
	} {
		t.Run(name, func(t *testing.T) {
			sol := writeSolution(t, map[string]string{
				"go.mod":  gomod,
				"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/lib\"\n)\n\nfunc main() { fmt.Println(lib.S) }\n",
			})
			msg := prepareFails(t, sol.Dir, secret)
			if !strings.Contains(msg, `"`+name+`" directive`) || !strings.Contains(msg, "standard library alone") {
				t.Errorf("Prepare: %s", msg)
			}
		})
	}
}

// TestGoBuildHangStopped compiles an assembler macro that expands to 4^40 instructions: the build never ends on
// its own, and the build's time limit stops it.
func TestGoBuildHangStopped(t *testing.T) {
	requireFull(t)
	defer func(w time.Duration) { goBuildWallTime = w }(goBuildWallTime)
	goBuildWallTime = 5 * time.Second
	var bomb strings.Builder
	bomb.WriteString("#define A0 NOP\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&bomb, "#define A%d A%d; A%d; A%d; A%d\n", i, i-1, i-1, i-1, i-1)
	}
	bomb.WriteString("TEXT ·f(SB),0,$0-0\n\tA40\n\tRET\n")
	sol := writeSolution(t, map[string]string{
		"go.mod":  "module m\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc f()\n\nfunc main() { f() }\n",
		"f.s":     bomb.String(),
	})
	start := time.Now()
	msg := prepareFails(t, sol.Dir, secret)
	within(t, "build time", time.Since(start), 0, 60*time.Second)
	if !strings.Contains(msg, "ran past its 5s limit") && !strings.Contains(msg, "ran out of memory") {
		t.Errorf("Prepare: %s", msg)
	}
}

func TestGoBuildSnapshotRefusesFIFO(t *testing.T) {
	sol := writeSolution(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	if err := syscall.Mkfifo(filepath.Join(sol.Dir, "x.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := prepareFails(t, sol.Dir, secret)
	if !strings.Contains(msg, "x.go is not a regular file") {
		t.Errorf("Prepare: %s", msg)
	}
}

// TestGoStarterBuildsAndRuns builds the workspace's Go starter in the build sandbox and runs it on a short
// light curve.
func TestGoStarterBuildsAndRuns(t *testing.T) {
	requireFull(t)
	src, err := os.ReadFile("../workspace/starter/go/main.go")
	if err != nil {
		t.Fatal(err)
	}
	sol := writeSolution(t, map[string]string{"main.go": string(src)})
	var lc strings.Builder
	lc.WriteString("time,flux,flux_err,quality\n")
	for i := range 2000 {
		fmt.Fprintf(&lc, "%.5f,1.0,0.0003,0\n", 170+float64(i)*0.0204)
	}
	res := runOne(t, sol, Limits{}, map[string]string{"lightcurve.csv": lc.String()})
	assertReason(t, res, ExitOK)
	if !strings.HasPrefix(string(res.Stdout), "period_days,t0_days,score\n") {
		t.Errorf("stdout %q, want the header (stderr %q)", res.Stdout, res.StderrTail)
	}
}

// TestGoCachePruned checks that a solution directory's build cache goes once the directory is gone, at the next
// build of another solution.
func TestGoCachePruned(t *testing.T) {
	root := goCacheRoot(testHome)
	build := func(dir string) string {
		testutil.WriteSolution(t, dir, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
		sol, err := Detect(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer sol.Close()
		sol.CacheDir = root
		if err := sol.Prepare(context.Background()); err != nil {
			t.Fatal(err)
		}
		cache, err := goCacheDir(context.Background(), dir, "", root)
		if err != nil {
			t.Fatal(err)
		}
		return cache
	}
	gone := filepath.Join(t.TempDir(), "solution")
	first := build(gone)
	if fi, err := os.Stat(first); err != nil || !fi.IsDir() || filepath.Dir(first) != root {
		t.Fatalf("cache %s of %s: %v", first, gone, err)
	}
	os.RemoveAll(gone)
	second := build(filepath.Join(t.TempDir(), "solution"))
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the cache %s of the removed %s is still there (%v)", first, gone, err)
	}
	if _, err := os.Stat(second); err != nil {
		t.Errorf("the new cache: %v", err)
	}
}

// TestGoBuildOutputCapped makes the assembler print a 200 KB error line: the error keeps its last 8 KiB.
func TestGoBuildOutputCapped(t *testing.T) {
	requireFull(t)
	sol := writeSolution(t, map[string]string{
		"go.mod":  "module m\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() {}\n",
		"x.s":     strings.Repeat("A", 200_000) + "Z\n",
	})
	msg := prepareFails(t, sol.Dir, secret)
	if len(msg) > goBuildOutputBytes+1024 || !strings.Contains(msg, "…") || !strings.Contains(msg, "AZ") {
		t.Errorf("Prepare's error has %d bytes, want the last %d of the output: %.300q … %q", len(msg), goBuildOutputBytes, msg, msg[max(0, len(msg)-300):])
	}
}
