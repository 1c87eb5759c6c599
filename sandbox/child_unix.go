//go:build linux || darwin

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// childInputs returns the environment that hands cfg to a sandbox child, and /dev/null for its stdin, which
// the caller closes once the child has started.
func childInputs(cfg childConfig) ([]string, *os.File, error) {
	js, err := json.Marshal(cfg)
	if err != nil {
		return nil, nil, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, err
	}
	return []string{childEnv + "=" + string(js)}, devnull, nil
}

// sealDescriptors marks the status pipe and every inherited descriptor above 2 close-on-exec. The exec of the
// solution then closes the status pipe: an empty pipe tells the runner the exec happened.
func sealDescriptors() error {
	if _, err := unix.FcntlInt(uintptr(childStatusFD), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fmt.Errorf("status pipe: %w", err)
	}
	return closeInheritedFDs()
}

// setChildLimits sets the per-process limits of the solution: no core files, and cfg's processes, file size
// and open files.
func setChildLimits(cfg *childConfig) error {
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0},
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, uint64(cfg.Processes)},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, uint64(cfg.FileBytes)},
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, uint64(cfg.OpenFiles)},
	}
	for _, l := range limits {
		if err := unix.Setrlimit(l.resource, &unix.Rlimit{Cur: l.value, Max: l.value}); err != nil {
			return fmt.Errorf("setting %s to %d: %w", l.name, l.value, err)
		}
	}
	return nil
}

// becomeUser drops the supplementary groups and takes cfg's group and user.
func becomeUser(cfg *childConfig) error {
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("dropping supplementary groups: %w", err)
	}
	if err := syscall.Setgid(cfg.GID); err != nil {
		return fmt.Errorf("setgid %d: %w", cfg.GID, err)
	}
	if err := syscall.Setuid(cfg.UID); err != nil {
		return fmt.Errorf("setuid %d: %w", cfg.UID, err)
	}
	return nil
}

// execSolution looks up the solution's program, caps the address space and executes it; it returns only on
// failure. The address-space cap comes last: it would also bind this process, which only has the exec left
// to do.
func execSolution(cfg *childConfig) error {
	argv0, err := lookPath(cfg.Argv[0], cfg.Env)
	if err != nil {
		return err
	}
	writeChildStages()
	return execCapped(argv0, cfg)
}

// cloexecListed marks every descriptor above 2 that the directory dir (/proc/self/fd, /dev/fd) lists
// close-on-exec. hint, when not empty, says in the error what to do when dir cannot be opened.
func cloexecListed(dir, hint string) error {
	d, err := os.Open(dir)
	if err != nil {
		if hint != "" {
			return fmt.Errorf("listing the open descriptors: %w (%s)", err, hint)
		}
		return fmt.Errorf("listing the open descriptors: %w", err)
	}
	names, err := d.Readdirnames(-1)
	self := int(d.Fd())
	d.Close()
	if err != nil {
		return fmt.Errorf("listing the open descriptors: %w", err)
	}
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 || fd == self {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("marking descriptor %d close-on-exec: %w", fd, err)
		}
	}
	return nil
}
