package sets

import (
	"path/filepath"

	"transitbench/data"
)

// lockBuild takes an exclusive lock (data.LockFile) on home/sets/.lock-<key>, waiting for another build
// holding it, and returns its release. It keeps two processes, or two goroutines, from building the same
// set (or, with key "hidden", the hidden sets and their secret seed) at once.
func lockBuild(home, key string) (release func(), err error) {
	return data.LockFile(filepath.Join(home, "sets", ".lock-"+key))
}
