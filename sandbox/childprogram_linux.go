package sandbox

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A star's child is a program of its own: the small program made of package jail alone (standard library
// only), which starts in about a millisecond, instead of this whole executable, whose initialisation (the Go
// runtime and every package's init of a program of tens of megabytes) costs tens of milliseconds a star. The
// runner builds it on the machine, once per toolchain and version of package jail, from the sources it
// embeds, with the Go toolchain on PATH and a clean environment (goBuildEnv: no proxy, no cgo, no
// configuration file), into the user's cache directory (~/.cache/transitbench/sandbox-child, 0700, written by
// these builds alone). Where that cannot be done (no Go toolchain, an old one, a cache directory that is not
// the runner's alone) the child is this executable again (/proc/self/exe), whose package init runs the same
// jail.Main: the same setup, only slower to start.

//go:embed internal/jail/*.go
var jailSources embed.FS

// childMainSource is the child program's main package; jailModule its module.
const (
	jailModule      = "transitbench-sandbox-child"
	childMainSource = "package main\n\nimport \"" + jailModule + "/jail\"\n\nfunc main() { jail.Main() }\n"
	childGoMod      = "module " + jailModule + "\n\ngo 1.22\n"
)

// childProgramWallTime bounds the child program's build (the standard library's packages it needs are compiled
// once per toolchain into its own build cache).
const childProgramWallTime = 5 * time.Minute

// selfExe is the fallback child program: this executable.
const selfExe = "/proc/self/exe"

var (
	childProgramOnce sync.Once
	childProgramPath string
	childProgramErr  error // why the child program is selfExe, nil when it is not
	// childProgramOverride, when not "", replaces the child program (tests: the fallback, selfExe).
	childProgramOverride string
)

// childProgram returns the program a star's child executes: the small child program, built on the first call,
// or, when it cannot be had, this executable.
func childProgram() string {
	if childProgramOverride != "" {
		return childProgramOverride
	}
	childProgramOnce.Do(func() {
		c, err := os.UserCacheDir()
		if err == nil {
			childProgramPath, err = buildChildProgram(filepath.Join(c, "transitbench", "sandbox-child"))
		}
		if childProgramErr = err; err != nil {
			childProgramPath = selfExe
		}
	})
	return childProgramPath
}

// jailFiles returns the embedded sources of package jail (without its tests), by name.
func jailFiles() (map[string][]byte, error) {
	entries, err := fs.ReadDir(jailSources, "internal/jail")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		b, err := jailSources.ReadFile(path.Join("internal/jail", e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = b
	}
	return files, nil
}

// buildChildProgram returns the child program for this toolchain and these sources, from the cache directory
// root, building it there when root does not hold it yet (or holds a file of that name that another user may
// write, or that is not this user's). A root that is not this user's alone is refused.
func buildChildProgram(root string) (string, error) {
	goroot, err := goToolchain()
	if err != nil {
		return "", err
	}
	files, err := jailFiles()
	if err != nil {
		return "", fmt.Errorf("reading the embedded sources: %w", err)
	}
	version, err := os.ReadFile(filepath.Join(goroot, "VERSION"))
	if err != nil {
		version = []byte(goroot)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s/%s\x00%s\x00%s\x00", goroot, version, runtime.GOOS, runtime.GOARCH, childGoMod, childMainSource)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(files[name]))
		h.Write(files[name])
	}
	sum := hex.EncodeToString(h.Sum(nil)[:12])

	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	if err := ownedAlone(root); err != nil {
		return "", err
	}
	prog := filepath.Join(root, "child-"+sum)
	if p, err := openChildProgram(prog); err == nil {
		return p, nil
	}
	work, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "src")
	if err := os.MkdirAll(filepath.Join(src, "jail"), 0o700); err != nil {
		return "", err
	}
	write := map[string][]byte{"go.mod": []byte(childGoMod), "main.go": []byte(childMainSource)}
	for name, b := range files {
		write[filepath.Join("jail", name)] = b
	}
	for name, b := range write {
		if err := os.WriteFile(filepath.Join(src, name), b, 0o600); err != nil {
			return "", err
		}
	}
	tmp := filepath.Join(work, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), childProgramWallTime)
	defer cancel()
	out := filepath.Join(work, "child")
	cmd := exec.CommandContext(ctx, filepath.Join(goroot, "bin", "go"), "build", "-trimpath", "-buildvcs=false",
		"-ldflags=-s -w", "-o", out, ".")
	cmd.Dir = src
	cmd.Env = goBuildEnv(goroot, filepath.Join(root, "gocache"), tmp)
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the sandbox's child program: %v: %s", err, tail(string(output), 2048))
	}
	if err := os.Chmod(out, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(out, prog); err != nil {
		return "", err
	}
	return openChildProgram(prog)
}

// openChildProgram opens the child program at prog, checks that it is this user's and that no one else may
// write it, and returns the path by which a child executes it: its descriptor, /proc/self/fd/N, kept open
// for the life of the process. So the file executed is the one checked, and a child that executes it as
// another user (the root of a user namespace mapped to the star's user) needs no search permission on the
// cache directory, 0700, only the file's own 0755.
func openChildProgram(prog string) (string, error) {
	fd, err := unix.Open(prog, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		unix.Close(fd)
		return "", fmt.Errorf("%s is not this user's file, writable by it alone (uid %d, mode %o): remove it", prog, st.Uid, st.Mode)
	}
	// Between its clone and its exec a child moves the descriptors it inherits to 0 … 5 and, in doing so,
	// may use the few numbers above them: keep the program's descriptor well clear of those.
	high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, childProgramFD)
	unix.Close(fd)
	if err != nil {
		return "", fmt.Errorf("moving the child program's descriptor: %w", err)
	}
	return "/proc/self/fd/" + strconv.Itoa(high), nil
}

// childProgramFD is the lowest descriptor the child program is held open at.
const childProgramFD = 64

// ownedAlone checks that the directory p is this user's and that no one else may write it.
func ownedAlone(p string) error {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return fmt.Errorf("%s is not this user's directory, writable by it alone (uid %d, mode %o): remove it", p, st.Uid, st.Mode)
	}
	return nil
}
