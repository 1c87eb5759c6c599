package workspace

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteExport writes an export into a workspace without an exports folder (created), replaces it, refuses
// names that are not plain file names, and leaves nothing behind when the writer fails: not the file, not its
// temporary twin, and an earlier export of that name stays whole.
func TestWriteExport(t *testing.T) {
	w := &Workspace{Root: t.TempDir()}
	dir := filepath.Join(w.Root, ExportsDir)
	write := func(s string) func(io.Writer) error {
		return func(out io.Writer) error { _, err := io.WriteString(out, s); return err }
	}
	path, err := w.WriteExport("dev-0001-fold.csv", write("a,b\n1,2\n"))
	if err != nil || path != filepath.Join(dir, "dev-0001-fold.csv") {
		t.Fatalf("WriteExport: %q, %v", path, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a,b\n1,2\n" {
		t.Errorf("the export holds %q", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the export's mode: %v (%v), want 0644", fi.Mode().Perm(), err)
	}
	if _, err := w.WriteExport("dev-0001-fold.csv", write("a,b\n3,4\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a,b\n3,4\n" {
		t.Errorf("the replaced export holds %q", b)
	}

	failed := errors.New("disk full")
	_, err = w.WriteExport("dev-0001-fold.csv", func(out io.Writer) error {
		io.WriteString(out, "half a fi")
		return failed
	})
	if !errors.Is(err, failed) || !strings.Contains(err.Error(), "dev-0001-fold.csv") {
		t.Errorf("a failing writer: %v, want its error, naming the file", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a,b\n3,4\n" {
		t.Errorf("after a failed export the earlier one holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the exports folder holds %v, want the one export", names)
	}

	for _, name := range []string{"", ".", "..", "../escape.csv", "sub/x.csv", "/tmp/x.csv"} {
		if p, err := w.WriteExport(name, write("x")); err == nil || !strings.Contains(err.Error(), "not a plain file name") {
			t.Errorf("WriteExport(%q) = %q, %v; want refused", name, p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Root, "escape.csv")); err == nil {
		t.Error("an export escaped the exports folder")
	}
}
