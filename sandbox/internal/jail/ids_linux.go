//go:build linux && !386 && !arm

package jail

import "syscall"

// The system calls that change the user and groups of the calling thread alone (the syscall package's Setuid,
// Setgid and Setgroups change every thread of the process, signalling each).
const (
	sysSetgroups = syscall.SYS_SETGROUPS
	sysSetgid    = syscall.SYS_SETGID
	sysSetuid    = syscall.SYS_SETUID
)
