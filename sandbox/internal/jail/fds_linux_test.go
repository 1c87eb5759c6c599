package jail

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCloexecFromProc checks the fallback for kernels without close_range: every descriptor above 2 that
// /proc/self/fd lists ends up close-on-exec.
func TestCloexecFromProc(t *testing.T) {
	fd, err := syscall.Open("/dev/null", syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
		t.Fatal("control: the descriptor is already close-on-exec")
	}
	if err := cloexecFromProc(); err != nil {
		t.Fatal(err)
	}
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor %d: flags %#x, %v; want FD_CLOEXEC", fd, flags, err)
	}
}
