package workspace

import (
	"errors"
	"time"

	"transitbench/data"
)

// lockSettle is how long a resume waits for a run's lock before saying who holds it: a process killed a moment
// ago can leave its lock held for that long by a child it had forked and not yet executed (the child inherits
// the descriptor until its exec closes it, and dies with its parent).
const lockSettle = 2 * time.Second

// tryLockSettling is data.TryLockFile, tried again for up to lockSettle while the lock is held.
func tryLockSettling(path string) (release func(), holder int, err error) {
	deadline := time.Now().Add(lockSettle)
	for {
		release, holder, err = data.TryLockFile(path)
		if !errors.Is(err, data.ErrLocked) || time.Now().After(deadline) {
			return release, holder, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
