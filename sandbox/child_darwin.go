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
