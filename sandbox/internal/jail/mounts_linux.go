package jail

import (
	"errors"
	"strconv"
	"syscall"
	"unsafe"
)

// rootStaging is where the child mounts the tmpfs that becomes the solution's root. It is a directory of the
// host that every Linux system has; the mount lives only in the child's own mount namespace.
const rootStaging = "/tmp"

// HostTrees are the host's directories of programs and libraries that the solution sees, read-only, at the same
// path. Those that are symbolic links on the host (Debian's /bin → usr/bin) are recreated as the same links.
var HostTrees = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}

// etcFiles are copied from the host's /etc into the solution's: what the dynamic loader (ld.so.cache; its
// sources ld.so.conf and ld.so.conf.d are read by ldconfig only) and the C library's name lookups need. The rest
// of /etc is written anew (etcWritten) or left out: the host's hosts names the machine (and its containers),
// localtime gives its time zone (the sandbox runs in UTC), resolv.conf its resolvers, hostname, machine-id and
// mailname identify it. /etc/alternatives (Debian's links for awk, editors, …) is bind-mounted read-only.
var etcFiles = []string{"nsswitch.conf", "ld.so.cache"}

// etcHosts is the sandbox's /etc/hosts: localhost only.
const etcHosts = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"

// devices are the only device nodes of the solution's /dev, bind-mounted from the host's.
var devices = []string{"null", "zero", "full", "random", "urandom"}

// Constants of the new mount API (linux/mount.h, linux/fcntl.h) and of statfs(2) that the syscall package
// lacks.
const (
	mountAttrRdonly = 0x1
	mountAttrNosuid = 0x2
	mountAttrNodev  = 0x4
	mountAttrNoexec = 0x8

	openTreeClone            = 0x1
	openTreeCloexec          = syscall.O_CLOEXEC
	atFDCWD                  = -100
	atEmptyPath              = 0x1000
	atRecursive              = 0x8000
	moveMountFEmptyPath      = 0x4
	stNosuid, stNodev        = 0x2, 0x4
	stNoexec, stNoatime      = 0x8, 0x400
	stNodiratime, stRelatime = 0x800, 0x1000
)

// Mount attributes: read-only trees of the host, and devices (which must stay devices).
const (
	attrReadOnly = mountAttrRdonly | mountAttrNosuid | mountAttrNodev
	attrDevice   = mountAttrRdonly | mountAttrNosuid | mountAttrNoexec
	attrWritable = mountAttrNosuid | mountAttrNodev
)

