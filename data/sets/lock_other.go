//go:build !unix

package sets

import "sync"

var buildLocks sync.Map // key → *sync.Mutex

// lockBuild serialises builds of the same set within this process; on systems without flock two processes
// building the same set at once are not kept apart.
func lockBuild(home, key string) (release func(), err error) {
	m, _ := buildLocks.LoadOrStore(home+"\x00"+key, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock, nil
}
