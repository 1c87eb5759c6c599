//go:build darwin

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// probeSeccomp fails on macOS, which has no system-call filter of this kind.
func probeSeccomp() error { return errors.New("macOS has no seccomp filter") }

// closeInheritedFDs marks every descriptor above 2 that /dev/fd lists close-on-exec, so that the solution
// starts with stdin, stdout and stderr only.
func closeInheritedFDs() error {
	dir, err := os.Open("/dev/fd")
	if err != nil {
		return fmt.Errorf("listing the open descriptors: %w", err)
	}
	names, err := dir.Readdirnames(-1)
	self := int(dir.Fd())
	dir.Close()
	if err != nil {
		return fmt.Errorf("listing the open descriptors: %w", err)
	}
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 || fd == self {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("marking descriptor %d close-on-exec: %w", fd, err)
		}
	}
	return nil
}
