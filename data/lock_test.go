package data

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
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

// TestTryLockFileSaysWhoHolds: a second TryLockFile on a held lock does not wait; it returns ErrLocked and the
// holder's process ID, and succeeds once the lock is released.
func TestTryLockFileSaysWhoHolds(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no cross-process flock here: TryLockFile waits like LockFile")
	}
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	release, holder, err := TryLockFile(path)
	if err != nil || holder != 0 {
		t.Fatalf("first TryLockFile: holder %d, %v", holder, err)
	}
	if _, holder, err := TryLockFile(path); !errors.Is(err, ErrLocked) || holder != os.Getpid() {
		t.Errorf("TryLockFile on a held lock: holder %d, %v; want ErrLocked and %d", holder, err, os.Getpid())
	}
	release()
	again, _, err := TryLockFile(path)
	if err != nil {
		t.Fatalf("TryLockFile after the release: %v", err)
	}
	again()
}
