//go:build !unix

package data

import "sync"

var fileLocks sync.Map // path → *sync.Mutex

// LockFile serialises the holders of the lock at path within this process and returns its release; on systems
// without flock two processes are not kept apart.
func LockFile(path string) (release func(), err error) {
	m, _ := fileLocks.LoadOrStore(path, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock, nil
}

// TryLockFile is LockFile here: it waits for another holder in this process (there is no cross-process lock on
// these systems), so it never returns ErrLocked.
func TryLockFile(path string) (release func(), holder int, err error) {
	release, err = LockFile(path)
	return release, 0, err
}
