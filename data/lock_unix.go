//go:build unix

package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockFile takes an exclusive advisory lock (flock) on the file at path, creating the file and its directory
// when missing, and returns its release. It waits while another process holds the lock; goroutines of one
// process exclude each other too, since each call opens the file afresh and flock locks belong to the open
// file. The lock is released by the kernel when the process ends, so a crash never leaves it held.
func LockFile(path string) (release func(), err error) {
	f, err := openLock(path, 0o755, syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	return unlock(f), nil
}

// TryLockFile is LockFile without the wait, for locks that say who holds them: it creates the directory 0700,
// and on success writes this process's ID into the file. When another holder has the lock it returns ErrLocked
// and the holder's process ID as the file records it (0 when it has not written it yet).
func TryLockFile(path string) (release func(), holder int, err error) {
	f, err := openLock(path, 0o700, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		b, _ := os.ReadFile(path)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return nil, pid, ErrLocked
	}
	if err != nil {
		return nil, 0, err
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return unlock(f), 0, nil
}

// openLock opens (creating it and its directory, made with dirMode) the lock file at path and flocks it with
// how; a failed lock closes the file and returns an error wrapping the flock error.
func openLock(path string, dirMode os.FileMode, how int) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return nil, fmt.Errorf("data: cannot create the directory of the lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data: cannot open the lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data: cannot lock %s: %w", path, err)
	}
	return f, nil
}

func unlock(f *os.File) func() {
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
