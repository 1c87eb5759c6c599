package jail

import (
	"strconv"
	"syscall"
)

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC (linux/close_range.h).
const closeRangeCloexec = 1 << 2

// closeInheritedFDs marks every descriptor above 2 close-on-exec, so that the solution starts with stdin, stdout
// and stderr only. Go opens its own descriptors close-on-exec, but a descriptor that the program starting the
// runner left open without the flag is inherited by every child Go starts: a directory of the host would let
// the solution walk out of its mount namespace with fchdir, a file would hand it data or a place to write. It
// uses close_range(2) (system call closeRange) with CLOSE_RANGE_CLOEXEC (Linux 5.11) and otherwise walks
// /proc/self/fd.
func closeInheritedFDs(closeRange int) error {
	if closeRange > 0 {
		if _, _, e := syscall.RawSyscall(uintptr(closeRange), 3, ^uintptr(0), closeRangeCloexec); e == 0 {
			return nil
		}
	}
	return cloexecFromProc()
}

// cloexecFromProc marks every descriptor above 2 that /proc/self/fd lists close-on-exec.
func cloexecFromProc() error {
	fd, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return errorf("listing the open descriptors: %w (mount /proc)", err)
	}
	entries, err := readDir(fd)
	syscall.Close(fd)
	if err != nil {
		return errorf("listing the open descriptors: %w", err)
	}
	for _, e := range entries {
		n, err := strconv.Atoi(e.name)
		if err != nil || n <= 2 || n == fd {
			continue
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(n), syscall.F_SETFD, syscall.FD_CLOEXEC); e != 0 && e != syscall.EBADF {
			return errorf("marking descriptor %d close-on-exec: %w", n, e)
		}
	}
	return nil
}
