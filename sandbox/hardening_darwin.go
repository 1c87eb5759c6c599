//go:build darwin

package sandbox

import "errors"

// probeSeccomp fails on macOS, which has no system-call filter of this kind.
func probeSeccomp() error { return errors.New("macOS has no seccomp filter") }

// closeInheritedFDs marks every descriptor above 2 that /dev/fd lists close-on-exec, so that the solution
// starts with stdin, stdout and stderr only.
func closeInheritedFDs() error { return cloexecListed("/dev/fd", "") }
