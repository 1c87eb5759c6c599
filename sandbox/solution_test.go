package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
