package sandbox

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeInheritedFDs marks every descriptor above 2 close-on-exec, so that the solution starts with stdin, stdout
// and stderr only. Go opens its own descriptors close-on-exec, but a descriptor that the program starting the
// runner left open without the flag is inherited by every child Go starts: a directory of the host would let
// the solution walk out of its mount namespace with fchdir, a file would hand it data or a place to write. It
// uses close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11) and otherwise walks /proc/self/fd.
func closeInheritedFDs() error {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	return cloexecFromProc()
}

// cloexecFromProc marks every descriptor above 2 that /proc/self/fd lists close-on-exec.
func cloexecFromProc() error {
	dir, err := os.Open("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("listing the open descriptors: %w (mount /proc)", err)
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
