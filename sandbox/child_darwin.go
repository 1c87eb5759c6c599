//go:build darwin

package sandbox

import (
	"fmt"
	"os"
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
