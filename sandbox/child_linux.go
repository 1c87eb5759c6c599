package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// childSetup runs in the child: inherited descriptors marked close-on-exec, mounts (inside its own mount
// namespace), hostname, CPU, limits, user, no_new_privs, the system-call filter, and finally the exec of the
// solution, which makes the solution PID 1 of its PID namespace.
func childSetup(cfg *childConfig, status *os.File) error {
	if err := sealDescriptors(); err != nil {
		return err
	}
	if cfg.Namespaces {
		if err := setupMounts(cfg); err != nil {
			return err
		}
		// The new UTS namespace starts with the host's names: replace both.
		if err := unix.Sethostname([]byte("sandbox")); err != nil {
			return fmt.Errorf("sethostname: %w", err)
		}
		if err := unix.Setdomainname([]byte("(none)")); err != nil {
			return fmt.Errorf("setdomainname: %w", err)
		}
	}
	childStages.mark(stageChildRoot)
	if cfg.CPU >= 0 {
		var set unix.CPUSet
		set.Set(cfg.CPU)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return fmt.Errorf("pinning to CPU %d: %w", cfg.CPU, err)
		}
	}
	if cfg.Dir != "" {
		if err := os.Chdir(cfg.Dir); err != nil {
			return fmt.Errorf("entering the solution directory: %w", err)
		}
	}
	if err := setChildLimits(cfg); err != nil {
		return err
	}
	if err := dropCapabilityBounds(); err != nil {
		return err
	}
	childStages.mark(stageChildLimits)
	if cfg.UID >= 0 && !cfg.UserNS {
		if err := becomeUser(cfg); err != nil {
			return err
		}
	}
	childStages.mark(stageChildUser)
	// A change of user clears the parent-death signal; set it again so the child dies with the runner.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := applySeccomp(cfg); err != nil {
		return err
	}
	childStages.mark(stageChildSeccomp)
	if cfg.Argv == nil {
		return nil
	}
	return execSolution(cfg)
}

// execCapped sets the address-space cap and executes the solution. The cap binds this process too, whose
// address space may already be past it, so that after it no allocation may happen (the Go runtime aborts on a
// failed mmap, a garbage collection or a new goroutine's stack included): the exec's arguments are made
// first, the collector is stopped, and the cap and the exec are raw system calls.
func execCapped(argv0 string, cfg *childConfig) error {
	path, err := syscall.BytePtrFromString(argv0)
	if err != nil {
		return fmt.Errorf("executing %s: %w", cfg.Argv[0], err)
	}
	argv, err := syscall.SlicePtrFromStrings(cfg.Argv)
	if err != nil {
		return fmt.Errorf("executing %s: %w", cfg.Argv[0], err)
	}
	envv, err := syscall.SlicePtrFromStrings(cfg.Env)
	if err != nil {
		return fmt.Errorf("executing %s: %w", cfg.Argv[0], err)
	}
	lim := unix.Rlimit{Cur: uint64(cfg.MemoryBytes), Max: uint64(cfg.MemoryBytes)}
	debug.SetGCPercent(-1)
	if _, _, e := unix.RawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_AS, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		return fmt.Errorf("setting RLIMIT_AS to %d: %w", cfg.MemoryBytes, e)
	}
	_, _, e := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])),
		uintptr(unsafe.Pointer(&envv[0])))
	runtime.KeepAlive(argv)
	runtime.KeepAlive(envv)
	return fmt.Errorf("executing %s: %w", cfg.Argv[0], e)
}

// Secure bits (linux/securebits.h): an exec by root grants no capabilities, for good, and no ambient ones.
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

// dropCapabilityBounds empties the capability bounding set and makes the exec of the solution grant no
// capabilities even to root. That matters in a user namespace, where the solution runs as its root and would
// otherwise hold CAP_SYS_ADMIN over its own mounts (and could unmount the masks); as real root the change of
// user clears the capabilities anyway, and this is a second lock.
func dropCapabilityBounds() error {
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the last capability this kernel knows
			}
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	bits := secbitNoRoot | secbitNoRootLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
	}
	return nil
}
