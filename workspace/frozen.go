package workspace

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"transitbench/sandbox"
)

// A frozen solution travels as a gzip'd tar (`transitbench freeze --out`): the solution's files under solution/
// and a manifest, so that grading can happen on a machine the contestant does not control. The file's SHA-256
// names it; the manifest's content hash (HashTree) is checked against the files when it is read.

// manifestName is the manifest's path in a frozen tar.
const manifestName = "transitbench-frozen.json"

// The limits of a frozen tar, which the grader reads as untrusted input (ImportFrozen).
const (
	// MaxFrozenBytes bounds both the tar file and the files it unpacks to, in all: the sandbox's cap on a
	// solution (sandbox.MaxSolutionBytes, 1 GiB).
	MaxFrozenBytes = sandbox.MaxSolutionBytes
	// MaxFrozenEntries bounds the files a frozen tar holds: 10,000 (the starters hold 1; a solution with a
	// Python package vendored in holds a few hundred).
	MaxFrozenEntries = 10_000
)

// ErrFrozenTooLarge is returned for a frozen tar that would unpack past the limits.
var ErrFrozenTooLarge = errors.New("workspace: the frozen solution is too large")

// FrozenManifest is what a frozen tar says of itself.
type FrozenManifest struct {
	Hash  string      `json:"hash"` // the content hash of the solution tree (HashTree)
	Files []FileEntry `json:"files"`
}

// FrozenFile is a frozen tar as written or read: the content hash of its tree and the SHA-256 of the file.
type FrozenFile struct {
	Path    string `json:"path"`
	Hash    string `json:"hash"`
	FileSHA string `json:"file_sha256"`
}

// ErrFrozenMismatch is returned when a frozen tar's files do not have the content hash its manifest says, or
// the file is not the one whose hash the grader was given.
var ErrFrozenMismatch = errors.New("workspace: the frozen solution does not match its hash")

// ExportFrozen writes the solution tree at src as a frozen tar to out. The tar is the same bytes for the same
// tree (no times, owners or modes beyond the executable bit), so its SHA-256 names the solution too.
func ExportFrozen(src, out string) (FrozenFile, error) {
	hash, entries, err := HashTree(src)
	if err != nil {
		return FrozenFile{}, err
	}
	if err := checkFrozenSize(src, entries); err != nil {
		return FrozenFile{}, err
	}
	f, err := os.CreateTemp(filepath.Dir(out), ".frozen-*")
	if err != nil {
		return FrozenFile{}, err
	}
	defer os.Remove(f.Name())
	sum := sha256.New()
	gz := gzip.NewWriter(io.MultiWriter(f, sum))
	tw := tar.NewWriter(gz)
	manifest, _ := json.MarshalIndent(FrozenManifest{Hash: hash, Files: entries}, "", " ")
	err = writeTarFile(tw, manifestName, 0o644, int64(len(manifest)), strings.NewReader(string(manifest)))
	for _, e := range entries {
		if err != nil {
			break
		}
		err = copyIntoTar(tw, src, e)
	}
	for _, c := range []io.Closer{tw, gz, f} {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return FrozenFile{}, err
	}
	if h2, _, err := HashTree(src); err != nil || h2 != hash {
		return FrozenFile{}, fmt.Errorf("workspace: solution/ changed while it was being frozen: try again")
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return FrozenFile{}, err
	}
	return FrozenFile{Path: out, Hash: hash, FileSHA: hex.EncodeToString(sum.Sum(nil))}, nil
}

func copyIntoTar(tw *tar.Writer, src string, e FileEntry) error {
	in, err := os.Open(filepath.Join(src, filepath.FromSlash(e.Path)))
	if err != nil {
		return err
	}
	defer in.Close()
	mode := int64(0o644)
	if e.Exec {
		mode = 0o755
	}
	return writeTarFile(tw, "solution/"+e.Path, mode, e.Size, in)
}

