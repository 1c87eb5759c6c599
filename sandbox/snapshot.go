//go:build linux || darwin

package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// snapshotHook, when set (by tests), is called with each entry's slash-separated path inside the solution
// directory between the listing that names the entry and the open that copies it: where a second user who can
// write the directory would swap it.
var snapshotHook func(rel string)

// errSnapshotRace says that an entry opened for the copy is not the one the listing named.
var errSnapshotRace = errors.New("changed while it was being copied")

// copyTree copies the directory src to dst (which must not exist), making every directory 0755 and every
// file 0644 (0755 when its owner may execute it) so that the sandbox user can read the copy, and returns the
// snapshot's hash (see Solution.SnapshotSHA256).
//
// The copy never follows a link of src: it walks by directory descriptors, opens each listed entry relative to
// its directory's descriptor without following links (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where
// the kernel has it, else openat with O_NOFOLLOW; each name is a single component) and checks that what it
// opened is what it listed (device, inode and type). A solution directory that a second user can write may
// change between the listing and the open (a file swapped for a link to a file only root may read, a directory
// for a link to another): the copy then fails with errSnapshotRace, and nothing the link names is read.
//
// A symbolic link is copied as a link; once the copy is complete, each one must be relative and lead, in the
// copy (which only this process writes), to a file inside it, else the copy fails. Any other kind of file (a
// device, a FIFO, a socket) is refused: the snapshot holds the solution's own files only.
func copyTree(dst, src string) (string, error) {
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return "", fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("sandbox: copying the solution %s: %w", src, err)
	}
	c := &snapshotCopy{src: src, manifest: sha256.New()}
	err = c.dir(fd, "", dst)
	if err == nil {
		err = c.checkLinks(dst)
	}
	if errors.Is(err, errSnapshotRace) {
		return "", fmt.Errorf("sandbox: the solution directory %s %w (%v): run again when nothing writes to it, and keep it writable by you alone", src, errSnapshotRace, err)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(c.manifest.Sum(nil)), nil
}

// snapshotCopy is the state of one copyTree.
type snapshotCopy struct {
	src      string
	total    int64
	manifest hash.Hash // of the manifest lines
	links    []string  // the copied links, as paths inside the copy
}

// raceError is errSnapshotRace for one entry.
type raceError struct{ rel, what string }

func (e *raceError) Error() string { return e.rel + " " + e.what }
func (e *raceError) Unwrap() error { return errSnapshotRace }

// dir copies the directory open as fd (rel inside src; closed here) into the new directory dst.
func (c *snapshotCopy) dir(fd int, rel, dst string) error {
	f := os.NewFile(uintptr(fd), filepath.Join(c.src, rel))
	defer f.Close()
	if err := os.Mkdir(dst, 0o755); err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("sandbox: copying the solution: reading %s: %w", f.Name(), err)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := c.entry(fd, path.Join(rel, name), name, filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	return nil
}

// entry copies the entry name of the directory open as dirfd (rel inside src) to dst.
func (c *snapshotCopy) entry(dirfd int, rel, name, dst string) error {
	var listed unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &listed, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &raceError{rel, fmt.Sprintf("vanished (%v)", err)}
	}
	if snapshotHook != nil {
		snapshotHook(rel)
	}
	host := filepath.Join(c.src, rel)
	switch listed.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		fd, err := c.open(dirfd, rel, name, unix.O_DIRECTORY, &listed)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.manifest, "dir %s\n", rel)
		return c.dir(fd, rel, dst)
	case unix.S_IFREG:
		fd, err := c.open(dirfd, rel, name, unix.O_NONBLOCK|unix.O_NOCTTY, &listed)
		if err != nil {
			return err
		}
		return c.file(fd, rel, dst, uint32(listed.Mode))
	case unix.S_IFLNK:
		target, err := readlinkat(dirfd, name)
		if err != nil {
			return &raceError{rel, fmt.Sprintf("is no longer a link (%v)", err)}
		}
		if path.IsAbs(target) {
			return linkOutError(host, target)
		}
		if err := os.Symlink(target, dst); err != nil {
			return fmt.Errorf("sandbox: copying the solution: %w", err)
		}
		fmt.Fprintf(c.manifest, "link %s %s\n", target, rel)
		c.links = append(c.links, dst)
		return nil
	}
	return fmt.Errorf("sandbox: %s is not a regular file, directory or link (mode %#o): remove it from the solution", host, listed.Mode&unix.S_IFMT)
}

// open opens the entry name of dirfd without following any link and checks that it is the listed file.
func (c *snapshotCopy) open(dirfd int, rel, name string, flags int, listed *unix.Stat_t) (int, error) {
	fd, err := openNoFollow(dirfd, name, unix.O_RDONLY|flags)
	if err != nil {
		return -1, &raceError{rel, fmt.Sprintf("could not be opened as listed (%v)", err)}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("sandbox: copying the solution: %s: %w", rel, err)
	}
	if st.Dev != listed.Dev || st.Ino != listed.Ino || st.Mode&unix.S_IFMT != listed.Mode&unix.S_IFMT {
		unix.Close(fd)
		return -1, &raceError{rel, "is not the file that was listed"}
	}
	return fd, nil
}

// file copies the regular file open as fd (closed here) to dst, within the snapshot's size bound, and adds its
// hash to the manifest.
func (c *snapshotCopy) file(fd int, rel, dst string, mode uint32) error {
	in := os.NewFile(uintptr(fd), filepath.Join(c.src, rel))
	defer in.Close()
	perm := os.FileMode(0o644)
	if mode&0o100 != 0 {
		perm = 0o755
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	h := sha256.New()
	// One byte more than the bound allows, so that a file grown since the listing is caught too.
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(in, MaxSolutionBytes-c.total+1))
	c.total += n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sandbox: copying the solution: %s: %w", rel, err)
	}
	if c.total > MaxSolutionBytes {
		return fmt.Errorf("sandbox: the solution directory %s holds more than %d MiB: keep data sets and large files out of it", c.src, MaxSolutionBytes>>20)
	}
	fmt.Fprintf(c.manifest, "file %#o %x %s\n", perm, h.Sum(nil), rel)
	return os.Chmod(dst, perm) // the umask may have narrowed the mode given to OpenFile
}

// checkLinks refuses the copied links that do not lead, inside the finished copy root, to an existing file.
// The copy is resolved rather than the source: only this process writes it, so what is checked is what the
// sandbox will see.
func (c *snapshotCopy) checkLinks(root string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("sandbox: copying the solution: %w", err)
	}
	for _, l := range c.links {
		resolved, rerr := filepath.EvalSymlinks(l)
		if rerr == nil {
			resolved, rerr = filepath.Rel(realRoot, resolved)
		}
		if rerr != nil || resolved == ".." || strings.HasPrefix(resolved, ".."+string(filepath.Separator)) {
			rel, _ := filepath.Rel(root, l)
			target, _ := os.Readlink(l)
			return linkOutError(filepath.Join(c.src, rel), target)
		}
	}
	return nil
}

// linkOutError refuses the link host of the solution directory, whose target leads out of it or to nothing.
func linkOutError(host, target string) error {
	return fmt.Errorf("sandbox: %s is a symbolic link to %s, outside the solution directory or to nothing: a solution must hold its files itself (copy the target in, or make the link relative and inside)", host, target)
}

// readlinkat returns the target of the link name in the directory dirfd.
func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}
