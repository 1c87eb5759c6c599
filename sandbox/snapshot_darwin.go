package sandbox

import "golang.org/x/sys/unix"

// openNoFollow opens name (one component) in the directory dirfd without following a link.
func openNoFollow(dirfd int, name string, flags int) (int, error) {
	return unix.Openat(dirfd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}
