package workspace

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"transitbench/grader/store"
)

// tarEntry is one entry of a test tar: a header and, for a regular file, a body of Size bytes (zeros when body
// is nil).
type tarEntry struct {
	h    tar.Header
	body []byte
}

// manifestEntry is the manifest of files as a tar's first entry.
func manifestEntry(t *testing.T, hash string, files ...FileEntry) tarEntry {
	t.Helper()
	b, err := json.Marshal(FrozenManifest{Hash: hash, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	return tarEntry{h: tar.Header{Name: manifestName, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(b))}, body: b}
}

// regular is a regular file under solution/ of size bytes of zeros.
func regular(name string, size int64) tarEntry {
	return tarEntry{h: tar.Header{Name: "solution/" + name, Typeflag: tar.TypeReg, Mode: 0o755, Size: size}}
}

// writeTestTar writes entries as a gzip'd tar to a new file and returns its path.
func writeTestTar(t *testing.T, entries ...tarEntry) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.tar.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := e.h
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		var r io.Reader = io.LimitReader(zeros{}, h.Size)
		if e.body != nil {
			r = strings.NewReader(string(e.body))
		}
		if _, err := io.Copy(tw, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []io.Closer{tw, zw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// unpacked returns the bytes under dir (0 when it does not exist).
func unpacked(dir string) (n int64) {
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// TestFrozenHashCheckedBeforeUnpacking: a small tar that unpacks to 64 MiB of zeros is refused as not the
// submitted file, or as unlike its manifest, before its big file is written: nothing of it reaches the disk.
func TestFrozenHashCheckedBeforeUnpacking(t *testing.T) {
	const big = 64 << 20
	bomb := writeTestTar(t, manifestEntry(t, strings.Repeat("ab", 32), FileEntry{Path: "run", Size: big, Exec: true}),
		regular("run", big))
	if info, _ := os.Stat(bomb); info.Size() > 1<<20 {
		t.Fatalf("the bomb is %d bytes compressed", info.Size())
	}
	dst := filepath.Join(t.TempDir(), "solution")
	if _, err := ImportFrozen(bomb, dst, strings.Repeat("0", 64)); !errors.Is(err, ErrFrozenMismatch) {
		t.Fatalf("a tar that is not the submitted one: %v, want ErrFrozenMismatch", err)
	}
	if n := unpacked(dst); n != 0 {
		t.Errorf("the refused tar unpacked %d bytes first", n)
	}
	// A manifest that lies about a file's size: refused at that file's header, before its bytes are written.
	liar := writeTestTar(t, manifestEntry(t, strings.Repeat("ab", 32), FileEntry{Path: "run", Size: 10, Exec: true}),
		regular("run", big))
	if _, err := ImportFrozen(liar, dst, ""); !errors.Is(err, ErrFrozenMismatch) {
		t.Fatalf("a manifest understating a file: %v, want ErrFrozenMismatch", err)
	}
	if n := unpacked(dst); n != 0 {
		t.Errorf("the lying tar left %d bytes", n)
	}
}

// TestFrozenCaps: a manifest listing more than MaxFrozenEntries files or more than MaxFrozenBytes, a tar with
// more entries than its manifest lists, and a tar file over MaxFrozenBytes are refused before anything is
// unpacked.
func TestFrozenCaps(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "solution")
	var many []FileEntry
	var entries []tarEntry
	for i := range MaxFrozenEntries + 1 {
		name := fmt.Sprintf("f%06d", i)
		many = append(many, FileEntry{Path: name})
		entries = append(entries, regular(name, 0))
	}
	tooMany := writeTestTar(t, append([]tarEntry{manifestEntry(t, "x", many...)}, entries...)...)
	start := time.Now()
	if _, err := ImportFrozen(tooMany, dst, ""); !errors.Is(err, ErrFrozenTooLarge) {
		t.Errorf("%d files: %v, want ErrFrozenTooLarge", len(many), err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%d files: something was unpacked (%v), in %s", len(many), err, time.Since(start))
	}
	unlisted := writeTestTar(t, append([]tarEntry{manifestEntry(t, "x", many[0])}, entries...)...)
	if _, err := ImportFrozen(unlisted, dst, ""); !errors.Is(err, ErrFrozenMismatch) {
		t.Errorf("entries the manifest does not list: %v, want ErrFrozenMismatch", err)
	}
	if ents, _ := os.ReadDir(dst); len(ents) != 0 {
		t.Errorf("entries the manifest does not list: %d files left", len(ents))
	}
	half := int64(MaxFrozenBytes/2 + 1)
	huge := writeTestTar(t, manifestEntry(t, "x", FileEntry{Path: "a", Size: half}, FileEntry{Path: "b", Size: half}))
	if _, err := ImportFrozen(huge, dst, ""); !errors.Is(err, ErrFrozenTooLarge) {
		t.Errorf("a manifest of %d MiB: %v, want ErrFrozenTooLarge", 2*half>>20, err)
	}
	sparse := filepath.Join(t.TempDir(), "big.tar.gz")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil || os.Truncate(sparse, MaxFrozenBytes+1) != nil {
		t.Fatal("making a sparse file")
	}
	if _, err := ImportFrozen(sparse, dst, ""); !errors.Is(err, ErrFrozenTooLarge) {
		t.Errorf("a tar file over %d MiB: %v, want ErrFrozenTooLarge", MaxFrozenBytes>>20, err)
	}
}

// TestFrozenRefusesLinksAndDevices: symbolic and hard links, devices, FIFOs and directories in a frozen tar are
// refused, and none of them is made.
func TestFrozenRefusesLinksAndDevices(t *testing.T) {
	target := filepath.Join(t.TempDir(), "outside")
	for name, h := range map[string]tar.Header{
		"symlink":   {Name: "solution/run", Typeflag: tar.TypeSymlink, Linkname: target},
		"hardlink":  {Name: "solution/run", Typeflag: tar.TypeLink, Linkname: "/etc/passwd"},
		"chardev":   {Name: "solution/run", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3},
		"blockdev":  {Name: "solution/run", Typeflag: tar.TypeBlock, Devmajor: 7},
		"fifo":      {Name: "solution/run", Typeflag: tar.TypeFifo},
		"directory": {Name: "solution/run/", Typeflag: tar.TypeDir},
	} {
		h.Mode = 0o755
		file := writeTestTar(t, manifestEntry(t, "x", FileEntry{Path: "run"}), tarEntry{h: h})
		dst := filepath.Join(t.TempDir(), "solution")
		if _, err := ImportFrozen(file, dst, ""); err == nil || !strings.Contains(err.Error(), "only regular files") {
			t.Errorf("%s: %v, want a refusal naming regular files", name, err)
		}
		if _, err := os.Lstat(filepath.Join(dst, "run")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: solution/run was made (%v)", name, err)
		}
	}
}

// TestPruneFrozen: frozen copies are kept for the latest KeepFrozenGradings gradings, for a grade run not done,
// for the solution being graded and for a copy made within the grace period; older ones are removed, and a
// grading prunes.
func TestPruneFrozen(t *testing.T) {
	ws, home := newTestWorkspace(t)
	st := openTestStore(t, home)
	defer st.Close()
	ctx := context.Background()
	old := time.Now().Add(-2 * frozenGrace)
	mk := func(hash string, mtime time.Time) {
		dir := FrozenDir(home, hash)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "run"), []byte("x"), 0o755)
		os.Chtimes(dir, mtime, mtime)
	}
	var hashes []string
	for g := 1; g <= KeepFrozenGradings+2; g++ {
		h := fmt.Sprintf("h%02d", g)
		hashes = append(hashes, h)
		mk(h, old)
		for _, set := range GradeSets {
			id, err := st.CreateRun(ctx, store.Run{Kind: KindGrade, Set: set, Label: ws.Root, Lineage: ws.Lineage(), Grading: g, SolutionHash: h})
			if err != nil {
				t.Fatal(err)
			}
			status := store.StatusDone
			if g == 1 && set == "B" {
				status = store.StatusCancelled // grading #1 was interrupted on B: resumable
			}
			if err := st.FinishRun(ctx, id, status, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("orphan", old)
	mk("kept", old)
	mk("fresh", time.Now())
	mk(".freeze-123", old)
	removed, err := PruneFrozen(ctx, home, st, "kept")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{"h02", "orphan"}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v (h01 is resumable, h03…h%02d are the last %d gradings)", removed, want,
			KeepFrozenGradings+2, KeepFrozenGradings)
	}
	for _, h := range append(hashes[2:], "h01", "kept", "fresh", ".freeze-123") {
		if _, err := os.Stat(FrozenDir(home, h)); err != nil {
			t.Errorf("%s was removed: %v", h, err)
		}
	}
	// A grading prunes: the orphan made now-old goes, the graded solution's copy stays.
	mk("orphan2", old)
	constSolution(t, ws, "prune")
	rep, err := ws.Grade(ctx, RunOptions{Home: home, Workers: 2, Compositions: small}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(FrozenDir(home, "orphan2")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the grading left the orphan copy (%v)", err)
	}
	if _, err := os.Stat(FrozenDir(home, rep.Frozen)); err != nil {
		t.Errorf("the grading removed its own copy: %v", err)
	}
}
