package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The Go build caches' sizes. The go command never trims a cache by size (only entries unused for five days),
// and a build may write anything into its own cache, so each is capped here: one solution directory's cache
// at goCacheSolutionBytes, trimmed after every build that leaves it larger, least recently used entries first,
// down to three quarters of the cap; and all the caches of a cache root at goCacheTotalBytes, trimmed after
// every build and at the start of every run, whole caches of the least recently built solution directories
// first (never one in use). A fresh cache starts as a copy of the seed (about 40 MiB with Go 1.26), and a
// solution that imports much of the standard library adds a few hundred MiB. (Variables so that tests can
// lower them.)
var (
	goCacheSolutionBytes int64 = 512 << 20
	goCacheTotalBytes    int64 = 2 << 30
)

// cacheFile is one entry of a Go build cache.
type cacheFile struct {
	path  string
	size  int64
	mtime time.Time
}

// cacheFiles lists the regular files under dir with their sizes and modification times.
func cacheFiles(dir string) ([]cacheFile, int64) {
	var files []cacheFile
	var total int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			files = append(files, cacheFile{path, fi.Size(), fi.ModTime()})
			total += fi.Size()
		}
		return nil
	})
	return files, total
}

// trimGoCache removes the least recently used entries of the build cache dir (the go command refreshes an
// entry's modification time when it uses it, at most once an hour) until it holds at most 3/4 of max, when it
// holds more than max. It returns the size left. The caller holds the cache's lock.
func trimGoCache(dir string, max int64) int64 {
	files, total := cacheFiles(dir)
	if total <= max {
		return total
	}
	slices.SortFunc(files, func(a, b cacheFile) int { return a.mtime.Compare(b.mtime) })
	for _, f := range files {
		if total <= max/4*3 {
			break
		}
		if filepath.Dir(f.path) == dir {
			continue // the cache's own README and trim stamps, at its top
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
	return total
}

// trimGoCaches removes whole caches of root, the least recently built first (by the modification time of their
// .src file, which each build refreshes), until all of them together hold at most max. It skips keep and every
// cache whose lock another build holds.
func trimGoCaches(root, keep string, max int64) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	type cache struct {
		dir   string
		size  int64
		built time.Time
	}
	var caches []cache
	var total int64
	for _, e := range entries {
		key, ok := strings.CutSuffix(e.Name(), ".src")
		if !ok {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		dir := filepath.Join(root, key)
		_, size := cacheFiles(dir)
		caches = append(caches, cache{dir, size, info.ModTime()})
		total += size
	}
	slices.SortFunc(caches, func(a, b cache) int { return a.built.Compare(b.built) })
	for _, c := range caches {
		if total <= max {
			return
		}
		if c.dir == keep {
			continue
		}
		if removeGoCache(c.dir) {
			total -= c.size
		}
	}
}

// removeGoCache removes the cache dir with its lock and .src files, unless a build holds its lock.
func removeGoCache(dir string) bool {
	lock, err := os.OpenFile(dir+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); errors.Is(err, unix.EWOULDBLOCK) {
		return false
	}
	os.RemoveAll(dir)
	os.Remove(dir + ".src")
	os.Remove(dir + ".lock")
	return true
}

// cleanGoCaches removes the caches of root whose solution directory is gone and trims the rest to
// goCacheTotalBytes; runs call it when they clean their stale run directories.
func cleanGoCaches(root string) {
	if root == "" {
		return
	}
	pruneGoCaches(root)
	trimGoCaches(root, "", goCacheTotalBytes)
}
