package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Exit reasons of a Result (SPEC A5, A6).
const (
	ExitOK          = "ok"           // exited with status 0
	ExitCode        = "exit_code"    // exited with a non-zero status (Result.ExitCode)
	ExitTimeout     = "timeout"      // ran past its wall time (Job.WallTime or Limits.WallTime); the whole process tree was killed
	ExitSignal      = "signal"       // killed by a signal (Result.ExitCode = 128 + signal number)
	ExitOutputLimit = "output_limit" // printed more than Limits.StdoutBytes; killed as soon as it did
	ExitMemory      = "memory"       // ran out of memory: the tree passed Limits.MemoryBytes, or see classify
	ExitStartFailed = "start_failed" // the star or the sandbox could not be set up; Result.StderrTail says why
	ExitCancelled   = "cancelled"    // the run's context was cancelled while the star was running
)

// Job is one star to run. Prepare writes the star's files (lightcurve.csv, star.json) into dir, a fresh
// private directory that the runner then mounts read-only for the solution and removes afterwards.
type Job struct {
	StarID  string
	Prepare func(dir string) error
	// WallTime, when positive, replaces Limits.WallTime for this star (the RV track gives each task its tier's
	// time budget).
	WallTime time.Duration
}

// Result is the outcome of one star.
type Result struct {
	StarID       string
	Stdout       []byte        // at most Limits.StdoutBytes; only meaningful when ExitReason is "ok"
	StderrTail   string        // the last Limits.StderrBytes of stderr (and the setup error for start_failed)
	ExitReason   string        // one of the Exit* constants
	ExitCode     int           // the exit status; 128+signal for "signal"; -1 when the runner killed it
	Runtime      time.Duration // the solution's own wall time, from its exec to its end
	Isolation    string        // Isolation.String() of the run
	PeakRSSBytes int64         // peak resident set: of the solution and the processes it waited for, or of the tree
	Protections  Protections   // the hardening measures in force for this star
}

// Runner runs a solution over many stars, each in a fresh sandboxed process (SPEC A6).
type Runner struct {
	Workers       int    // stars run in parallel; default runtime.NumCPU()
	Limits        Limits // per-star limits; zero fields take their defaults
	AllowDegraded bool   // run a hidden set even when isolation is not full
	Hidden        bool   // the jobs belong to a hidden set: refuse to run them under degraded isolation
	// Home is the data directory (the sets, their answers, the results store: data.Home() for the callers).
	// It must be set: Run refuses to run without it (ErrNoHome) rather than run stars that nothing keeps from
	// the answers. It is masked in every star, the run directories are made under Home/run unless WorkDir is
	// set, and a Go solution without a Solution.CacheDir is built with its cache under Home/cache/gobuild.
	Home string
	// WorkDir is where the run's directory, holding the star directories, is created (default: the data
	// directory's run root, Home/run). It is masked in the sandbox.
	WorkDir string
	// UIDBase, when not 0, is the lowest user id the stars may run as: DefaultUIDBase (the default) to
	// 0x7FFDFFC0. When the runner is root every star runs as a user id that no earlier star on the machine has
	// had, from one counter that all processes share (see uid.go), with the same group id and no supplementary
	// groups. An id per star keeps RLIMIT_NPROC, which counts per user across the machine, a per-star cap, and
	// leaves nothing of a star in per-user kernel objects for the next one.
	UIDBase int

	isolation *Isolation         // replaces Probe's answer in tests
	onUID     func(uid int)      // called with each star's user id (tests, to look for survivors)
	onStages  func(t stageTimes) // called with each star's stages (the overhead benchmark; see stages.go)
}

// ErrNoHome is returned by Run when Runner.Home is empty: the sandbox does not know the data directory by
// itself, and a star must never run with it in view.
var ErrNoHome = errors.New("sandbox: Runner.Home is empty: the data directory must be masked from every star; " +
	"set Runner.Home to it (data.Home())")

// ErrDegraded is returned by Run for a hidden set when isolation is not full and AllowDegraded is false.
var ErrDegraded = errors.New("sandbox: isolation is degraded")

