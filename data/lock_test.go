package data

import (
	"path/filepath"
	"testing"
	"time"
)

// TestLockFileExcludes checks that a second LockFile on the same path waits until the first is released.
func TestLockFileExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	release, err := LockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func())
	go func() {
		r, err := LockFile(path)
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	select {
	case <-got:
		t.Fatal("the lock was taken twice")
	case <-time.After(100 * time.Millisecond):
	}
	release()
	select {
	case r := <-got:
		r()
	case <-time.After(10 * time.Second):
		t.Fatal("the lock was not handed over after its release")
	}
}
