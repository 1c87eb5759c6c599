package sandbox

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attacks on the solution snapshot: a second user who can write the solution directory swaps a listed entry
// for a symbolic link between the snapshot's listing and its open, hoping that root copies whatever the link
// names into the sandbox.

// secretBody is what the attacked file holds; it must appear in no snapshot.
const secretBody = "TOP-SECRET-snapshot-7f3a"

// swapOnHook makes snapshotHook replace the solution entry rel with a symbolic link to target the first time
// the snapshot reaches it, and restores the hook when the test ends.
func swapOnHook(t *testing.T, dir, rel, target string) {
	t.Helper()
	swapped := false
	snapshotHook = func(got string) {
		if got != rel || swapped {
			return
		}
		swapped = true
		p := filepath.Join(dir, rel)
		if err := os.RemoveAll(p); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { snapshotHook = nil })
}

// holdsSecret reports which regular files under root (not following links) hold secretBody.
func holdsSecret(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(secretBody)) {
				found = append(found, path)
			}
		}
		return nil
	})
	return found
}

func TestAttackSnapshotSwapForLink(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "secret")
	if err := os.WriteFile(secret, []byte(secretBody), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, rel, target string }{
		{"file for a link to a file", "data.txt", secret},
		{"directory for a link to a directory", "sub", secretDir},
		{"the entry point for a link", "solution.py", secret},
	} {
		t.Run(c.name, func(t *testing.T) {
			sol := writeSolution(t, map[string]string{"solution.py": "print(1)\n", "data.txt": "public\n"})
			if err := os.Mkdir(filepath.Join(sol.Dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			restore(t, sol.Dir, "sub/x.txt")
			// The copy itself, into a directory the test keeps: nothing of the secret may be in it.
			swapOnHook(t, sol.Dir, c.rel, c.target)
			dst := filepath.Join(t.TempDir(), "snap")
			_, err := copyTree(dst, sol.Dir)
			if err == nil || !strings.Contains(err.Error(), "changed while it was being copied") {
				t.Errorf("copyTree: error %v, want one saying the directory changed while it was being copied", err)
			}
			if got := holdsSecret(t, dst); len(got) > 0 {
				t.Errorf("the secret was copied into the snapshot: %v", got)
			}
			// Prepare, as a run calls it: it fails with the same clear error.
			restore(t, sol.Dir, c.rel)
			swapOnHook(t, sol.Dir, c.rel, c.target)
			err = sol.Prepare(context.Background())
			if err == nil || !strings.Contains(err.Error(), "changed while it was being copied") {
				t.Errorf("Prepare: error %v, want one saying the directory changed while it was being copied", err)
			}
			if stage, _, _ := sol.prepared(); stage != "" {
				t.Errorf("Prepare kept a snapshot at %s after the swap", stage)
			}
		})
	}
}

// restore puts back the entry rel of a test solution (sub/x.txt for sub) after a swap.
func restore(t *testing.T, dir, rel string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var err error
	switch rel {
	case "sub":
		if err = os.Mkdir(p, 0o755); err == nil {
			err = os.WriteFile(filepath.Join(p, "x.txt"), []byte("public\n"), 0o644)
		}
	default:
		err = os.WriteFile(p, []byte("print(1)\n"), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
