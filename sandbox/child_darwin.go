//go:build darwin

package sandbox

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// childSetup runs in the child where there are no namespaces (macOS): limits, user, and the exec of the
// solution, which leads its own process group.
func childSetup(cfg *childConfig, status *os.File) error {
	if _, err := unix.FcntlInt(uintptr(childStatusFD), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fmt.Errorf("status pipe: %w", err)
	}
	if err := closeInheritedFDs(); err != nil {
		return err
	}
	if cfg.Dir != "" {
		if err := os.Chdir(cfg.Dir); err != nil {
			return fmt.Errorf("entering the solution directory: %w", err)
		}
	}
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
	if cfg.UID >= 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("dropping supplementary groups: %w", err)
		}
		if err := syscall.Setgid(cfg.GID); err != nil {
			return fmt.Errorf("setgid %d: %w", cfg.GID, err)
		}
		if err := syscall.Setuid(cfg.UID); err != nil {
			return fmt.Errorf("setuid %d: %w", cfg.UID, err)
		}
	}
	if cfg.Argv == nil {
		return nil
	}
	argv0, err := lookPath(cfg.Argv[0], cfg.Env)
	if err != nil {
		return err
	}
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: uint64(cfg.MemoryBytes), Max: uint64(cfg.MemoryBytes)}); err != nil {
		return fmt.Errorf("setting RLIMIT_AS to %d: %w", cfg.MemoryBytes, err)
	}
	err = syscall.Exec(argv0, cfg.Argv, cfg.Env)
	return fmt.Errorf("executing %s: %w", cfg.Argv[0], err)
}
