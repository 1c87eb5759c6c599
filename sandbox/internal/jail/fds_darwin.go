//go:build darwin

package jail

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// CloexecListed marks every descriptor above 2 that the directory dir (/proc/self/fd, /dev/fd) lists
// close-on-exec.
// hint, when not empty, says in the error what to do when dir cannot be opened.
func CloexecListed(dir, hint string) error {
	d, err := os.Open(dir)
	if err != nil {
		if hint != "" {
			return fmt.Errorf("listing the open descriptors: %w (%s)", err, hint)
		}
		return fmt.Errorf("listing the open descriptors: %w", err)
	}
	names, err := d.Readdirnames(-1)
	self := int(d.Fd())
	d.Close()
	if err != nil {
		return fmt.Errorf("listing the open descriptors: %w", err)
	}
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 || fd == self {
			continue
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC); e != 0 && e != syscall.EBADF {
			return fmt.Errorf("marking descriptor %d close-on-exec: %w", fd, e)
		}
	}
	return nil
}