func writeTarFile(tw *tar.Writer, name string, mode, size int64, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: size, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return err
	}
	n, err := io.Copy(tw, io.LimitReader(r, size))
	if err == nil && n != size {
		err = fmt.Errorf("workspace: %s changed while it was being frozen: try again", name)
	}
	return err
}

// ImportFrozen unpacks the frozen tar at file into dst (a new directory) and checks it. The file is untrusted
// input, so it is checked before anything is unpacked: it must be a regular file of at most MaxFrozenBytes;
// its SHA-256 is computed by streaming it; when want is set it must be that SHA-256, or else the content hash
// that the tar's manifest (its first entry) gives; and the manifest must list at most MaxFrozenEntries files
// of at most MaxFrozenBytes in all, each under solution/. Then the tar is unpacked entry by entry, each of which
// must be the manifest's next file with its size (so nothing the manifest did not announce is written): only
// regular files, no links, devices, directories or other entries. Last, the files unpacked must have the
// manifest's content hash. A refused file leaves nothing in dst.
func ImportFrozen(file, dst, want string) (FrozenFile, error) {
	ff := FrozenFile{Path: file}
	fileSHA, err := frozenFileSHA(file)
	if err != nil {
		return ff, err
	}
	ff.FileSHA = fileSHA
	bad := func(err error) error {
		return fmt.Errorf("workspace: %s is not a frozen solution written by 'transitbench freeze --out': %w", file, err)
	}
	m, err := readFrozenManifest(file)
	if err != nil {
		if errors.Is(err, ErrFrozenTooLarge) {
			return ff, fmt.Errorf("%s: %w", file, err)
		}
		return ff, bad(err)
	}
	if want != "" && want != ff.FileSHA && want != m.Hash {
		return ff, fmt.Errorf("%w: %s has SHA-256 %s (its manifest says content %s), not %s: grade the file whose hash was submitted",
			ErrFrozenMismatch, file, ff.FileSHA, m.Hash, want)
	}
	if err := untar(file, dst, m); err != nil {
		os.RemoveAll(dst)
		if errors.Is(err, ErrFrozenTooLarge) {
			return ff, fmt.Errorf("%s: %w", file, err)
		}
		return ff, bad(err)
	}
	hash, _, err := HashTree(dst)
	if err != nil {
		return ff, err
	}
	ff.Hash = hash
	if hash != m.Hash {
		os.RemoveAll(dst)
		return ff, fmt.Errorf("%w: %s says %.12s, its files hash to %.12s: the file was changed after it was frozen; ask for it again",
			ErrFrozenMismatch, file, m.Hash, hash)
	}
	if want != "" && want != ff.FileSHA && want != hash {
		os.RemoveAll(dst)
		return ff, fmt.Errorf("%w: %s has SHA-256 %s (content %s), not %s: grade the file whose hash was submitted",
			ErrFrozenMismatch, file, ff.FileSHA, hash, want)
	}
	return ff, nil
}

