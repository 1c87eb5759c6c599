//go:build unix

package sets

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockBuild takes an exclusive advisory lock (flock) on home/sets/.lock-<key>, waiting for another build
// holding it, and returns its release. It keeps two processes, or two goroutines, from building the same
// set (or, with key "hidden", the hidden sets and their secret seed) at once.
func lockBuild(home, key string) (release func(), err error) {
	dir := filepath.Join(home, "sets")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sets: cannot create the sets directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock-"+key), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sets: cannot open the build lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sets: cannot lock %s for building: %w", f.Name(), err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
