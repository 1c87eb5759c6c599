package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestUIDAllocatorShared has two allocators on one counter file, as two processes would have (flock locks belong
// to the open file, so the two contend like processes), hand out ids from many goroutines at once: no id twice,
// every one fresh and in the range, and a third allocator, a later process, starts above them all.
func TestUIDAllocatorShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run", "uid")
	a, b := &uidAllocator{path: path}, &uidAllocator{path: path}
	const perWorker = 150 // more than two blocks each
	var mu sync.Mutex
	seen := map[int]int{}
	var wg sync.WaitGroup
	for w := range 8 {
		alloc := a
		if w%2 == 1 {
			alloc = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perWorker {
				uid, fresh, err := alloc.take(0)
				if err != nil || !fresh {
					t.Errorf("take: %d fresh=%v err=%v", uid, fresh, err)
					return
				}
				mu.Lock()
				seen[uid]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	highest := 0
	for uid, n := range seen {
		if n > 1 {
			t.Errorf("uid %d handed out %d times", uid, n)
		}
		if uid < DefaultUIDBase || uid >= uidEnd {
			t.Errorf("uid %d outside [%d, %d)", uid, DefaultUIDBase, uidEnd)
		}
		highest = max(highest, uid)
	}
	if len(seen) != 8*perWorker {
		t.Errorf("%d distinct ids, want %d", len(seen), 8*perWorker)
	}
	// The directory holding the counter is root's alone, the file 0600.
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %v", p, fi.Mode().Perm(), err, want)
		}
	}
	later := &uidAllocator{path: path}
	if uid, fresh, err := later.take(0); err != nil || !fresh || uid <= highest {
		t.Errorf("a later allocator took %d (fresh %v, %v), want a fresh id above %d", uid, fresh, err, highest)
	}
}

// TestUIDAllocatorRange covers a base above the counter, the wrap at the end of the range and a base that
// leaves no room.
func TestUIDAllocatorRange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uid")
	a := &uidAllocator{path: path}
	first, _, _ := a.take(0)
	if first != DefaultUIDBase {
		t.Errorf("first id from an empty counter = %d, want DefaultUIDBase %d", first, DefaultUIDBase)
	}
	// A runner with a higher base moves the counter up; one with the default base then continues above it.
	high := DefaultUIDBase + 1_000_000
	if uid, fresh, err := a.take(high); uid != high || !fresh || err != nil {
		t.Errorf("take(%d) = %d, %v, %v", high, uid, fresh, err)
	}
	if uid, _, _ := (&uidAllocator{path: path}).take(0); uid != high+uidBlock {
		t.Errorf("after a block at %d, a new allocator took %d, want %d", high, uid, high+uidBlock)
	}
	// The range used up: the counter starts again at the base.
	if err := os.WriteFile(path, []byte(strconv.Itoa(uidEnd-uidBlock/2)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if uid, fresh, err := (&uidAllocator{path: path}).take(0); uid != DefaultUIDBase || !fresh || err != nil {
		t.Errorf("at the end of the range take = %d, %v, %v; want a wrap to %d", uid, fresh, err, DefaultUIDBase)
	}
	if _, _, err := (&uidAllocator{path: path}).take(uidEnd - 1); err == nil || !strings.Contains(err.Error(), "past the sandbox range") {
		t.Errorf("a base at the end of the range: %v", err)
	}
}

// TestUIDAllocatorBrokenCounter: a counter that cannot be trusted gives ids that are still distinct within the
// process, but not fresh, with an error saying what to do.
func TestUIDAllocatorBrokenCounter(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(path string) error{
		"not a number": func(p string) error { return os.WriteFile(p, []byte("many\n"), 0o600) },
		"world-writable": func(p string) error {
			if err := os.WriteFile(p, []byte("1900000000\n"), 0o600); err != nil {
				return err
			}
			return os.Chmod(p, 0o666)
		},
		"a symbolic link": func(p string) error { return os.Symlink(filepath.Join(dir, "elsewhere"), p) },
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			if err := setup(path); err != nil {
				t.Fatal(err)
			}
			a := &uidAllocator{path: path}
			seen := map[int]bool{}
			for i := range 3 * uidBlock {
				uid, fresh, err := a.take(0)
				if fresh || err == nil {
					t.Fatalf("take #%d = %d, fresh %v, err %v: want not fresh, with the reason", i, uid, fresh, err)
				}
				if seen[uid] || uid < DefaultUIDBase || uid >= uidEnd {
					t.Fatalf("take #%d = %d: repeated or out of range", i, uid)
				}
				seen[uid] = true
			}
		})
	}
}