// setupMounts builds the solution's whole filesystem inside the child's private mount namespace and makes it
// the root with pivot_root, so that nothing of the host is left in view but what is listed here:
//
//	/                a tmpfs, read-only once built
//	/usr             the host's, read-only (and /bin, /sbin, /lib, /lib64, /lib32 as on the host: trees or links)
//	/etc             two files copied from the host (see etcFiles), a passwd, group and hosts of its own,
//	                 /etc/alternatives read-only
//	/dev             null, zero, full, random, urandom; fd, stdin, stdout, stderr links; a fresh /dev/shm tmpfs
//	/proc            a new proc for the PID namespace
//	/tmp             a fresh tmpfs of Limits.TmpBytes
//	/run/star        a tmpfs for a copy of the star's files (StarMount), read-only once copyStar filled it
//	/run/solution    the solution snapshot, read-only (SolutionMount)
//	/run/bin         the built Go binary's directory, read-only (binMount)
//	cfg.Binds        further binds (the Go build's toolchain, cache and output)
//
// The old root is detached afterwards: /proc/self/mountinfo lists only these mounts. Masked paths that still
// exist inside the new tree (a data directory under /usr) are then covered by empty read-only tmpfs. It returns
// the star's directory (cfg.Star), held open as a descriptor for copyStar, or -1 when cfg has none.
func setupMounts(cfg *Config) (star int, err error) {
	sys = cfg.Sys
	if err := rawMount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return -1, errorf("making mounts private: %w", err)
	}
	binds, starFD, closeSources, err := openSources(cfg)
	if err != nil {
		return -1, err
	}
	defer func() {
		if err != nil && starFD >= 0 {
			syscall.Close(starFD)
		}
	}()
	defer closeSources()

	r := rootStaging
	if err := tmpfs(r, "size=4m,nr_inodes=4096,mode=0755", 0); err != nil {
		return -1, errorf("%w (the sandbox builds its root there)", err)
	}
	if err := setupHostTrees(r); err != nil {
		return -1, err
	}
	if err := setupEtc(r, cfg); err != nil {
		return -1, err
	}
	if err := setupDev(r, cfg); err != nil {
		return -1, err
	}
	for _, d := range []string{"/proc", "/tmp", "/run"} {
		if err := mkdir(r + d); err != nil {
			return -1, errorf("creating %s: %w", d, err)
		}
	}
	if err := rawMount("proc", r+"/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return -1, errorf("mounting /proc for the new PID namespace: %w", err)
	}
	if err := tmpfs(r+"/tmp", sprintf("size=%d,mode=1777", cfg.TmpBytes), 0); err != nil {
		return -1, err
	}
	if starFD >= 0 {
		if err := mkdir(r + StarMount); err != nil {
			return -1, errorf("creating %s: %w", StarMount, err)
		}
		if err := tmpfs(r+StarMount, "mode=0755", syscall.MS_NOEXEC); err != nil {
			return -1, err
		}
	}
	if err := mountBinds(r, binds); err != nil {
		return -1, err
	}
	if err := rawMount("", r, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV, ""); err != nil {
		return -1, errorf("making the sandbox's root read-only: %w", err)
	}
	if err := pivotInto(r); err != nil {
		return -1, err
	}
	if err := maskPaths(cfg.Mask); err != nil {
		return -1, err
	}
	return starFD, nil
}

// sourceBind is a directory of the host bound into the solution's tree, held open by fd.
type sourceBind struct {
	src, dst string
	attr     uint64
	fd       int
}

// openSources opens the directories to bind (the solution, the binary's directory, cfg.Binds) and the star's
// directory (-1 without one), and returns a function that closes the former. They are held open because the
// new root's tmpfs may cover them (a run directory under /tmp); the star's stays open past the pivot into the
// new root, until copyStar.
func openSources(cfg *Config) ([]sourceBind, int, func(), error) {
	var binds []sourceBind
	if cfg.Solution != "" {
		binds = append(binds, sourceBind{src: cfg.Solution, dst: SolutionMount, attr: attrReadOnly})
	}
	if cfg.Bin != "" {
		binds = append(binds, sourceBind{src: cfg.Bin, dst: BinMount, attr: attrReadOnly})
	}
	for _, b := range cfg.Binds {
		attr := uint64(attrReadOnly)
		if b.Writable {
			attr = attrWritable
		}
		binds = append(binds, sourceBind{src: b.Src, dst: b.Dst, attr: attr})
	}
	var fds []int
	closeAll := func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}
	for i := range binds {
		fd, err := syscall.Open(binds[i].src, sys.OPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			closeAll()
			return nil, -1, nil, errorf("opening %s: %w", binds[i].src, err)
		}
		fds = append(fds, fd)
		binds[i].fd = fd
	}
	starFD := -1
	if cfg.Star != "" {
		fd, err := syscall.Open(cfg.Star, sys.OPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			closeAll()
			return nil, -1, nil, errorf("opening the star directory %s: %w", cfg.Star, err)
		}
		starFD = fd
	}
	return binds, starFD, closeAll, nil
}

// setupHostTrees binds the host's program and library trees (HostTrees) read-only under r, and recreates
// those that are symbolic links on the host as the same links.
func setupHostTrees(r string) error {
	for _, p := range HostTrees {
		mode, err := fileMode(p, false)
		switch {
		case err != nil:
			continue
		case mode == syscall.S_IFLNK:
			target, err := readlink(p)
			if err != nil {
				return errorf("reading the link %s: %w", p, err)
			}
			if err := symlink(target, r+p); err != nil {
				return errorf("recreating the link %s: %w", p, err)
			}
		case mode == syscall.S_IFDIR:
			if err := mkdir(r + p); err != nil {
				return errorf("creating the mount point %s: %w", p, err)
			}
			if err := bindTree(atFDCWD, p, r+p, attrReadOnly); err != nil {
				return err
			}
		}
	}
	return nil
}

