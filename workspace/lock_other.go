//go:build !unix

package workspace

import "transitbench/data"

// tryLock takes the lock at path with data.LockFile, which waits for another holder in this process (there
// is no cross-process lock on these systems); it never returns errLocked.
func tryLock(path string) (release func(), holder int, err error) {
	release, err = data.LockFile(path)
	return release, 0, err
}
