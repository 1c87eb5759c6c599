package jail

import (
	"errors"
	"runtime"
	"syscall"
	"unsafe"
)

// Main sets up the sandbox in the current process (mounts, limits, user, filter) and executes the solution in
// its place. It never returns. When setup fails it writes the reason to the status pipe and exits with 127.
//
// The setup comes in two parts, on either side of the gate's second opening. Once the runner has moved the
// process into the star's cgroup it sends the configuration, and the child builds the sandbox's root and enters
// it (prepare): that needs nothing of the star but its directory, empty until then, and so happens ahead, while
// the worker's previous star still runs. When the star's files are in that directory the runner sends one more
// byte, and the child copies them in, takes its limits, its user and its filter and executes the solution
// (finish).
func Main() {
	// Affinity, no_new_privs and the parent-death signal belong to a thread: set them on the thread that
	// executes the solution.
	runtime.LockOSThread()
	entered := MonotonicNow()
	// The program is started by its descriptor (/proc/self/fd/N), which would be its name in ps: give it one.
	name := [16]byte{}
	copy(name[:15], "sandbox-child")
	syscall.RawSyscall6(syscall.SYS_PRCTL, prSetName, uintptr(unsafe.Pointer(&name[0])), 0, 0, 0, 0)
	var cfg Config
	if err := ReadConfig(&cfg); err != nil { // once the runner has moved this process into the star's cgroup
		Fail(err)
	}
	if cfg.Trace {
		stages = &Stages{}
		stages[StageMain] = entered
		stages.mark(StageConfig)
	}
	star, err := prepare(&cfg)
	if err != nil {
		Fail(err)
	}
	WaitGate() // until the star's files are ready
	stages.mark(StageGate)
	if err := finish(&cfg, star); err != nil {
		Fail(err)
	}
	syscall.Exit(0) // a probe: everything was set up
}

// Constants of linux/prctl.h and linux/securebits.h that the syscall package lacks.
const (
	prSetPdeathsig   = 1
	prSetName        = 15
	prCapbsetDrop    = 24
	prSetSecurebits  = 28
	prSetNoNewPrivs  = 38
	seccompModeFiltr = 1 // SECCOMP_SET_MODE_FILTER
	seccompFlagTsync = 1 // SECCOMP_FILTER_FLAG_TSYNC

	// An exec by root grants no capabilities, for good, and no ambient ones.
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

func prctl(option, arg2 uintptr) error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg2, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// prepare is the part of the setup that needs nothing of the star but its directory: inherited descriptors
// marked close-on-exec, the capability bounds dropped, the root built and entered (inside the child's own mount
// namespace) and the names. It
// returns the star's directory, held open as a descriptor (-1 without namespaces: the solution then reads it by
// its host path).
func prepare(cfg *Config) (star int, err error) {
	if err := sealDescriptors(cfg); err != nil {
		return -1, err
	}
	// The bounding set and the securebits only bind what an exec may grant: the rest of the setup keeps the
	// capabilities it has.
	if err := dropCapabilityBounds(); err != nil {
		return -1, err
	}
	if !cfg.Namespaces {
		return -1, nil
	}
	if star, err = setupMounts(cfg); err != nil {
		return -1, err
	}
	// The new UTS namespace starts with the host's names: replace both.
	if err := rawSetName(syscall.SYS_SETHOSTNAME, "sandbox"); err != nil {
		return -1, errorf("sethostname: %w", err)
	}
	if err := rawSetName(syscall.SYS_SETDOMAINNAME, "(none)"); err != nil {
		return -1, errorf("setdomainname: %w", err)
	}
	stages.mark(StageRoot)
	return star, nil
}

// finish runs once the star's files are ready: they are copied in from star (when not -1), then come the CPU,
// the limits, the user, no_new_privs, the system-call filter, and finally the exec of the solution, which makes
// the solution PID 1 of its PID namespace.
func finish(cfg *Config, star int) error {
	if star >= 0 {
		if err := copyStar(star, StarMount); err != nil {
			return err
		}
	}
	stages.mark(StageStar)
	if cfg.CPU >= 0 {
		var set [16]uint64 // 1024 CPUs
		if cfg.CPU >= 64*len(set) {
			return errorf("pinning to CPU %d: past the last CPU a mask here can name", cfg.CPU)
		}
		set[cfg.CPU/64] |= 1 << (cfg.CPU % 64)
		if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(set), uintptr(unsafe.Pointer(&set))); e != 0 {
			return errorf("pinning to CPU %d: %w", cfg.CPU, e)
		}
	}
	if cfg.Dir != "" {
		if err := syscall.Chdir(cfg.Dir); err != nil {
			return errorf("entering the solution directory: %w", err)
		}
	}
	if err := setLimits(cfg); err != nil {
		return err
	}
	stages.mark(StageLimits)
	if cfg.UID >= 0 && !cfg.UserNS {
		if err := becomeUser(cfg); err != nil {
			return err
		}
	}
	stages.mark(StageUser)
	// A change of user clears the parent-death signal; set it again so the child dies with the runner.
	if err := prctl(prSetPdeathsig, uintptr(syscall.SIGKILL)); err != nil {
		return errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := applySeccomp(cfg); err != nil {
		return err
	}
	stages.mark(StageSeccomp)
	if cfg.Argv == nil {
		return nil
	}
	return execSolution(cfg)
}

// sealDescriptors marks the status pipe and every inherited descriptor above 2 close-on-exec. The exec of the
// solution then closes the status pipe: an empty pipe tells the runner the exec happened.
func sealDescriptors(cfg *Config) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, StatusFD, syscall.F_SETFD, syscall.FD_CLOEXEC); e != 0 {
		return errorf("status pipe: %w", e)
	}
	return closeInheritedFDs(cfg.Sys.CloseRange)
}