// Run runs sol on every job and sends one Result per star on results as stars finish, in completion order.
// It calls sol.Prepare when that has not been done. The caller must keep receiving from results until Run
// returns; Run never closes results.
//
// Cancelling ctx kills the running stars, which are delivered with ExitReason "cancelled"; jobs not yet
// started are not delivered, and Run returns ctx.Err(). To resume, run again with the jobs that were not
// delivered or were delivered as cancelled. Run returns an error without running anything when Home is not
// set (ErrNoHome), when the solution cannot be prepared or when a hidden set would run under degraded isolation.
func (r *Runner) Run(ctx context.Context, sol *Solution, jobs []Job, results chan<- Result) error {
	if r.Home == "" {
		return ErrNoHome
	}
	iso := Probe()
	if r.isolation != nil {
		iso = *r.isolation
	}
	cgroups, iso := runCgroups(iso)
	defer cgroups.remove()
	if r.Hidden && !iso.Full() && !r.AllowDegraded {
		return fmt.Errorf("%w (%s): refusing to run a hidden set; run as root on Linux with namespaces enabled, or pass --allow-degraded", ErrDegraded, iso)
	}
	if err := sol.prepare(ctx, goCacheRoot(r.Home)); err != nil {
		return err
	}
	stage, hasBin, argv := sol.prepared()
	if stage == "" {
		return errNotPrepared
	}
	if isRoot() && (!iso.namespaces || iso.userNS) {
		// The stars reach the snapshot by its host path as another user: let them traverse (not list) it.
		if err := os.Chmod(stage, 0o711); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	lim := r.Limits.withDefaults()
	rd, err := r.runDir(iso)
	if err != nil {
		return err
	}
	defer rd.remove()
	// The stars' directories are removed in the background as each star ends, before the run's.
	var removing sync.WaitGroup
	defer removing.Wait()
	root := rd.path
	// The Go build caches are cleaned with the run directories: those of gone solution directories removed,
	// the rest trimmed to their total cap.
	cleanGoCaches(goCacheRoot(r.Home))
	if sol.CacheDir != "" && sol.CacheDir != goCacheRoot(r.Home) {
		cleanGoCaches(sol.CacheDir)
	}

	mask := append([]string{r.Home, root, stage, sol.Dir, sol.CacheDir}, lim.Mask...)
	if ws := filepath.Dir(sol.Dir); ws != "/" {
		mask = append(mask, ws)
	}
	if mask, err = resolveMask(mask); err != nil {
		return err
	}
	if r.UIDBase != 0 && (r.UIDBase < DefaultUIDBase || r.UIDBase > uidEnd-uidBlock) {
		return fmt.Errorf("sandbox: Runner.UIDBase %d is outside the sandbox's user ids [%d, %d]: leave it 0 for the default",
			r.UIDBase, DefaultUIDBase, uidEnd-uidBlock)
	}
	filter, err := filterFor(iso.seccomp)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	workers := r.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	cpus := allowedCPUs()

	queue := make(chan int)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := &starRun{
				iso: iso, lim: lim, mask: mask, stage: stage, hasBin: hasBin, argv: argv, filter: filter, ahead: slotsAhead(iso),
				root: root, removing: &removing,
				cpu: -1, cgroups: cgroups, uidBase: r.UIDBase, onUID: r.onUID, onStages: r.onStages,
				strict: r.Hidden && !r.AllowDegraded,
			}
			defer st.closeSlots()
			if len(cpus) > 0 {
				st.cpu = cpus[w%len(cpus)]
			}
			for i := range queue {
				if ctx.Err() != nil {
					continue // handed over as the run was cancelled: not started, not delivered
				}
				res := st.run(ctx, jobs[i])
				results <- res
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case queue <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	return ctx.Err()
}

// starRun holds what every star of one worker shares.
type starRun struct {
	iso    Isolation
	lim    Limits
	mask   []string
	stage  string
	hasBin bool
	argv   []string
	cpu    int
	root   string // the run's directory, which holds the stars' directories

	uidBase  int                // Runner.UIDBase
	onUID    func(uid int)      // Runner.onUID
	onStages func(t stageTimes) // Runner.onStages
	trace    *starTrace         // the current star's stages, when onStages is set
	removing *sync.WaitGroup    // the stars' directories being removed; the run waits for them
	strict   bool               // a hidden set without --allow-degraded: a star runs with every available protection or not at all

	filter  []byte     // the system-call filter (jail.Config.Filter), nil without seccomp
	cgroups *runCgroup // the run's parent cgroup; nil without cgroups
	ahead   bool       // make the next star's slot while a star runs (slotsAhead)
	next    []*slot    // the next stars' slots, being made while a star runs
}

// runDir creates the run's directory: under WorkDir when set, else 0700 under the data directory's run root,
// after removing what runs that were killed left there. When the solution reaches the star by its host path as
// another user (no mount namespace, or a user namespace whose root is the star's user), the directory is made
// under the system's temporary directory instead, traversable but not listable (0711), so that user can reach
// its own star's randomly named directory but find no other.
func (r *Runner) runDir(iso Isolation) (*runDir, error) {
	base, anyName, mode := r.WorkDir, false, os.FileMode(0o700)
	if isRoot() && (!iso.namespaces || iso.userNS) {
		mode = 0o711
		if base == "" {
			base = os.TempDir()
		}
	}
	if base == "" {
		root, err := defaultRunRoot(r.Home)
		if err != nil {
			return nil, err
		}
		base, anyName = root, true
	}
	cleanStaleRunDirs(base, anyName)
	return newRunDir(base, "run", mode)
}

// runCgroups creates the run's parent cgroup when iso has cgroups. When that fails, the run goes on with
// isolation degraded for want of them.
func runCgroups(iso Isolation) (*runCgroup, Isolation) {
	if !iso.cgroup {
		return nil, iso
	}
	rc, err := newRunCgroup()
	if err != nil {
		iso.cgroup = false
		iso.Missing = append(append([]string(nil), iso.Missing...), "cgroup: creating the run's cgroup failed ("+err.Error()+")")
		return nil, iso
	}
	return rc, iso
}

// run prepares the star in its slot's directory (a new one under the run's), runs the solution on it and
// removes the directory (in the background, off the next star's path).
func (s *starRun) run(ctx context.Context, job Job) Result {
	if s.onStages != nil {
		s.trace = &starTrace{}
		s.trace.mark(stageStart)
		defer func() {
			s.trace.mark(stageDone)
			s.onStages(s.trace.t)
			s.trace = nil
		}()
	}
	res := Result{StarID: job.StarID, Isolation: s.iso.String(), ExitCode: -1}
	sl := s.takeSlot()
	s.makeNextSlot()
	defer s.removeDir(sl.dir)
	fail := func(reason, msg string) Result {
		sl.discard()
		res.ExitReason, res.StderrTail = reason, msg
		return res
	}
	if sl.dir == "" {
		return fail(ExitStartFailed, fmt.Sprintf("sandbox: %v", sl.err))
	}
	if job.Prepare != nil {
		if err := job.Prepare(sl.dir); err != nil {
			return fail(ExitStartFailed, fmt.Sprintf("sandbox: preparing star %s: %v", job.StarID, err))
		}
	}
	if err := makeReadable(sl.dir); err != nil {
		return fail(ExitStartFailed, "sandbox: "+err.Error())
	}
	if ctx.Err() != nil {
		return fail(ExitCancelled, "")
	}
	s.trace.mark(stagePrepared)
	if err := s.protect(&res, sl); err != nil {
		return fail(ExitStartFailed, err.Error())
	}
	s.trace.mark(stageUID)
	wall := s.lim.WallTime
	if job.WallTime > 0 {
		wall = job.WallTime
	}
	return s.exec(ctx, sl, wall, res)
}

// protect records the star's hardening: the fresh user id its slot took when the runner is root, and the
// protections that the isolation allows, in res.Protections. In a strict run a star that would lack one of
// those protections is not run.
func (s *starRun) protect(res *Result, sl *slot) error {
	res.Protections.Namespaces = s.iso.namespaces
	res.Protections.Seccomp = s.iso.seccomp
	if !isRoot() {
		return nil
	}
	if s.onUID != nil {
		s.onUID(sl.uid)
	}
	res.Protections.FreshUID = sl.fresh
	if s.strict && s.iso.freshUID && !sl.fresh {
		return fmt.Errorf("sandbox: no fresh user id for star %s (%v): a hidden set runs only with every "+
			"protection; fix the counter file or pass --allow-degraded", res.StarID, sl.uidErr)
	}
	return nil
}

// config is the child's configuration for the star in dir, run as the user uid (-1: the runner's).
func (s *starRun) config(dir string, uid int) childConfig {
	cfg := childConfig{
		Namespaces:  s.iso.namespaces,
		UserNS:      s.iso.userNS,
		Star:        dir,
		Solution:    filepath.Join(s.stage, "solution"),
		Mask:        s.mask,
		TmpBytes:    s.lim.TmpBytes,
		MemoryBytes: s.lim.MemoryBytes,
		Processes:   s.lim.Processes,
		FileBytes:   s.lim.FileBytes,
		OpenFiles:   s.lim.OpenFiles,
		UID:         uid,
		GID:         uid,
		CPU:         s.cpu,
		Filter:      s.filter,
	}
	if s.hasBin {
		cfg.Bin = filepath.Join(s.stage, "bin")
	}
	star, sol, bin, tmp := StarMount, SolutionMount, binMount, "/tmp"
	if !cfg.Namespaces {
		// Without a mount namespace the solution sees the host paths and shares the host's /tmp.
		star, sol, bin, tmp = cfg.Star, cfg.Solution, cfg.Bin, os.TempDir()
	}
	for _, a := range s.argv {
		a = strings.Replace(a, SolutionMount, sol, 1)
		a = strings.Replace(a, binMount, bin, 1)
		cfg.Argv = append(cfg.Argv, a)
	}
	cfg.Argv = append(cfg.Argv, star)
	cfg.Dir = sol
	cfg.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + tmp,
		"TMPDIR=" + tmp,
		"LANG=C.UTF-8",
		"OMP_NUM_THREADS=1",
		"OPENBLAS_NUM_THREADS=1",
		"MKL_NUM_THREADS=1",
		"NUMEXPR_NUM_THREADS=1",
		"GOMAXPROCS=1",
		"PYTHONDONTWRITEBYTECODE=1",
		"MPLCONFIGDIR=" + tmp,
		"TRANSITBENCH_STAR_DIR=" + star,
	}
	return cfg
}

// makeReadable opens the star directory to the sandbox user: directories 0755, files at least 0644.
func makeReadable(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm() | 0o444
		if d.IsDir() || mode&0o100 != 0 {
			mode |= 0o111
		}
		if mode != info.Mode().Perm() {
			return os.Chmod(path, mode)
		}
		return nil
	})
}

