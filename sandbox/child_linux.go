package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// childSetup runs in the child: inherited descriptors marked close-on-exec, mounts (inside its own mount
// namespace), hostname, CPU, limits, user, no_new_privs, the system-call filter, and finally the exec of the
// solution, which makes the solution PID 1 of its PID namespace.
func childSetup(cfg *childConfig, status *os.File) error {
	// The exec of the solution closes the status pipe: an empty pipe tells the runner the exec happened.
	if _, err := unix.FcntlInt(uintptr(childStatusFD), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fmt.Errorf("status pipe: %w", err)
	}
	if err := closeInheritedFDs(); err != nil {
		return err
	}
	if cfg.Namespaces {
		if err := setupMounts(cfg); err != nil {
			return err
		}
		if err := unix.Sethostname([]byte("sandbox")); err != nil {
			return fmt.Errorf("sethostname: %w", err)
		}
	}
	if cfg.CPU >= 0 {
		var set unix.CPUSet
		set.Set(cfg.CPU)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return fmt.Errorf("pinning to CPU %d: %w", cfg.CPU, err)
		}
	}
	if cfg.Dir != "" {
		if err := os.Chdir(cfg.Dir); err != nil {
			return fmt.Errorf("entering the solution directory: %w", err)
		}
	}
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
	if err := dropCapabilityBounds(); err != nil {
		return err
	}
	if cfg.UID >= 0 && !cfg.UserNS {
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("dropping supplementary groups: %w", err)
		}
		if err := syscall.Setgid(cfg.GID); err != nil {
			return fmt.Errorf("setgid %d: %w", cfg.GID, err)
		}
		if err := syscall.Setuid(cfg.UID); err != nil {
			return fmt.Errorf("setuid %d: %w", cfg.UID, err)
		}
	}
	// A change of user clears the parent-death signal; set it again so the child dies with the runner.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG): %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := applySeccomp(cfg); err != nil {
		return err
	}
	if cfg.Argv == nil {
		return nil
	}
	argv0, err := lookPath(cfg.Argv[0], cfg.Env)
	if err != nil {
		return err
	}
	// The address-space cap comes last: it would also bind this process, which only has the exec left to do.
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: uint64(cfg.MemoryBytes), Max: uint64(cfg.MemoryBytes)}); err != nil {
		return fmt.Errorf("setting RLIMIT_AS to %d: %w", cfg.MemoryBytes, err)
	}
	err = syscall.Exec(argv0, cfg.Argv, cfg.Env)
	return fmt.Errorf("executing %s: %w", cfg.Argv[0], err)
}

// Secure bits (linux/securebits.h): an exec by root grants no capabilities, for good, and no ambient ones.
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
)

// dropCapabilityBounds empties the capability bounding set and makes the exec of the solution grant no
// capabilities even to root. That matters in a user namespace, where the solution runs as its root and would
// otherwise hold CAP_SYS_ADMIN over its own mounts (and could unmount the masks); as real root the change of
// user clears the capabilities anyway, and this is a second lock.
func dropCapabilityBounds() error {
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the last capability this kernel knows
			}
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	bits := secbitNoRoot | secbitNoRootLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
	}
	return nil
}

// setupMounts builds the solution's view of the filesystem inside the child's private mount namespace:
// every mount read-only and nosuid; fresh tmpfs on /tmp (TMPDIR and HOME), /dev/shm and /run; the star and the
// solution snapshot bind-mounted read-only under /run; the masked paths covered by empty read-only tmpfs;
// and a /proc for the new PID namespace.
func setupMounts(cfg *childConfig) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	// Hold the sources open: the tmpfs mounted below may cover them (a TMPDIR under /tmp or /run).
	type bind struct {
		src, dst string
		fd       int
	}
	binds := []bind{{src: cfg.Star, dst: StarMount}, {src: cfg.Solution, dst: SolutionMount}}
	if cfg.Bin != "" {
		binds = append(binds, bind{src: cfg.Bin, dst: binMount})
	}
	for i := range binds {
		fd, err := unix.Open(binds[i].src, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("opening %s: %w", binds[i].src, err)
		}
		defer unix.Close(fd)
		binds[i].fd = fd
	}
	if err := remountReadOnly(); err != nil {
		return err
	}
	tmpfs := func(dst, opts string, flags uintptr) error {
		if err := unix.Mount("tmpfs", dst, "tmpfs", flags|unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
			return fmt.Errorf("mounting a tmpfs on %s: %w", dst, err)
		}
		return nil
	}
	if err := tmpfs("/run", "size=1m,mode=0755", 0); err != nil {
		return fmt.Errorf("%w (the sandbox needs a /run directory)", err)
	}
	for _, b := range binds {
		if err := os.Mkdir(b.dst, 0o755); err != nil {
			return fmt.Errorf("creating the mount point %s: %w", b.dst, err)
		}
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", b.fd), b.dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind-mounting %s on %s: %w", b.src, b.dst, err)
		}
		if err := unix.Mount("", b.dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
			return fmt.Errorf("making %s read-only: %w", b.dst, err)
		}
	}
	if err := unix.Mount("", "/run", "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("making /run read-only: %w", err)
	}
	if err := tmpfs("/tmp", fmt.Sprintf("size=%d,mode=1777", cfg.TmpBytes), 0); err != nil {
		return err
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := tmpfs("/dev/shm", fmt.Sprintf("size=%d,mode=1777", min(cfg.TmpBytes, 64<<20)), 0); err != nil {
			return err
		}
	}
	for _, p := range cfg.Mask {
		fi, err := os.Stat(p)
		if err != nil {
			continue // not there, or already covered by a fresh tmpfs
		}
		if fi.IsDir() {
			if err := tmpfs(p, "size=4k,mode=0555", unix.MS_RDONLY|unix.MS_NOEXEC); err != nil {
				return fmt.Errorf("masking: %w", err)
			}
			continue
		}
		if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("masking %s: %w", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("masking %s: %w", p, err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc for the new PID namespace: %w", err)
	}
	return nil
}

// remountReadOnly makes every mount read-only and nosuid, with mount_setattr(2) where the kernel has it
// (Linux 5.12) and one bind-remount per mount otherwise.
func remountReadOnly() error {
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID}
	err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("making the filesystem read-only: %w", err)
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("making the filesystem read-only: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMountPath(f[4])
		var st unix.Statfs_t
		if err := unix.Statfs(mp, &st); err != nil {
			continue // covered by a later mount
		}
		flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID)
		for _, kv := range [][2]int64{{unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
			{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
			if st.Flags&kv[0] != 0 {
				flags |= uintptr(kv[1])
			}
		}
		if err := unix.Mount("", mp, "", flags, ""); err != nil {
			return fmt.Errorf("making %s read-only: %w", mp, err)
		}
	}
	return nil
}

// unescapeMountPath undoes the octal escapes (\040 for a space, …) of /proc/self/mountinfo.
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range s[i+1 : i+4] {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + byte(c-'0')
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