// setLimits sets the per-process limits of the solution: no core files, and cfg's processes, file size and
// open files.
func setLimits(cfg *Config) error {
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"RLIMIT_CORE", syscall.RLIMIT_CORE, 0},
		{"RLIMIT_NPROC", rlimitNproc, uint64(cfg.Processes)},
		{"RLIMIT_FSIZE", syscall.RLIMIT_FSIZE, uint64(cfg.FileBytes)},
		{"RLIMIT_NOFILE", syscall.RLIMIT_NOFILE, uint64(cfg.OpenFiles)},
	}
	for _, l := range limits {
		if err := syscall.Setrlimit(l.resource, &syscall.Rlimit{Cur: l.value, Max: l.value}); err != nil {
			return errorf("setting %s to %d: %w", l.name, l.value, err)
		}
	}
	return nil
}

// rlimitNproc is RLIMIT_NPROC (asm-generic/resource.h; the same on the architectures Go supports but mips,
// sparc and alpha).
const rlimitNproc = 6

// dropCapabilityBounds empties the capability bounding set and makes the exec of the solution grant no
// capabilities even to root. That matters in a user namespace, where the solution runs as its root and would
// otherwise hold CAP_SYS_ADMIN over its own mounts (and could unmount the masks); as real root the change of
// user clears the capabilities anyway, and this is a second lock.
func dropCapabilityBounds() error {
	for c := 0; c <= 63; c++ {
		if err := prctl(prCapbsetDrop, uintptr(c)); err != nil {
			if errors.Is(err, syscall.EINVAL) {
				break // past the last capability this kernel knows
			}
			return errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	bits := secbitNoRoot | secbitNoRootLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
	if err := prctl(prSetSecurebits, uintptr(bits)); err != nil {
		return errorf("prctl(PR_SET_SECUREBITS): %w", err)
	}
	return nil
}

// becomeUser drops the supplementary groups and takes cfg's group and user, on this thread alone: the one that
// executes the solution, which leaves the other threads behind (the syscall package's Setuid would stop every
// thread of the process in turn to change it too).
func becomeUser(cfg *Config) error {
	if _, _, e := syscall.RawSyscall(sysSetgroups, 0, 0, 0); e != 0 {
		return errorf("dropping supplementary groups: %w", e)
	}
	if _, _, e := syscall.RawSyscall(sysSetgid, uintptr(cfg.GID), 0, 0); e != 0 {
		return errorf("setgid %d: %w", cfg.GID, e)
	}
	if _, _, e := syscall.RawSyscall(sysSetuid, uintptr(cfg.UID), 0, 0); e != 0 {
		return errorf("setuid %d: %w", cfg.UID, e)
	}
	return nil
}

// applySeccomp loads cfg's filter, when it has one, for every thread of the process
// (SECCOMP_FILTER_FLAG_TSYNC); the exec of the solution keeps it, and every process the solution starts
// inherits it. It needs no_new_privs, which setup sets before. In a probe (no Argv) it also checks that the
// filter refuses a call. Its errors start with "seccomp:", which the probe recognises.
func applySeccomp(cfg *Config) error {
	if cfg.Filter == nil {
		return nil
	}
	const insn = 8 // sizeof(struct sock_filter)
	if len(cfg.Filter) == 0 || len(cfg.Filter)%insn != 0 || len(cfg.Filter)/insn > 0xFFFF {
		return errorf("seccomp: the filter is %d bytes, not a whole number of instructions", len(cfg.Filter))
	}
	prog := struct {
		len    uint16
		filter unsafe.Pointer
	}{uint16(len(cfg.Filter) / insn), unsafe.Pointer(&cfg.Filter[0])}
	tid, _, errno := syscall.RawSyscall(uintptr(cfg.Sys.Seccomp), seccompModeFiltr, seccompFlagTsync, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(cfg.Filter)
	switch {
	case errno != 0:
		return errorf("seccomp: loading the system-call filter: %w (the kernel needs CONFIG_SECCOMP_FILTER)", errno)
	case tid != 0:
		return errorf("seccomp: thread %d could not take the system-call filter", tid)
	}
	if cfg.Argv == nil {
		return checkSeccomp(cfg.Sys.Setns)
	}
	return nil
}

// checkSeccomp proves, in a probe child that installed the filter, that it refuses a call: setns on an invalid
// descriptor fails with EBADF without the filter and with EPERM under it.
func checkSeccomp(setns int) error {
	_, _, e := syscall.RawSyscall(uintptr(setns), ^uintptr(0), 0, 0)
	if e == syscall.EPERM {
		return nil
	}
	return errorf("seccomp: the filter was loaded but setns(-1, 0) returned %v instead of EPERM", e)
}

// execSolution looks up the solution's program, caps the address space and executes it; it returns only on
// failure. The address-space cap comes last: it would also bind this process, which only has the exec left
// to do.
func execSolution(cfg *Config) error {
	argv0, err := LookPath(cfg.Argv[0], cfg.Env)
	if err != nil {
		return err
	}
	writeStages()
	return execCapped(argv0, cfg)
}

// execCapped sets the address-space cap and executes the solution. The cap binds this process too, whose
// address space may already be past it, so that after it no allocation may happen (the Go runtime aborts on a
// failed mmap, a garbage collection or a new goroutine's stack included): the exec's arguments are made
// first, the collector never runs (the runner starts the child with GOGC=off), and the cap and the exec are raw
// system calls.
func execCapped(argv0 string, cfg *Config) error {
	path, err := syscall.BytePtrFromString(argv0)
	if err != nil {
		return errorf("executing %s: %w", cfg.Argv[0], err)
	}
	argv, err := syscall.SlicePtrFromStrings(cfg.Argv)
	if err != nil {
		return errorf("executing %s: %w", cfg.Argv[0], err)
	}
	envv, err := syscall.SlicePtrFromStrings(cfg.Env)
	if err != nil {
		return errorf("executing %s: %w", cfg.Argv[0], err)
	}
	lim := syscall.Rlimit{Cur: uint64(cfg.MemoryBytes), Max: uint64(cfg.MemoryBytes)}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, syscall.RLIMIT_AS, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		return errorf("setting RLIMIT_AS to %d: %w", cfg.MemoryBytes, e)
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])),
		uintptr(unsafe.Pointer(&envv[0])))
	runtime.KeepAlive(argv)
	runtime.KeepAlive(envv)
	return errorf("executing %s: %w", cfg.Argv[0], e)
}
