package workspace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ExportsDir is the folder of the workspace where the front ends write what they export (the star view's fold
// and periodogram as CSV), relative to its root.
const ExportsDir = "exports"

// WriteExport writes the file name of the workspace's exports folder (created when missing) through write and
// returns its path. The file is written beside its place and renamed into it, so a reader never sees half a
// file. name is a plain file name.
func (w *Workspace) WriteExport(name string, write func(io.Writer) error) (string, error) {
	if name == "" || filepath.Base(name) != name || name == "." || name == ".." {
		return "", fmt.Errorf("export %q: not a plain file name", name)
	}
	dir := filepath.Join(w.Root, ExportsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name()) // fails once renamed
	if err := write(f); err != nil {
		f.Close()
		return "", fmt.Errorf("export %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.Rename(f.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}
