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
	return &runDir{path: path, lock: lockDir(path)}, nil
}

// snapshotKind names the solution snapshots' directories: transitbench-snap-<24 hex digits>, a random name
// without the process id, because the sandbox's mount table shows the snapshot's host path. The owner's process
// id is kept in the file ownerFile inside (the snapshot's own tree, solution/ and bin/, is all a star sees).
const snapshotKind = "snap"

// ownerFile holds the process id of a snapshot directory's owner.
const ownerFile = "owner"

// newSnapshotDir creates and locks a fresh snapshot directory under base with the given mode, its name random,
// its owner's process id in ownerFile.
func newSnapshotDir(base string, mode os.FileMode) (*runDir, error) {
	var rnd [12]byte
	rand.Read(rnd[:])
	path := filepath.Join(base, runDirPrefix+snapshotKind+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(path, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox: creating the solution snapshot: %w (is TMPDIR writable?)", err)
	}
	d := &runDir{path: path}
	if err := os.WriteFile(filepath.Join(path, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		d.remove()
		return nil, fmt.Errorf("sandbox: creating the solution snapshot: %w", err)
	}
	if err := os.Chmod(path, mode); err != nil {
		d.remove()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	d.lock = lockDir(path)
	return d, nil
}

// lockDir opens dir and takes an exclusive flock on it; nil where the filesystem has no locks.
func lockDir(dir string) *os.File {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close() // no locks on this filesystem: the live process id still protects it
		return nil
	}
	return f
}

// remove removes the directory with everything in it and drops the lock.
func (d *runDir) remove() error {
	err := os.RemoveAll(d.path)
	if d.lock != nil {
		d.lock.Close()
	}
	return err
}

// runDirPID returns the process id of the run directory name under base: the one in its name
// (transitbench-<kind>-<pid>-<random>), or a snapshot's in its ownerFile.
func runDirPID(base, name string) (int, bool) {
	if strings.HasPrefix(name, runDirPrefix+snapshotKind+"-") {
		b, err := os.ReadFile(filepath.Join(base, name, ownerFile))
		pid, perr := strconv.Atoi(string(b))
		return pid, err == nil && perr == nil && pid > 0
	}
	f := strings.Split(strings.TrimPrefix(name, runDirPrefix), "-")
	if len(f) < 3 {
		return 0, false
	}
	pid, err := strconv.Atoi(f[len(f)-2])
	return pid, err == nil && pid > 0
}

// cleanStaleRunDirs removes the transitbench-* directories under base that no live run holds: those not locked
// whose process (named in the directory's name, or a snapshot's ownerFile) is gone. With anyName (base is the data directory's run root, which only runs write to), a
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
		pid, ok := runDirPID(base, e.Name())
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
