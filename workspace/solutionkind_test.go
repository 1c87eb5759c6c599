package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSolutionKind names the solution in solution/ as the sandbox detects it: the starters of both languages,
// an executable run script, and none.
func TestSolutionKind(t *testing.T) {
	for _, c := range []struct {
		write func(dir string) error
		want  string
	}{
		{func(dir string) error { return writeStarter(dir, "python") }, "python"},
		{func(dir string) error { return writeStarter(dir, "go") }, "go"},
		{func(dir string) error { return os.WriteFile(filepath.Join(dir, "run"), []byte("#!/bin/sh\n"), 0o755) }, "executable"},
		{func(dir string) error { return os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644) }, "none"},
	} {
		w := &Workspace{Root: t.TempDir()}
		if err := os.MkdirAll(w.SolutionDir(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := c.write(w.SolutionDir()); err != nil {
			t.Fatal(err)
		}
		if got := w.SolutionKind(); got != c.want {
			t.Errorf("SolutionKind = %q, want %q", got, c.want)
		}
	}
}
