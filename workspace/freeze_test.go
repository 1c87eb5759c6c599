package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHashTreeChangesWithContentNameAndMode(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"solution.py": "print('x')\n", "lib/util.py": "A = 1\n"})
	h1, entries, err := HashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Path != "lib/util.py" || entries[1].Path != "solution.py" {
		t.Fatalf("entries = %+v, want lib/util.py then solution.py", entries)
	}
	// A cache directory and a timestamp change leave the hash alone.
	writeTree(t, dir, map[string]string{"__pycache__/util.cpython-311.pyc": "junk"})
	if h, _, _ := HashTree(dir); h != h1 {
		t.Errorf("hash changed when __pycache__ appeared")
	}
	// The content, the executable bit and a rename each change it.
	writeTree(t, dir, map[string]string{"lib/util.py": "A = 2\n"})
	h2, _, _ := HashTree(dir)
	if h2 == h1 {
		t.Errorf("hash unchanged after a content change")
	}
	if err := os.Chmod(filepath.Join(dir, "solution.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	h3, _, _ := HashTree(dir)
	if h3 == h2 {
		t.Errorf("hash unchanged after chmod +x")
	}
	if err := os.Rename(filepath.Join(dir, "lib/util.py"), filepath.Join(dir, "lib/util2.py")); err != nil {
		t.Fatal(err)
	}
	h4, _, _ := HashTree(dir)
	if h4 == h3 {
		t.Errorf("hash unchanged after a rename")
	}
}

func TestCopyTreeReproducesHash(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "frozen")
	writeTree(t, src, map[string]string{"run": "#!/bin/sh\necho period_days,t0_days,score\n", "a/b/c.txt": "data"})
	if err := os.Chmod(filepath.Join(src, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, entries, err := HashTree(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(src, dst, entries); err != nil {
		t.Fatal(err)
	}
	h2, _, err := HashTree(dst)
	if err != nil {
		t.Fatal(err)
	}
	if h2 != h {
		t.Errorf("frozen copy hash %s != source hash %s", h2, h)
	}
}

func TestHashTreeRefusesSymlinksAndEmpty(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := HashTree(dir); err == nil {
		t.Error("empty solution hashed without error")
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HashTree(dir); err == nil {
		t.Error("symlink in a solution hashed without error")
	}
}

func TestRenderTask(t *testing.T) {
	b, err := renderTask(Presets["survey"], "go", 196, 60e9, 4)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"60 turns, 200000 tokens, 4 hours", "196 labelled stars", "60 s wall clock", "period_days,t0_days,score"} {
		if !strings.Contains(s, want) {
			t.Errorf("TASK.md lacks %q", want)
		}
	}
}
