//go:build darwin

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"transitbench/sandbox/internal/jail"
)

// childMain is ChildMain on macOS: no cgroup and no namespaces; the configuration comes through the gate.
func childMain() {
	runtime.LockOSThread()
	var cfg childConfig
	if err := jail.ReadConfig(&cfg); err != nil {
		jail.Fail(err)
	}
	jail.WaitGate()
	if err := childSetup(&cfg); err != nil {
		jail.Fail(err)
	}
	os.Exit(0) // a probe: everything was set up
}

// childSetup runs in the child where there are no namespaces (macOS): limits, user, and the exec of the
// solution, which leads its own process group.
func childSetup(cfg *childConfig) error {
	if err := sealDescriptors(); err != nil {
		return err
	}
	if cfg.Dir != "" {
		if err := os.Chdir(cfg.Dir); err != nil {
			return fmt.Errorf("entering the solution directory: %w", err)
		}
	}
	if err := setChildLimits(cfg); err != nil {
		return err
	}
	if cfg.UID >= 0 {
		if err := becomeUser(cfg); err != nil {
			return err
		}
	}
	if cfg.Argv == nil {
		return nil
	}
	return execSolution(cfg)
}

// execCapped sets the address-space cap and executes the solution.
func execCapped(argv0 string, cfg *childConfig) error {
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: uint64(cfg.MemoryBytes), Max: uint64(cfg.MemoryBytes)}); err != nil {
		return fmt.Errorf("setting RLIMIT_AS to %d: %w", cfg.MemoryBytes, err)
	}
	err := syscall.Exec(argv0, cfg.Argv, cfg.Env)
	return fmt.Errorf("executing %s: %w", cfg.Argv[0], err)
}

// sealDescriptors marks the status pipe and every inherited descriptor above 2 close-on-exec. The exec of the
// solution then closes the status pipe: an empty pipe tells the runner the exec happened.
func sealDescriptors() error {
	if _, err := unix.FcntlInt(uintptr(childStatusFD), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fmt.Errorf("status pipe: %w", err)
	}
	return closeInheritedFDs()
}

// setChildLimits sets the per-process limits of the solution: no core files, and cfg's processes, file size
// and open files.
func setChildLimits(cfg *childConfig) error {
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0},
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, uint64(cfg.Processes)},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, uint64(cfg.FileBytes)},
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, uint64(cfg.OpenFiles)},
	}
	for _, l := range limits {
		if err := unix.Setrlimit(l.resource, &unix.Rlimit{Cur: l.value, Max: l.value}); err != nil {
			return fmt.Errorf("setting %s to %d: %w", l.name, l.value, err)
		}
	}
	return nil
}

// becomeUser drops the supplementary groups and takes cfg's group and user.
func becomeUser(cfg *childConfig) error {
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("dropping supplementary groups: %w", err)
	}
	if err := syscall.Setgid(cfg.GID); err != nil {
		return fmt.Errorf("setgid %d: %w", cfg.GID, err)
	}
	if err := syscall.Setuid(cfg.UID); err != nil {
		return fmt.Errorf("setuid %d: %w", cfg.UID, err)
	}
	return nil
}

// execSolution looks up the solution's program, caps the address space and executes it; it returns only on
// failure. The address-space cap comes last: it would also bind this process, which only has the exec left
// to do.
func execSolution(cfg *childConfig) error {
	argv0, err := jail.LookPath(cfg.Argv[0], cfg.Env)
	if err != nil {
		return err
	}
	return execCapped(argv0, cfg)
}
