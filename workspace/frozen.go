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
)

// A frozen solution travels as a gzip'd tar (`transitbench freeze --out`): the solution's files under solution/
// and a manifest, so that grading can happen on a machine the contestant does not control. The file's SHA-256
// names it; the manifest's content hash (HashTree) is checked against the files when it is read.

// manifestName is the manifest's path in a frozen tar.
const manifestName = "transitbench-frozen.json"

// maxFrozenBytes bounds the files a frozen tar may unpack to.
const maxFrozenBytes = 1 << 30

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

// ImportFrozen unpacks the frozen tar at file into dst (a new directory) and checks it: the files must have the
// content hash the manifest gives, and when want is set the file's SHA-256 or that content hash must be want.
// Anything but regular files, paths leading out of solution/, or more than 1 GiB are refused.
func ImportFrozen(file, dst, want string) (FrozenFile, error) {
	ff := FrozenFile{Path: file}
	b, err := os.ReadFile(file)
	if err != nil {
		return ff, err
	}
	s := sha256.Sum256(b)
	ff.FileSHA = hex.EncodeToString(s[:])
	m, err := untar(b, dst)
	if err != nil {
		return ff, fmt.Errorf("workspace: %s is not a frozen solution written by 'transitbench freeze --out': %w", file, err)
	}
	hash, _, err := HashTree(dst)
	if err != nil {
		return ff, err
	}
	ff.Hash = hash
	if hash != m.Hash {
		return ff, fmt.Errorf("%w: %s says %.12s, its files hash to %.12s: the file was changed after it was frozen; ask for it again",
			ErrFrozenMismatch, file, m.Hash, hash)
	}
	if want != "" && want != ff.FileSHA && want != hash {
		return ff, fmt.Errorf("%w: %s has SHA-256 %s (content %s), not %s: grade the file whose hash was submitted",
			ErrFrozenMismatch, file, ff.FileSHA, hash, want)
	}
	return ff, nil
}

// untar unpacks the gzip'd tar b into dst and returns its manifest.
func untar(b []byte, dst string) (*FrozenManifest, error) {
	gz, err := gzip.NewReader(strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	var m *FrozenManifest
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		total += h.Size
		if h.Typeflag != tar.TypeReg || total > maxFrozenBytes {
			return nil, fmt.Errorf("%s: only regular files, 1 GiB in all, may be in a frozen solution", h.Name)
		}
		if h.Name == manifestName {
			m = &FrozenManifest{}
			if err := json.NewDecoder(io.LimitReader(tr, 16<<20)).Decode(m); err != nil {
				return nil, fmt.Errorf("the manifest: %w", err)
			}
			continue
		}
		rel, ok := strings.CutPrefix(path.Clean(h.Name), "solution/")
		if !ok || rel == "" || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
			return nil, fmt.Errorf("%s: a frozen solution holds only files under solution/", h.Name)
		}
		if err := extractFile(tr, filepath.Join(dst, filepath.FromSlash(rel)), h); err != nil {
			return nil, err
		}
	}
	if m == nil {
		return nil, fmt.Errorf("it has no %s", manifestName)
	}
	return m, nil
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
