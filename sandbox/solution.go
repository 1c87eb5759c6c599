package sandbox

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Kind is the form of a solution.
type Kind string

// The solution forms of SPEC A6, in the order Detect tries them.
const (
	KindPython     Kind = "python"     // solution/solution.py, run with python3
	KindExecutable Kind = "executable" // solution/run, any executable file (a script with a #! line or a binary)
	KindGo         Kind = "go"         // a Go main package in solution/, built with the system go
)

// Paths inside the sandbox, under /run of its own root: the star's files (copied into a read-only tmpfs), the
// solution snapshot and the built Go program (bind-mounted read-only); the solution's working directory is its
// own directory.
const (
	StarMount     = "/run/star"
	SolutionMount = "/run/solution"
	binMount      = "/run/bin"
)

// systemPython is Debian's interpreter with python3-numpy. It is preferred over the first python3 on PATH,
// which may be a per-user install (pyenv under /root) that the unprivileged sandbox user cannot read.
const systemPython = "/usr/bin/python3"

// MaxSolutionBytes bounds the snapshot of the solution directory: the files of a solution, 1 GiB in all.
const MaxSolutionBytes = 1 << 30

// Solution is a detected solution. Prepare snapshots it (and builds a Go solution) once; every star then runs
// the snapshot, so edits made while a run is going do not change it.
type Solution struct {
	Dir    string // absolute path of the solution directory
	Kind   Kind
	Python string // the interpreter for KindPython: /usr/bin/python3 when present, else python3 from PATH
	// CacheDir is the directory under which Prepare keeps a Go solution's build cache (one per solution
	// directory), a directory no star may see: the data directory's cache/gobuild. When it is empty, Prepare
	// refuses a Go solution and Runner.Run prepares it under Runner.Home/cache/gobuild instead.
	CacheDir string

	mu    sync.Mutex
	stage string // the snapshot root: stage/solution (and stage/bin for Go); empty before Prepare
	// stageDir holds the lock on the stage while it is in use.
	stageDir *runDir
	argv     []string
	hasBin   bool
}

// Detect finds the solution in dir: solution.py, else an executable file named run, else a Go main package
// (non-test .go files declaring package main).
func Detect(dir string) (*Solution, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: solution directory %q: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("no solution found in %s: the directory does not exist; create it with solution.py, an executable `run`, or a Go main package", abs)
	}
	s := &Solution{Dir: abs}
	if fi, err := os.Stat(filepath.Join(abs, "solution.py")); err == nil && fi.Mode().IsRegular() {
		s.Kind = KindPython
		s.Python = findPython()
		if s.Python == "" {
			return nil, fmt.Errorf("sandbox: %s needs python3, which was not found at %s or on PATH: install python3 and python3-numpy", filepath.Join(abs, "solution.py"), systemPython)
		}
		return s, nil
	}
	if fi, err := os.Stat(filepath.Join(abs, "run")); err == nil && fi.Mode().IsRegular() {
		if fi.Mode().Perm()&0o111 == 0 {
			return nil, fmt.Errorf("sandbox: %s is not executable: run `chmod +x %s`", filepath.Join(abs, "run"), filepath.Join(abs, "run"))
		}
		s.Kind = KindExecutable
		return s, nil
	}
	if isGoMain(abs) {
		s.Kind = KindGo
		return s, nil
	}
	return nil, fmt.Errorf("no solution found in %s: add solution.py, an executable `run`, or a Go main package", abs)
}

