package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// runDirPrefix begins the name of every directory a run creates under a run root.
const runDirPrefix = "transitbench-"

// runDir is a private directory of a live run, named transitbench-<kind>-<pid>-<random>. It is locked (flock)
// for as long as the run holds it, so the stale cleanup of another run never removes it.
type runDir struct {
	path string
	lock *os.File
}

// defaultRunRoot is <data directory home>/run, created 0700: where runs keep the stars' copies and other
// private files.
func defaultRunRoot(home string) (string, error) {
	if home == "" {
		return "", ErrNoHome
	}
	root := filepath.Join(home, "run")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: creating the run directory root %s: %w (set TRANSITBENCH_HOME to a writable directory)", root, err)
	}
	if err := os.Chmod(root, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	return root, nil
}

// newRunDir creates and locks a fresh directory transitbench-<kind>-<pid>-<random> under base with the given
// mode. Remove it with remove; if the process is killed first, cleanStaleRunDirs removes it at the next start.
func newRunDir(base, kind string, mode os.FileMode) (*runDir, error) {
	var rnd [6]byte
	rand.Read(rnd[:])
	path := filepath.Join(base, fmt.Sprintf("%s%s-%d-%s", runDirPrefix, kind, os.Getpid(), hex.EncodeToString(rnd[:])))
	if err := os.Mkdir(path, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox: creating a run directory: %w (make the run root writable: the data directory, TRANSITBENCH_HOME, or Runner.WorkDir)", err)
	}
	if err := os.Chmod(path, mode); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	d := &runDir{path: path}
	if f, err := os.Open(path); err == nil {
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			d.lock = f
		} else {
			f.Close() // no locks on this filesystem: the live process id in the name still protects it
		}
	}
	return d, nil
}

// remove removes the directory with everything in it and drops the lock.
func (d *runDir) remove() error {
	err := os.RemoveAll(d.path)
	if d.lock != nil {
		d.lock.Close()
	}
	return err
}

// runDirPID returns the process id in a run directory's name (transitbench-<kind>-<pid>-<random>), if any.
func runDirPID(name string) (int, bool) {
	f := strings.Split(strings.TrimPrefix(name, runDirPrefix), "-")
	if len(f) < 3 {
		return 0, false
	}
	pid, err := strconv.Atoi(f[len(f)-2])
	return pid, err == nil && pid > 0
}

// cleanStaleRunDirs removes the transitbench-* directories under base that no live run holds: those not locked
// whose process is gone. With anyName (base is the data directory's run root, which only runs write to), a
// directory without a process id in its name is removed too when nobody holds its lock.
func cleanStaleRunDirs(base string, anyName bool) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), runDirPrefix) {
			continue
		}
		pid, ok := runDirPID(e.Name())
		switch {
		case ok && (pid == os.Getpid() || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)):
			continue // a live process's (or a reused id: left for a later run)
		case !ok && !anyName:
			continue
		}
		path := filepath.Join(base, e.Name())
		f, err := os.Open(path)
		if err == nil {
			if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); errors.Is(err, unix.EWOULDBLOCK) {
				f.Close()
				continue // held by a live run
			}
		}
		os.RemoveAll(path)
		if f != nil {
			f.Close()
		}
	}
}
