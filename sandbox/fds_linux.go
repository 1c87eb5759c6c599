package sandbox

import "golang.org/x/sys/unix"

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
func cloexecFromProc() error { return cloexecListed("/proc/self/fd", "mount /proc") }
