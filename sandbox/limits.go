package sandbox

import (
	"fmt"
	"path/filepath"
	"time"
)

// Limits bounds what one star's run may use. A zero field takes the default named in its comment.
type Limits struct {
	// WallTime is the wall-clock limit of one star (default 60 s).
	WallTime time.Duration
	// MemoryBytes caps the solution's address space (RLIMIT_AS) and, with a cgroup, all the memory the star's
	// processes hold together, page cache, tmpfs and kernel memory included (default 4 GiB).
	MemoryBytes int64
	// Processes caps the number of processes and threads of the sandbox user (RLIMIT_NPROC) and of the star's
	// cgroup (pids.max; default 256).
	Processes int
	// FileBytes caps the size of any file the solution writes (RLIMIT_FSIZE; default 1 GiB).
	FileBytes int64
	// OpenFiles caps open file descriptors (RLIMIT_NOFILE; default 1024).
	OpenFiles int
	// TmpBytes is the size of the private tmpfs mounted at /tmp, the solution's TMPDIR and HOME (default 1 GiB).
	// tmpfs pages are host memory that RLIMIT_AS does not count; the star's cgroup, where there is one, counts
	// them against MemoryBytes.
	TmpBytes int64
	// StdoutBytes is the most stdout a solution may print; more kills it with ExitReason "output_limit"
	// (default 1 MiB, SPEC A5).
	StdoutBytes int
	// StderrBytes is how much of the end of stderr is kept (default 64 KiB, SPEC A5).
	StderrBytes int
	// Mask lists paths (directories or files) hidden from the solution behind an empty read-only tmpfs
	// (a file: behind an empty file). Paths that do not exist are ignored, and so are those outside the
	// sandbox's tree (all but /usr, /bin, /sbin, /lib* and /etc/alternatives), which it never shows. The
	// runner always adds the data directory (Runner.Home), its own working directory, the solution's source
	// directory and the directory holding it (the workspace).
	Mask []string
}

// Defaults of Limits (SPEC A5, A6).
const (
	DefaultWallTime    = 60 * time.Second
	DefaultMemoryBytes = 4 << 30
	DefaultProcesses   = 256
	DefaultFileBytes   = 1 << 30
	DefaultOpenFiles   = 1024
	DefaultTmpBytes    = 1 << 30
	DefaultStdoutBytes = 1 << 20
	DefaultStderrBytes = 64 << 10
)

// withDefaults returns l with every zero field set to its default.
func (l Limits) withDefaults() Limits {
	orDefault(&l.WallTime, DefaultWallTime)
	orDefault(&l.MemoryBytes, DefaultMemoryBytes)
	orDefault(&l.Processes, DefaultProcesses)
	orDefault(&l.FileBytes, DefaultFileBytes)
	orDefault(&l.OpenFiles, DefaultOpenFiles)
	orDefault(&l.TmpBytes, DefaultTmpBytes)
	orDefault(&l.StdoutBytes, DefaultStdoutBytes)
	orDefault(&l.StderrBytes, DefaultStderrBytes)
	return l
}

// orDefault sets *v to def when it is zero or negative.
func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// resolveMask makes every path absolute and resolves symbolic links, so the mount inside the sandbox covers
// the real directory. Paths that do not exist are dropped; there is nothing to hide.
func resolveMask(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("sandbox: mask path %q: %w", p, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue
		}
		if real == "/" {
			return nil, fmt.Errorf("sandbox: cannot mask the filesystem root (from mask path %q): list the directories to hide instead", p)
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, real)
		}
	}
	return out, nil
}
