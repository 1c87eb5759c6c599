package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// FileEntry is one file of a frozen solution tree.
type FileEntry struct {
	Path string `json:"path"` // slash-separated, relative to the solution root
	Size int64  `json:"size"`
	Exec bool   `json:"exec"`
}

// skipDir reports whether a directory is left out of the content hash and of the frozen copy: caches that a
// run may create and that do not change what the solution does.
func skipDir(name string) bool {
	return name == "__pycache__" || name == ".git" || name == ".pytest_cache"
}

// HashTree returns the content hash of the solution tree at dir and its file listing. The hash is SHA-256 over,
// for every regular file in lexical path order, the line "path\x00exec\x00size\n" followed by the file's bytes,
// so renaming a file, changing its executable bit or its content changes the hash, and nothing else does
// (timestamps and owners are ignored). Symbolic links are refused: a frozen solution must be self-contained.
func HashTree(dir string) (string, []FileEntry, error) {
	var entries []FileEntry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("workspace: %s is a symbolic link: a frozen solution must hold its files itself (copy the target in)", rel)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("workspace: %s is not a regular file: remove it from the solution", rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		entries = append(entries, FileEntry{Path: rel, Size: info.Size(), Exec: info.Mode()&0o111 != 0})
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	if len(entries) == 0 {
		return "", nil, fmt.Errorf("workspace: %s holds no files: add solution.py, an executable `run`, or a Go main package", dir)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%s\x00%t\x00%d\n", e.Path, e.Exec, e.Size)
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(e.Path)))
		if err != nil {
			return "", nil, err
		}
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", nil, err
		}
		if n != e.Size {
			return "", nil, fmt.Errorf("workspace: %s changed while it was being hashed: try again", e.Path)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), entries, nil
}

// CopyTree copies the files listed in entries from src to dst (created), keeping executable bits. It is how a
// solution is frozen: grading runs the copy, never the live directory.
func CopyTree(src, dst string, entries []FileEntry) error {
	for _, e := range entries {
		if strings.Contains(e.Path, "..") {
			return fmt.Errorf("workspace: bad path %q in a frozen listing", e.Path)
		}
		from := filepath.Join(src, filepath.FromSlash(e.Path))
		to := filepath.Join(dst, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if e.Exec {
			mode = 0o755
		}
		if err := CopyFile(from, to, mode); err != nil {
			return err
		}
	}
	return nil
}

// CopyFile copies the regular file from to the path to, creating or truncating it with mode (before the
// umask).
func CopyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
