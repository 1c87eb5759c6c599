package sandbox

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"transitbench/sandbox/internal/jail"
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
	StarMount     = jail.StarMount
	SolutionMount = jail.SolutionMount
	binMount      = jail.BinMount
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
	sum      string // SnapshotSHA256 of the snapshot
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
	// table shows of it; its name is random and it is locked while in use, so that snapshots left by killed
	// runs are removed here, at the next Prepare. It is the runner's alone (0700): a star's child binds it
	// while still root. Only where a star reaches it by its host path as another user (as root without a mount
	// namespace, or in a user namespace) may others traverse it (0711), and its random name is not listable.
	cleanStaleRunDirs(os.TempDir(), false)
	mode := os.FileMode(0o700)
	if iso := Probe(); isRoot() && (!iso.namespaces || iso.userNS) {
		mode = 0o711
	}
	rd, err := newSnapshotDir(os.TempDir(), mode)
	if err != nil {
		return err
	}
	stage := rd.path
	sum, err := copyTree(filepath.Join(stage, "solution"), s.Dir)
	if err != nil {
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
	s.stage, s.stageDir, s.sum = stage, rd, sum
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

// SnapshotSHA256 returns the hash of what Prepare copied, "" before Prepare: the SHA-256, in hex, of the
// snapshot's manifest, one line per entry in lexical order of its slash-separated path,
//
//	dir <path>
//	file <mode, 0644 or 0755> <SHA-256 of the bytes copied, hex> <path>
//	link <target> <path>
//
// so that a caller can record exactly which code its stars ran (the bytes copied, not those on disk later).
func (s *Solution) SnapshotSHA256() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sum
}

// prepared returns the snapshot root, whether it has a bin directory, and the solution's argv without the
// star argument.
func (s *Solution) prepared() (stage string, hasBin bool, argv []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stage, s.hasBin, append([]string(nil), s.argv...)
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
