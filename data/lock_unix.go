//go:build unix

package data

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// LockFile takes an exclusive advisory lock (flock) on the file at path, creating the file and its directory
// when missing, and returns its release. It waits while another process holds the lock; goroutines of one
// process exclude each other too, since each call opens the file afresh and flock locks belong to the open
// file. The lock is released by the kernel when the process ends, so a crash never leaves it held.
func LockFile(path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("data: cannot create the directory of the lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data: cannot open the lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data: cannot lock %s: %w", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