func findPython() string {
	if fi, err := os.Stat(systemPython); err == nil && !fi.IsDir() {
		return systemPython
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// isGoMain reports whether dir holds a non-test .go file in package main.
func isGoMain(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		if err == nil && af.Name.Name == "main" {
			return true
		}
	}
	return false
}

// Prepare snapshots the solution directory into a private stage readable by the sandbox user and, for a Go
// solution, builds it there. It is idempotent; Runner.Run calls it when it has not been called. The Go build
// runs in a sandbox like a star's (see buildGo) with a clean environment: no cgo, no network, the local
// toolchain only (GOTOOLCHAIN=local); the solution must be self-contained (standard library only). A Go
// solution needs CacheDir.
func (s *Solution) Prepare(ctx context.Context) error {
	return s.prepare(ctx, "")
}

// prepare is Prepare with the Go build cache under CacheDir, else under defaultCache.
func (s *Solution) prepare(ctx context.Context, defaultCache string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stage != "" {
		return nil
	}
	cache := s.CacheDir
	if cache == "" {
		cache = defaultCache
	}
	if s.Kind == KindGo && cache == "" {
		return errNoCacheDir
	}
	// The snapshot lives in the system's temporary directory, whose neutral path is all the sandbox's mount
	// table shows of it; its name carries this process's id and it is locked while in use, so that snapshots
	// left by killed runs are removed here, at the next Prepare.
	cleanStaleRunDirs(os.TempDir(), false)
	rd, err := newRunDir(os.TempDir(), "solution", 0o755)
	if err != nil {
		return fmt.Errorf("sandbox: creating the solution snapshot: %w (is TMPDIR writable?)", err)
	}
	stage := rd.path
	if err := copyTree(filepath.Join(stage, "solution"), s.Dir); err != nil {
		rd.remove()
		return err
	}
	switch s.Kind {
	case KindPython:
		s.argv = []string{s.Python, SolutionMount + "/solution.py"}
	case KindExecutable:
		s.argv = []string{SolutionMount + "/run"}
	case KindGo:
		if err := buildGo(ctx, s.Dir, stage, cache); err != nil {
			rd.remove()
			return err
		}
		s.hasBin = true
		s.argv = []string{binMount + "/solution"}
	default:
		rd.remove()
		return fmt.Errorf("sandbox: unknown solution kind %q: use Detect to make a Solution", s.Kind)
	}
	s.stage, s.stageDir = stage, rd
	return nil
}

// Close removes the snapshot made by Prepare.
func (s *Solution) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stage == "" {
		return nil
	}
	err := os.RemoveAll(s.stage)
	if s.stageDir != nil {
		s.stageDir.remove()
		s.stageDir = nil
	}
	s.stage = ""
	return err
}

// prepared returns the snapshot root, whether it has a bin directory, and the solution's argv without the
// star argument.
func (s *Solution) prepared() (stage string, hasBin bool, argv []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stage, s.hasBin, append([]string(nil), s.argv...)
}

// copyTree copies the directory src to dst (which must not exist), making every directory 0755 and every
// file 0644 (0755 when its owner may execute it) so that the sandbox user can read the copy. A symbolic link is
// copied as a link when it is relative and leads to a file inside src; one that is absolute, dangling or leads
// out of src (also through other links) is refused, and so is any other kind of file (a device, a FIFO, a
// socket): the snapshot holds the solution's own files only. (Inside the sandbox a link can anyway reach only
// the sandbox's own tree; this keeps the snapshot meaningful and the errors early.)
func copyTree(dst, src string) error {
	var total int64
	realSrc, err := filepath.EvalSymlinks(src)
	if err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("sandbox: copying the solution: %w", err)
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return fmt.Errorf("sandbox: copying the solution: %w", err)
			}
			// Resolved on the source (through any other links), the target must lie inside it.
			real, rerr := filepath.EvalSymlinks(path)
			if rerr == nil {
				real, rerr = filepath.Rel(realSrc, real)
			}
			if filepath.IsAbs(link) || rerr != nil || real == ".." || strings.HasPrefix(real, ".."+string(filepath.Separator)) {
				return fmt.Errorf("sandbox: %s is a symbolic link to %s, outside the solution directory or to nothing: a solution must hold its files itself (copy the target in, or make the link relative and inside)", path, link)
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("sandbox: copying the solution: %w", err)
			}
			total += info.Size()
			if total > MaxSolutionBytes {
				return fmt.Errorf("sandbox: the solution directory %s holds more than %d MiB: keep data sets and large files out of it", src, MaxSolutionBytes>>20)
			}
			mode := os.FileMode(0o644)
			if info.Mode()&0o100 != 0 {
				mode = 0o755
			}
			return copyFile(target, path, mode)
		}
		return fmt.Errorf("sandbox: %s is not a regular file, directory or link (%v): remove it from the solution", path, d.Type())
	})
}

func copyFile(dst, src string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	return os.Chmod(dst, mode) // the umask may have narrowed the mode given to OpenFile
}

var errNotPrepared = errors.New("sandbox: solution not prepared")
