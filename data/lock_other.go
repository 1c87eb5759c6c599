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
