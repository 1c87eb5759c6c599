//go:build darwin

package sandbox

import (
	"errors"

	"transitbench/sandbox/internal/jail"
)

// probeSeccomp fails on macOS, which has no system-call filter of this kind.
func probeSeccomp() error { return errors.New("macOS has no seccomp filter") }

// closeInheritedFDs marks every descriptor above 2 that /dev/fd lists close-on-exec, so that the solution
// starts with stdin, stdout and stderr only.
func closeInheritedFDs() error { return jail.CloexecListed("/dev/fd", "") }

// filterFor has no filter to give on macOS.
func filterFor(on bool) ([]byte, error) {
	if on {
		return nil, errors.New("macOS has no seccomp filter")
	}
	return nil, nil
}

// jailSyscalls has no numbers on macOS: the child loads no filter and builds no root there.
var jailSyscalls jail.Syscalls
