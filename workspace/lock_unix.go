//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// tryLock takes the exclusive advisory lock (flock) on the file at path without waiting, and writes this
// process's ID into the file. When another process (or another open file of this one) holds the lock it
// returns errLocked and the holder's process ID as the file records it (0 when it has not written it yet).
// The kernel drops the lock when its holder ends, so a crashed run never stays locked.
func tryLock(path string) (release func(), holder int, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, 0, fmt.Errorf("workspace: cannot create the directory of the lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("workspace: cannot open the lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		b, _ := os.ReadFile(path)
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return nil, pid, errLocked
	}
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("workspace: cannot lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, 0, nil
}
