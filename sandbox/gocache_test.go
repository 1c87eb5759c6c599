package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeCache makes a build cache at dir of n entries of size bytes each in two-hex-digit subdirectories, the
// i-th used i minutes after a fixed time, plus the go command's README at its top.
func fakeCache(t *testing.T, dir string, n, size int) {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("This directory holds cached build artifacts.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("%02x", i%256), fmt.Sprintf("entry%03d-d", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, at, at)
	}
}

func TestTrimGoCache(t *testing.T) {
	dir := t.TempDir()
	fakeCache(t, dir, 40, 1024) // 40 KiB
	if left := trimGoCache(dir, 64<<10); left < 40<<10 {
		t.Errorf("a cache under its cap was trimmed to %d bytes", left)
	}
	left := trimGoCache(dir, 20<<10)
	if left > 15<<10 {
		t.Errorf("%d bytes left, want at most 3/4 of the 20 KiB cap", left)
	}
	// Least recently used first: the oldest entries are gone, the newest and the README stay.
	for _, c := range []struct {
		i    int
		want bool
	}{{0, false}, {20, false}, {39, true}, {30, true}} {
		p := filepath.Join(dir, fmt.Sprintf("%02x", c.i), fmt.Sprintf("entry%03d-d", c.i))
		if _, err := os.Stat(p); (err == nil) != c.want {
			t.Errorf("entry %d: kept %v, want %v", c.i, err == nil, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "README")); err != nil {
		t.Errorf("the README went: %v", err)
	}
}

func TestTrimGoCaches(t *testing.T) {
	root := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Four caches of 10 KiB, built in the order a, b, c, d; b is in use (locked), d is the one being built.
	for i, name := range []string{"a", "b", "c", "d"} {
		dir := filepath.Join(root, name)
		fakeCache(t, dir, 10, 1024)
		if err := os.WriteFile(dir+".src", []byte("/nowhere/"+name), 0o600); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Hour)
		os.Chtimes(dir+".src", at, at)
	}
	lock, err := os.OpenFile(filepath.Join(root, "b.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	trimGoCaches(root, filepath.Join(root, "d"), 25<<10)
	for name, want := range map[string]bool{"a": false, "b": true, "c": false, "d": true} {
		_, err := os.Stat(filepath.Join(root, name))
		_, serr := os.Stat(filepath.Join(root, name+".src"))
		if (err == nil) != want || (serr == nil) != want {
			t.Errorf("cache %s: kept %v (.src %v), want %v", name, err == nil, serr == nil, want)
		}
	}
}

// TestGoBuildCachesCapped builds two solutions with caps below the seed's size: after each build the
// solution's cache is within its cap, the caches together within theirs (the first solution's cache goes when
// the second is built), and a build from a trimmed cache still works.
func TestGoBuildCachesCapped(t *testing.T) {
	requireFull(t)
	defer func(s, total int64) { goCacheSolutionBytes, goCacheTotalBytes = s, total }(goCacheSolutionBytes, goCacheTotalBytes)
	goCacheSolutionBytes, goCacheTotalBytes = 24<<20, 32<<20
	root := filepath.Join(t.TempDir(), "gobuild")
	build := func() string {
		sol := writeSolution(t, map[string]string{"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"ok\") }\n"})
		sol.CacheDir = root
		if err := sol.Prepare(context.Background()); err != nil {
			t.Fatal(err)
		}
		cache, err := goCacheDir(context.Background(), sol.Dir, "", root)
		if err != nil {
			t.Fatal(err)
		}
		if _, size := cacheFiles(cache); size > goCacheSolutionBytes {
			t.Errorf("the cache holds %d MiB after the build, over its %d MiB cap", size>>20, goCacheSolutionBytes>>20)
		}
		return cache
	}
	first := build()
	second := build()
	if _, total := cacheFiles(root); total > goCacheTotalBytes {
		t.Errorf("the caches hold %d MiB, over their %d MiB cap", total>>20, goCacheTotalBytes>>20)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the least recently built cache %s is still there (%v)", first, err)
	}
	if _, err := os.Stat(second); err != nil {
		t.Errorf("the cache just built went: %v", err)
	}
}