// frozenFileSHA returns the SHA-256 of the frozen tar at file, read as a stream, refusing anything but a regular
// file of at most MaxFrozenBytes.
func frozenFileSHA(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("workspace: %s is not a regular file: give the tar written by 'transitbench freeze --out'", file)
	}
	if info.Size() > MaxFrozenBytes {
		return "", fmt.Errorf("%w: %s is %d MiB, more than the %d MiB a solution may hold", ErrFrozenTooLarge, file,
			info.Size()>>20, MaxFrozenBytes>>20)
	}
	h := sha256.New()
	if n, err := io.Copy(h, io.LimitReader(f, MaxFrozenBytes+1)); err != nil {
		return "", err
	} else if n > MaxFrozenBytes {
		return "", fmt.Errorf("%w: %s grew past %d MiB while it was read", ErrFrozenTooLarge, file, MaxFrozenBytes>>20)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openFrozenTar opens the gzip'd tar at file; close closes the file.
func openFrozenTar(file string) (tr *tar.Reader, close func(), err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	gz, err := gzip.NewReader(io.LimitReader(f, MaxFrozenBytes))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return tar.NewReader(gz), func() { f.Close() }, nil
}

// maxManifestBytes bounds a frozen tar's manifest.
const maxManifestBytes = 16 << 20

// readFrozenManifest reads and checks the manifest, the first entry of the tar at file: at most
// MaxFrozenEntries files, MaxFrozenBytes in all, each a relative path (no "..", not absolute), listed once.
func readFrozenManifest(file string) (*FrozenManifest, error) {
	tr, closeTar, err := openFrozenTar(file)
	if err != nil {
		return nil, err
	}
	defer closeTar()
	h, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("reading its first entry: %w", err)
	}
	if h.Name != manifestName || h.Typeflag != tar.TypeReg || h.Size > maxManifestBytes {
		return nil, fmt.Errorf("its first entry is %s, not the manifest %s (at most %d MiB)", h.Name, manifestName, maxManifestBytes>>20)
	}
	m := &FrozenManifest{}
	if err := json.NewDecoder(io.LimitReader(tr, h.Size)).Decode(m); err != nil {
		return nil, fmt.Errorf("the manifest: %w", err)
	}
	if len(m.Files) > MaxFrozenEntries {
		return nil, fmt.Errorf("%w: its manifest lists %d files, more than the %d a frozen solution may hold", ErrFrozenTooLarge,
			len(m.Files), MaxFrozenEntries)
	}
	var total int64
	seen := make(map[string]bool, len(m.Files))
	for _, e := range m.Files {
		if e.Size < 0 || !validFrozenPath(e.Path) || seen[e.Path] {
			return nil, fmt.Errorf("the manifest lists %q (%d bytes): a frozen solution holds files under solution/, each once", e.Path, e.Size)
		}
		seen[e.Path] = true
		total += e.Size
		if total > MaxFrozenBytes {
			return nil, fmt.Errorf("%w: its manifest lists more than the %d MiB a solution may hold", ErrFrozenTooLarge, MaxFrozenBytes>>20)
		}
	}
	return m, nil
}

// checkFrozenSize refuses a solution tree (src, its entries) that a frozen tar could not hold: more than
// MaxFrozenEntries files or MaxFrozenBytes in all.
func checkFrozenSize(src string, entries []FileEntry) error {
	if len(entries) > MaxFrozenEntries {
		return fmt.Errorf("%w: %s holds %d files, more than the %d a frozen solution may hold: keep data and caches out of it",
			ErrFrozenTooLarge, src, len(entries), MaxFrozenEntries)
	}
	var total int64
	for _, e := range entries {
		total += e.Size
	}
	if total > MaxFrozenBytes {
		return fmt.Errorf("%w: %s holds %d MiB, more than the %d MiB a solution may hold: keep data sets and large files out of it",
			ErrFrozenTooLarge, src, total>>20, MaxFrozenBytes>>20)
	}
	return nil
}

// validFrozenPath reports whether p is a clean relative slash path inside the solution.
func validFrozenPath(p string) bool {
	return p != "" && p == path.Clean(p) && !path.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../")
}

// untar unpacks the tar at file into dst: after the manifest m, exactly m's files in m's order, each a regular
// file of the size m gives.
func untar(file, dst string, m *FrozenManifest) error {
	tr, closeTar, err := openFrozenTar(file)
	if err != nil {
		return err
	}
	defer closeTar()
	if _, err := tr.Next(); err != nil { // the manifest, read before
		return err
	}
	for i := 0; ; i++ {
		h, err := tr.Next()
		if err == io.EOF {
			if i != len(m.Files) {
				return fmt.Errorf("%w: it holds %d of the %d files its manifest lists", ErrFrozenMismatch, i, len(m.Files))
			}
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			return fmt.Errorf("%s: only regular files may be in a frozen solution (no links, devices or directories)", h.Name)
		}
		if i >= len(m.Files) {
			return fmt.Errorf("%w: %s is an entry its manifest does not list", ErrFrozenMismatch, h.Name)
		}
		e := m.Files[i]
		if h.Name != "solution/"+e.Path || h.Size != e.Size {
			return fmt.Errorf("%w: %s (%d bytes) where its manifest lists solution/%s (%d bytes)", ErrFrozenMismatch, h.Name, h.Size, e.Path, e.Size)
		}
		if err := extractFile(tr, filepath.Join(dst, filepath.FromSlash(e.Path)), h); err != nil {
			return err
		}
	}
}