// classify turns how the solution ended into an exit reason and code. A failure is put down to memory when
// the solution was killed by SIGKILL that the runner did not send (the kernel's OOM killer) or when its stderr
// ends with a known out-of-memory message (the address-space cap makes allocations fail rather than kill).
func classify(ws syscall.WaitStatus, stderrTail string) (reason string, code int) {
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		return ExitOK, 0
	case ws.Exited():
		if outOfMemory(stderrTail) {
			return ExitMemory, ws.ExitStatus()
		}
		return ExitCode, ws.ExitStatus()
	case ws.Signaled():
		code := 128 + int(ws.Signal())
		if ws.Signal() == syscall.SIGKILL || outOfMemory(stderrTail) {
			return ExitMemory, code
		}
		return ExitSignal, code
	}
	return ExitSignal, -1
}

// oomMessages are the ends of stderr that mean an allocation failed, from Python (MemoryError, numpy's
// "Unable to allocate"), Go ("runtime: out of memory"), C++ (std::bad_alloc) and C/shell tools.
var oomMessages = []string{"MemoryError", "Unable to allocate", "out of memory", "std::bad_alloc",
	"Cannot allocate memory", "cannot allocate memory"}

func outOfMemory(stderrTail string) bool {
	tail := stderrTail
	if len(tail) > 2048 {
		tail = tail[len(tail)-2048:]
	}
	for _, m := range oomMessages {
		if strings.Contains(tail, m) {
			return true
		}
	}
	return false
}
