//go:build linux && (386 || arm)

package jail

import "syscall"

// The system calls that change the user and groups of the calling thread alone, in their 32-bit forms.
const (
	sysSetgroups = syscall.SYS_SETGROUPS32
	sysSetgid    = syscall.SYS_SETGID32
	sysSetuid    = syscall.SYS_SETUID32
)