func extractFile(r io.Reader, to string, h *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(r, h.Size)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// DefaultMaxGradings is how many gradings a contestant's label may have on the contest grader (grade --frozen
// --label) unless the operator says otherwise (RunOptions.MaxGradings, --max-gradings).
const DefaultMaxGradings = 3

// ErrBadLabel is returned for a contestant label that is empty or not made of letters, digits, '.', '_', '-'
// and '@' (at most 64).
var ErrBadLabel = errors.New("workspace: a contestant label is 1 to 64 letters, digits, '.', '_', '-' or '@'")

// checkLabel checks a contestant label.
func checkLabel(label string) error {
	if label == "" || len(label) > 64 {
		return ErrBadLabel
	}
	for _, c := range label {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-@", c)) {
			return ErrBadLabel
		}
	}
	return nil
}

// GradeFrozen grades the frozen tar at file (`transitbench grade --frozen`) as Grade grades solution/: once per
// content hash (opt.Again to grade again), resumable. With opt.Contestant, the grading is numbered among that
// contestant's gradings in this data directory (lineage "contestant:LABEL", whichever workspace grades it), and a
// new grading is refused with ErrGradingCap once the contestant has had opt.MaxGradings (0: DefaultMaxGradings;
// negative: no cap); without it, among the workspace's gradings. The file is checked first (ImportFrozen, with
// want); the report and every run of the grading name the file's SHA-256.
func (w *Workspace) GradeFrozen(ctx context.Context, file, want string, opt RunOptions, events chan<- Event) (*GradeReport, error) {
	tg := gradeTarget{lineage: w.Lineage()}
	if opt.Contestant != "" {
		if err := checkLabel(opt.Contestant); err != nil {
			return nil, err
		}
		tg.lineage, tg.maxGradings = LineageContestant+opt.Contestant, opt.MaxGradings
		if tg.maxGradings == 0 {
			tg.maxGradings = DefaultMaxGradings
		}
		if err := checkGradingCap(ctx, opt, tg); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "transitbench-frozen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "solution")
	ff, err := ImportFrozen(file, src, want)
	if err != nil {
		return nil, err
	}
	tg.src, tg.fileFlag = src, FlagFile+ff.FileSHA
	rep, err := w.grade(ctx, tg, opt, events)
	if rep != nil {
		rep.FrozenFile = ff.FileSHA
	}
	return rep, err
}

// checkGradingCap refuses a grading of tg's lineage, before its file is unpacked, when the lineage has had
// tg.maxGradings gradings and none of them is unfinished (which the grading could resume); grade checks again
// under the lineage's lock, once the solution's hash is known.
func checkGradingCap(ctx context.Context, opt RunOptions, tg gradeTarget) error {
	if tg.maxGradings <= 0 {
		return nil
	}
	_, st, err := openRunStore(opt)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.Gradings(ctx, tg.lineage, "")
	if err != nil || n < tg.maxGradings {
		return err
	}
	if g, _, err := unfinishedGrading(ctx, st, tg.lineage, ""); err != nil || g > 0 {
		return err
	}
	return fmt.Errorf("%w: %s has had %d gradings, the most it may have", ErrGradingCap,
		strings.TrimPrefix(tg.lineage, LineageContestant), n)
}

// FlagFile starts the run flag naming the frozen tar a grading graded: "file:" and its SHA-256.
const FlagFile = "file:"