// mountBinds binds each opened source at its place under r, making the mount point where it is missing.
func mountBinds(r string, binds []sourceBind) error {
	for _, b := range binds {
		dst := r + b.dst
		if mode, err := fileMode(dst, true); err != nil || mode != syscall.S_IFDIR {
			if err := mkdirAll(dst); err != nil {
				return errorf("creating the mount point %s: %w", b.dst, err)
			}
		}
		if err := bindTree(b.fd, "", dst, b.attr); err != nil {
			return errorf("%w (from %s)", err, b.src)
		}
	}
	return nil
}

// pivotInto makes r the root; the old root is then detached with every host mount under it.
func pivotInto(r string) error {
	if err := syscall.Chdir(r); err != nil {
		return errorf("entering the sandbox's root: %w", err)
	}
	if err := rawPivotRoot(".", "."); err != nil {
		return errorf("pivot_root into the sandbox's root: %w", err)
	}
	if err := rawUnmount(".", syscall.MNT_DETACH); err != nil {
		return errorf("detaching the host's filesystem: %w", err)
	}
	if err := syscall.Chdir("/"); err != nil {
		return errorf("entering the sandbox's root: %w", err)
	}
	return nil
}

// maskPaths covers each masked path that exists in the new tree: a directory with an empty read-only tmpfs,
// a file with a read-only bind of /dev/null.
func maskPaths(mask []string) error {
	for _, p := range mask {
		mode, err := fileMode(p, true)
		if err != nil {
			continue // outside the sandbox's tree, or covered by one of its fresh tmpfs
		}
		if mode == syscall.S_IFDIR {
			if err := tmpfs(p, "size=4k,mode=0555", syscall.MS_RDONLY|syscall.MS_NOEXEC); err != nil {
				return errorf("masking: %w", err)
			}
			continue
		}
		if err := rawMount("/dev/null", p, "", syscall.MS_BIND, ""); err != nil {
			return errorf("masking %s: %w", p, err)
		}
		if err := rawMount("", p, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NOEXEC, ""); err != nil {
			return errorf("masking %s: %w", p, err)
		}
	}
	return nil
}

func tmpfs(dst, opts string, flags uintptr) error {
	if err := rawMount("tmpfs", dst, "tmpfs", flags|syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return errorf("mounting a tmpfs on %s: %w", dst, err)
	}
	return nil
}

// setupEtc fills the new root's /etc.
func setupEtc(r string, cfg *Config) error {
	etc := r + "/etc"
	if err := mkdir(etc); err != nil {
		return errorf("creating /etc: %w", err)
	}
	passwd := "root:x:0:0:root:/tmp:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	group := "root:x:0:\nnogroup:x:65534:\n"
	if cfg.UID > 0 && cfg.UID != 65534 && !cfg.UserNS {
		passwd += sprintf("sandbox:x:%d:%d:sandbox:/tmp:/usr/sbin/nologin\n", cfg.UID, cfg.GID)
		group += sprintf("sandbox:x:%d:\n", cfg.GID)
	}
	for name, body := range map[string]string{"passwd": passwd, "group": group, "hosts": etcHosts} {
		if err := writeFile(etc+"/"+name, body); err != nil {
			return errorf("writing /etc/%s: %w", name, err)
		}
	}
	for _, name := range etcFiles {
		if err := copyEntry("/etc/"+name, etc+"/"+name, 1); err != nil {
			return err
		}
	}
	if mode, err := fileMode("/etc/alternatives", true); err == nil && mode == syscall.S_IFDIR {
		if err := mkdir(etc + "/alternatives"); err != nil {
			return errorf("creating /etc/alternatives: %w", err)
		}
		if err := bindTree(atFDCWD, "/etc/alternatives", etc+"/alternatives", attrReadOnly); err != nil {
			return err
		}
	}
	return nil
}

// copyEntry copies the host's file, link or directory src (with depth levels of directories below it) to
// dst; a missing src is skipped, and so is anything else than a regular file, link or directory.
func copyEntry(src, dst string, depth int) error {
	mode, err := fileMode(src, false)
	if err != nil {
		return nil
	}
	switch {
	case mode == syscall.S_IFLNK:
		target, err := readlink(src)
		if err == nil {
			err = symlink(target, dst)
		}
		if err != nil {
			return errorf("copying the link %s: %w", src, err)
		}
	case mode == syscall.S_IFREG:
		if err := copyRegular(src, dst); err != nil {
			return errorf("copying %s: %w", src, err)
		}
	case mode == syscall.S_IFDIR && depth > 0:
		if err := mkdir(dst); err != nil {
			return errorf("copying %s: %w", src, err)
		}
		fd, err := syscall.Open(src, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return errorf("copying %s: %w", src, err)
		}
		entries, err := readDir(fd)
		syscall.Close(fd)
		if err != nil {
			return errorf("copying %s: %w", src, err)
		}
		for _, e := range entries {
			if err := copyEntry(src+"/"+e.name, dst+"/"+e.name, depth-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// setupDev builds the new root's /dev: a few devices bound from the host's, the usual links into /proc and a
// fresh /dev/shm; the tmpfs itself is read-only.
func setupDev(r string, cfg *Config) error {
	dev := r + "/dev"
	if err := mkdir(dev); err != nil {
		return errorf("creating /dev: %w", err)
	}
	if err := tmpfs(dev, "size=64k,nr_inodes=64,mode=0755", syscall.MS_NOEXEC); err != nil {
		return err
	}
	for _, d := range devices {
		if err := writeFile(dev+"/"+d, ""); err != nil {
			return errorf("creating /dev/%s: %w", d, err)
		}
		if err := bindTree(atFDCWD, "/dev/"+d, dev+"/"+d, attrDevice); err != nil {
			return err
		}
	}
	links := map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
		"stderr": "/proc/self/fd/2"}
	for name, target := range links {
		if err := symlink(target, dev+"/"+name); err != nil {
			return errorf("creating /dev/%s: %w", name, err)
		}
	}
	if err := mkdir(dev + "/shm"); err != nil {
		return errorf("creating /dev/shm: %w", err)
	}
	if err := tmpfs(dev+"/shm", sprintf("size=%d,mode=1777", min(cfg.TmpBytes, 64<<20)), 0); err != nil {
		return err
	}
	if err := rawMount("", dev, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return errorf("making /dev read-only: %w", err)
	}
	return nil
}

// copyStar copies the star's files (the directory open as fd, which it closes) into the tmpfs on dst and makes
// that read-only. A copy rather than a bind: a bind would show the star directory's host path, and with it the
// run directory's, in /proc/self/mountinfo.
func copyStar(fd int, dst string) error {
	err := copyDirAt(fd, dst)
	syscall.Close(fd)
	if err != nil {
		return errorf("copying the star's files into the sandbox: %w", err)
	}
	if err := rawMount("", dst, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return errorf("making %s read-only: %w", dst, err)
	}
	return nil
}

// copyDirAt copies the directories and regular files under the directory open as src (an O_PATH descriptor
// will do) into the existing directory dst; the runner writes nothing else into a star's directory. It reads
// the directory through descriptors alone, so the star's directory need not be in view (the child reads it
// from inside the sandbox's root).
func copyDirAt(src int, dst string) error {
	fd, err := syscall.Openat(src, ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	entries, err := readDir(fd)
	if err != nil {
		return err
	}
	for _, e := range entries {
		d := dst + "/" + e.name
		switch e.typ {
		case syscall.DT_DIR:
			sub, err := syscall.Openat(fd, e.name, sys.OPath|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
			if err != nil {
				return pathError("open", e.name, err)
			}
			err = syscall.Mkdir(d, 0o755)
			if err == nil {
				err = copyDirAt(sub, d)
			}
			syscall.Close(sub)
			if err != nil {
				return err
			}
		case syscall.DT_REG:
			if err := copyRegularAt(fd, e.name, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// dirEntry is a name in a directory and its type (syscall.DT_*).
type dirEntry struct {
	name string
	typ  uint8
}

// readDir lists the directory open as fd, without "." and "..". An entry whose type the filesystem does not
// give is looked at with fstat.
func readDir(fd int) ([]dirEntry, error) {
	var entries []dirEntry
	buf := make([]byte, 8192)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return entries, nil
		}
		// struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name (NUL-terminated).
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return nil, syscall.EIO
			}
			name := b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			e := dirEntry{name: string(name), typ: b[18]}
			b = b[reclen:]
			if e.name == "." || e.name == ".." {
				continue
			}
			if e.typ == syscall.DT_UNKNOWN {
				e.typ = typeAt(fd, e.name)
			}
			entries = append(entries, e)
		}
	}
}

// typeAt is the type (syscall.DT_DIR, DT_REG, or DT_UNKNOWN for anything else) of name in the directory open
// as dir, not following a final symbolic link.
func typeAt(dir int, name string) uint8 {
	fd, err := syscall.Openat(dir, name, sys.OPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return syscall.DT_UNKNOWN
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return syscall.DT_UNKNOWN
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return syscall.DT_DIR
	case syscall.S_IFREG:
		return syscall.DT_REG
	}
	return syscall.DT_UNKNOWN
}

// writeFile creates the file dst (mode 0644) holding body, with plain system calls (os.WriteFile would start
// the runtime's poller for it).
func writeFile(dst, body string) error {
	fd, err := syscall.Open(dst, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return pathError("create", dst, err)
	}
	defer syscall.Close(fd)
	if err := writeAll(fd, []byte(body)); err != nil {
		return pathError("write", dst, err)
	}
	return nil
}

// copyBuf is copyRegular's buffer: the child copies one file at a time.
var copyBuf []byte

// copyRegular copies the regular file src to the new file dst (mode 0644) with plain system calls: the child
// copies a handful of small files and should not pay for more.
func copyRegular(src, dst string) error { return copyRegularAt(atFDCWD, src, dst) }

// copyRegularAt is copyRegular of the file src in the directory open as dir (not following a final symbolic
// link when dir is not atFDCWD).
func copyRegularAt(dir int, src, dst string) error {
	flags := syscall.O_RDONLY | syscall.O_CLOEXEC
	if dir != atFDCWD {
		flags |= syscall.O_NOFOLLOW
	}
	in, err := syscall.Openat(dir, src, flags, 0)
	if err != nil {
		return pathError("open", src, err)
	}
	defer syscall.Close(in)
	out, err := syscall.Open(dst, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return pathError("create", dst, err)
	}
	defer syscall.Close(out)
	if copyBuf == nil {
		copyBuf = make([]byte, 64<<10)
	}
	for {
		n, err := syscall.Read(in, copyBuf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return pathError("read", src, err)
		}
		if n == 0 {
			return nil
		}
		if err := writeAll(out, copyBuf[:n]); err != nil {
			return pathError("write", dst, err)
		}
	}
}

// bindTree mounts a recursive copy of the tree at src (relative to dirfd; src "" means dirfd itself) on dst,
// with attr set on every mount of the copy. The copy is made detached (open_tree), given its attributes and
// only then attached, so it is never writable in the new tree. Kernels before 5.12 get a bind and a remount.
func bindTree(dirfd int, src, dst string, attr uint64) error {
	flags := uintptr(openTreeClone | openTreeCloexec | atRecursive)
	if src == "" {
		flags |= atEmptyPath
	}
	name := src
	if name == "" {
		name = "/proc/self/fd/" + strconv.Itoa(dirfd)
	}
	fd, err := openTree(dirfd, src, flags)
	if errors.Is(err, syscall.ENOSYS) {
		return bindTreeLegacy(name, dst, attr)
	}
	if err != nil {
		return errorf("bind-mounting %s on %s: open_tree: %w", name, dst, err)
	}
	defer syscall.Close(fd)
	err = mountSetattr(fd, atEmptyPath|atRecursive, attr)
	if errors.Is(err, syscall.ENOSYS) {
		return bindTreeLegacy(name, dst, attr)
	}
	if err != nil {
		return errorf("bind-mounting %s on %s: mount_setattr: %w", name, dst, err)
	}
	if err := moveMount(fd, dst); err != nil {
		return errorf("bind-mounting %s on %s: move_mount: %w", name, dst, err)
	}
	return nil
}

// sys holds the numbers of the system calls of the new mount API, from the child's configuration.
var sys Syscalls

// openTree is open_tree(2): a detached copy of the tree at path (relative to dirfd) when flags hold
// OPEN_TREE_CLONE, as a descriptor.
func openTree(dirfd int, path string, flags uintptr) (int, error) {
	if sys.OpenTree <= 0 {
		return -1, syscall.ENOSYS
	}
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	fd, _, e := syscall.RawSyscall(uintptr(sys.OpenTree), uintptr(dirfd), uintptr(unsafe.Pointer(p)), flags)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// mountSetattr is mount_setattr(2) on the tree open as fd (path ""), setting the attributes attr.
func mountSetattr(fd int, flags uintptr, attr uint64) error {
	if sys.MountSetattr <= 0 {
		return syscall.ENOSYS
	}
	// struct mount_attr: attr_set, attr_clr, propagation, userns_fd.
	ma := [4]uint64{attr, 0, 0, 0}
	empty := [1]byte{}
	_, _, e := syscall.RawSyscall6(uintptr(sys.MountSetattr), uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), flags,
		uintptr(unsafe.Pointer(&ma)), unsafe.Sizeof(ma), 0)
	if e != 0 {
		return e
	}
	return nil
}

// moveMount is move_mount(2) of the detached tree open as fd onto the path dst.
func moveMount(fd int, dst string) error {
	if sys.MoveMount <= 0 {
		return syscall.ENOSYS
	}
	p, err := syscall.BytePtrFromString(dst)
	if err != nil {
		return err
	}
	empty := [1]byte{}
	negFDCWD := atFDCWD
	_, _, e := syscall.RawSyscall6(uintptr(sys.MoveMount), uintptr(fd), uintptr(unsafe.Pointer(&empty[0])),
		uintptr(negFDCWD), uintptr(unsafe.Pointer(p)), moveMountFEmptyPath, 0)
	if e != 0 {
		return e
	}
	return nil
}

// bindTreeLegacy is bindTree with mount(2) alone: a recursive bind, then a remount of its top with attr and
// the flags the source already had (a remount in a user namespace may not clear them).
func bindTreeLegacy(src, dst string, attr uint64) error {
	if err := rawMount(src, dst, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return errorf("bind-mounting %s on %s: %w", src, dst, err)
	}
	flags := uintptr(syscall.MS_BIND | syscall.MS_REMOUNT)
	for _, kv := range [][2]uint64{{mountAttrRdonly, syscall.MS_RDONLY}, {mountAttrNosuid, syscall.MS_NOSUID},
		{mountAttrNodev, syscall.MS_NODEV}, {mountAttrNoexec, syscall.MS_NOEXEC}} {
		if attr&kv[0] != 0 {
			flags |= uintptr(kv[1])
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dst, &st); err == nil {
		for _, kv := range [][2]int64{{stNosuid, syscall.MS_NOSUID}, {stNodev, syscall.MS_NODEV}, {stNoexec, syscall.MS_NOEXEC},
			{stNoatime, syscall.MS_NOATIME}, {stNodiratime, syscall.MS_NODIRATIME}, {stRelatime, syscall.MS_RELATIME}} {
			if st.Flags&kv[0] != 0 {
				flags |= uintptr(kv[1])
			}
		}
	}
	if err := rawMount("", dst, "", flags, ""); err != nil {
		return errorf("remounting %s: %w", dst, err)
	}
	return nil
}
