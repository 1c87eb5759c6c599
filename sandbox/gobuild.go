package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The Go build of a solution runs in a sandbox of its own, as a star does: the solution's files can steer the
// toolchain (an assembler #include of an absolute path, //go:embed, go.mod directives), so the toolchain sees
// only the snapshot (read-only), its own GOROOT (read-only), the solution's build cache and the output
// directory, with no network, as an unprivileged user, within goBuildWallTime and goBuildMemoryBytes.
var goBuildWallTime = 120 * time.Second // a variable so that tests can shorten it

// goSeedWallTime bounds the build of the seed cache, which compiles a good part of the standard library (tens of
// seconds on a busy two-core machine); it builds only the package's own program.
const goSeedWallTime = 10 * time.Minute

const (
	goBuildMemoryBytes = 2 << 30
	goBuildOutputBytes = 8 << 10 // the end of the build's output kept for the error message
	goCacheMount       = "/run/gocache"
	goBuildTmp         = "/tmp"
)

// goModAllowed are the go.mod directives a solution may use: it builds offline with the standard library
// alone, so requirements, replacements (which can point anywhere on the host) and tools are refused; the
// directives that only describe the module itself or the runtime's settings are allowed, in a line or a block.
var goModAllowed = map[string]bool{"module": true, "go": true, "toolchain": true, "godebug": true, "retract": true,
	"exclude": true, "ignore": true}

// goExternalExts are the file extensions the go command hands to a tool outside the Go toolchain (the C, C++,
// Objective-C or Fortran compiler, SWIG, or, for a host object, the external linker): a solution may not hold
// them. Go assembly (.s) and headers it includes (.h) are the Go assembler's own and stay allowed.
var goExternalExts = map[string]bool{".syso": true, ".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true,
	".m": true, ".S": true, ".sx": true, ".f": true, ".F": true, ".for": true, ".f90": true, ".swig": true,
	".swigcxx": true}

// buildGo builds the Go main package of the snapshot stage/solution into stage/bin/solution. src is the
// solution's own directory: it names the build cache (under cacheRoot) and appears in messages.
func buildGo(ctx context.Context, src, stage, cacheRoot string) error {
	snapshot, out := filepath.Join(stage, "solution"), filepath.Join(stage, "bin")
	if err := checkGoMod(snapshot); err != nil {
		return err
	}
	if err := checkGoExternal(snapshot, src); err != nil {
		return err
	}
	goroot, err := goToolchain()
	if err != nil {
		return fmt.Errorf("sandbox: building the Go solution in %s: %w", src, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	args := []string{"build", "-trimpath", "-buildvcs=false", "-o", binMount + "/solution"}
	if _, err := os.Stat(filepath.Join(snapshot, "go.mod")); err != nil {
		// No module: build the package's files directly, as `go run *.go` would.
		files, _ := filepath.Glob(filepath.Join(snapshot, "*.go"))
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				args = append(args, filepath.Base(f))
			}
		}
	} else {
		args = append(args, ".")
	}
	cache, err := goCacheDir(ctx, src, goroot, cacheRoot)
	if err != nil {
		return err
	}
	// One build at a time per cache: each build hands the cache to its own user and back.
	lock, err := os.OpenFile(cache+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("sandbox: locking the Go build cache: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("sandbox: locking the Go build cache: %w", err)
	}
	output, err := runGoBuild(ctx, goBuildWallTime, goroot, snapshot, out, cache, args)
	// Whatever the build's outcome, its cache stays within its cap, and the caches of root within theirs; the
	// .src file's time says when the solution directory was last built.
	trimGoCache(cache, goCacheSolutionBytes)
	now := time.Now()
	os.Chtimes(cache+".src", now, now)
	trimGoCaches(cacheRoot, cache, goCacheTotalBytes)
	if err != nil {
		return fmt.Errorf("building the Go solution in %s failed: %w\n%s", src, err, output)
	}
	bin := filepath.Join(out, "solution")
	if fi, err := os.Lstat(bin); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("building the Go solution in %s produced no program (is it a main package?)\n%s", src, output)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

// errGoBuild is the failure of the go command itself: the compiler's messages follow it.
var errGoBuild = errors.New("fix the build errors below and try again")

// errGoBuildMemory is a build stopped by its memory cap: killed in its cgroup, or a tool of the toolchain whose
// allocation failed under the address-space cap.
var errGoBuildMemory = fmt.Errorf("the build ran out of memory (%d GiB): keep the code (and any constant expressions or assembler macros) small enough to compile within it", goBuildMemoryBytes>>30)

// runGoBuild runs `go args…` on the snapshot with out as binMount and cache as goCacheMount, in a sandbox when
// the machine allows one and directly otherwise, for at most wall, and returns the end of its output.
func runGoBuild(ctx context.Context, wall time.Duration, goroot, snapshot, out, cache string, args []string) (string, error) {
	iso := Probe()
	if !iso.namespaces {
		return runGoBuildHost(ctx, wall, goroot, snapshot, out, cache, args)
	}
	uid := -1
	if isRoot() {
		// A user id of its own, as a star's: nothing the build leaves in per-user kernel objects reaches a star.
		var err error
		if uid, _, err = uids.take(0); err != nil && iso.freshUID {
			return "", err
		}
		// The build user writes the output and the cache, which go back to root afterwards.
		if err := chownTree(cache, uid); err != nil {
			return "", err
		}
		defer chownTree(cache, 0)
		if err := chownTree(out, uid); err != nil {
			return "", err
		}
		defer chownTree(out, 0)
	}
	filter, err := filterFor(iso.seccomp)
	if err != nil {
		return "", err
	}
	cfg := childConfig{
		Namespaces: true,
		UserNS:     iso.userNS,
		Solution:   snapshot,
		Binds: []bindMount{
			{Src: goroot, Dst: goroot},
			{Src: out, Dst: binMount, Writable: true},
			{Src: cache, Dst: goCacheMount, Writable: true},
		},
		TmpBytes:    DefaultTmpBytes,
		MemoryBytes: goBuildMemoryBytes,
		Processes:   DefaultProcesses,
		FileBytes:   DefaultFileBytes,
		OpenFiles:   DefaultOpenFiles,
		UID:         uid,
		GID:         uid,
		CPU:         -1,
		Filter:      filter,
		Dir:         SolutionMount,
		Argv:        append([]string{goroot + "/bin/go"}, args...),
		Env:         goBuildEnv(goroot, goCacheMount, goBuildTmp),
	}
	// One byte more than is shown, so that tail can tell that output was cut.
	lim := Limits{MemoryBytes: goBuildMemoryBytes, StdoutBytes: 64 << 10, StderrBytes: goBuildOutputBytes + 1}.withDefaults()
	cgroups, iso := runCgroups(iso)
	defer cgroups.remove()
	st := &starRun{iso: iso, lim: lim, cpu: -1, cgroups: cgroups}
	res := st.exec(ctx, st.newSlot(cfg), wall, Result{StarID: "go build", Isolation: iso.String(), ExitCode: -1})
	output := strings.TrimSpace(tail(string(res.Stdout)+"\n"+res.StderrTail, goBuildOutputBytes))
	switch res.ExitReason {
	case ExitOK:
		return output, nil
	case ExitCode:
		return output, errGoBuild
	case ExitTimeout:
		return output, fmt.Errorf("the build ran past its %v limit and was stopped: keep the code (and any assembler macros) small enough to compile in that time", wall)
	case ExitMemory:
		// The end of the output is the crashed tool's goroutine dumps: not shown.
		return "", errGoBuildMemory
	case ExitCancelled:
		return output, ctx.Err()
	case ExitStartFailed:
		return output, fmt.Errorf("the build's sandbox could not be set up (the reason follows)")
	}
	return output, fmt.Errorf("the go command ended with %s (code %d)", res.ExitReason, res.ExitCode)
}

// runGoBuildHost runs the build without a sandbox, where the machine has none (degraded isolation): with the
// same clean environment and limits of time and output, as the user running the benchmark.
func runGoBuildHost(ctx context.Context, wall time.Duration, goroot, snapshot, out, cache string, args []string) (string, error) {
	tmp, err := os.MkdirTemp("", "transitbench-gobuild-")
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(ctx, wall)
	defer cancel()
	for i, a := range args {
		args[i] = strings.Replace(a, binMount, out, 1)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(goroot, "bin", "go"), args...)
	cmd.Dir = snapshot
	cmd.Env = goBuildEnv(goroot, cache, tmp)
	var buf tailBuffer
	buf.max = goBuildOutputBytes + 1
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	output := strings.TrimSpace(tail(buf.String(), goBuildOutputBytes))
	switch {
	case err == nil:
		return output, nil
	case ctx.Err() == context.DeadlineExceeded:
		return output, fmt.Errorf("the build ran past its %v limit and was stopped: keep the code (and any assembler macros) small enough to compile in that time", wall)
	case ctx.Err() != nil:
		return output, ctx.Err()
	case buf.goOOM:
		return "", errGoBuildMemory
	}
	return output, errGoBuild
}

// goBuildEnv is the whole environment of the go command: no configuration file, flags, workspace, proxy,
// checksum database, toolchain download or cgo; home, GOPATH and temporary files under tmp.
func goBuildEnv(goroot, cache, tmp string) []string {
	return []string{
		"PATH=" + goroot + "/bin:/usr/bin:/bin",
		"GOROOT=" + goroot,
		"HOME=" + tmp,
		"TMPDIR=" + tmp,
		"GOTMPDIR=" + tmp,
		"GOPATH=" + tmp + "/gopath",
		"GOMODCACHE=" + tmp + "/gopath/pkg/mod",
		"GOCACHE=" + cache,
		"GOENV=off",
		"GOFLAGS=",
		"GOWORK=off",
		"GOPROXY=off",
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=0",
		"LANG=C.UTF-8",
	}
}

// goToolchain finds the GOROOT of the go command on PATH (through its symbolic links: Debian's /usr/bin/go
// lives in /usr/lib/go-1.x/bin).
func goToolchain() (string, error) {
	p, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("the go command is not on PATH: install Go, or write solution.py")
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("resolving the go command %s: %w", p, err)
	}
	root := filepath.Dir(filepath.Dir(real))
	for _, need := range []string{"bin/go", "src/runtime", "pkg/tool"} {
		if _, err := os.Stat(filepath.Join(root, need)); err != nil {
			return "", fmt.Errorf("the go command %s has no GOROOT around it (no %s in %s): install Go from go.dev or your distribution's golang package", p, need, root)
		}
	}
	return root, nil
}

// checkGoMod refuses a go.mod with directives that would reach beyond the standard library. It reads go.mod's
// syntax: a directive on a line of its own, or a block, `directive (` … `)`, whose lines are its entries.
func checkGoMod(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox: reading the solution's go.mod: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	inBlock := false
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case inBlock:
			inBlock = f[0] != ")"
			continue
		case !goModAllowed[f[0]]:
			return fmt.Errorf("sandbox: go.mod line %d has a %q directive: a Go solution builds offline with the standard library alone; remove it (copy any code it needs into the solution)", n, f[0])
		}
		inBlock = f[len(f)-1] == "(" || strings.HasSuffix(f[len(f)-1], "(")
	}
	return nil
}

// checkGoExternal refuses the files of the snapshot that would make the build run a program outside the Go
// toolchain although cgo is off: sources and objects of other tool chains (goExternalExts), files named like
// cgo's generated code (_cgo_*), and //go:cgo_ directives (linker flags, dynamic imports: they are meant for
// cgo's generated code and steer the external linker). src is the solution's own directory, for messages.
func checkGoExternal(snapshot, src string) error {
	return filepath.WalkDir(snapshot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("sandbox: reading the solution: %w", err)
		}
		rel, _ := filepath.Rel(snapshot, path)
		name := d.Name()
		switch {
		case d.IsDir():
			return nil
		case goExternalExts[filepath.Ext(name)] || strings.HasPrefix(name, "_cgo_"):
			return fmt.Errorf("sandbox: %s would make the Go build run an external program (a C tool chain, SWIG or the system linker), and a Go solution builds with the Go toolchain alone, cgo off: remove it (Go assembly, .s, is allowed)", filepath.Join(src, rel))
		case filepath.Ext(name) != ".go":
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("sandbox: reading the solution: %w", err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//go:cgo_") {
				return fmt.Errorf("sandbox: %s:%d has a //go:cgo_ directive, which would make the Go build run an external program (the system linker), and a Go solution builds with the Go toolchain alone, cgo off: remove it", filepath.Join(src, rel), n+1)
			}
		}
		return nil
	})
}

// goCacheDir returns the build cache of the solution directory src under root, creating it from the seed when
// new. Each solution directory (a workspace's solution/, a frozen copy) has a cache of its own under root (the
// data directory's cache/gobuild),
// which its stars never see: the build may write anything into its cache (it is writable to the build's
// sandbox), so a shared cache would let one solution's build plant objects in another's. The seed is built once
// per toolchain from the package's own list of standard-library imports, so that the first build of a solution
// does not compile the standard library again.
func goCacheDir(ctx context.Context, src, goroot, root string) (string, error) {
	if root == "" {
		return "", errNoCacheDir
	}
	sum := sha256.Sum256([]byte(src))
	dir := filepath.Join(root, hex.EncodeToString(sum[:8]))
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, nil
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: creating the Go build cache %s: %w", root, err)
	}
	pruneGoCaches(root)
	tmp, err := os.MkdirTemp(root, "new-")
	if err != nil {
		return "", fmt.Errorf("sandbox: creating the Go build cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if seed := goSeedCache(ctx, goroot); seed != "" {
		if err := copyCache(tmp, seed); err != nil {
			return "", err
		}
	}
	// The solution directory's path, beside the cache (where no build writes), lets a later build remove the
	// cache once the directory is gone.
	if err := os.WriteFile(dir+".src", []byte(src), 0o600); err != nil {
		return "", fmt.Errorf("sandbox: creating the Go build cache: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return dir, nil // made at the same time by another run
		}
		return "", fmt.Errorf("sandbox: creating the Go build cache %s: %w", dir, err)
	}
	return dir, nil
}

// pruneGoCaches removes the caches in root whose solution directory no longer exists (a deleted workspace, a
// test's temporary one) and the half-made ones that a killed run left more than an hour ago.
func pruneGoCaches(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := filepath.Join(root, e.Name())
		if strings.HasPrefix(e.Name(), "new-") || strings.HasPrefix(e.Name(), "seed-build-") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				os.RemoveAll(name)
			}
			continue
		}
		key, ok := strings.CutSuffix(e.Name(), ".src")
		if !ok {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if _, err := os.Stat(string(src)); errors.Is(err, fs.ErrNotExist) {
			os.RemoveAll(filepath.Join(root, key))
			os.Remove(filepath.Join(root, key) + ".lock")
			os.Remove(name)
		}
	}
}

// goCacheRoot is the directory of the Go build caches in the data directory home (masked from every star):
// home/cache/gobuild; "" without a home.
func goCacheRoot(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, "cache", "gobuild")
}

// errNoCacheDir is Prepare's error for a Go solution that has no build cache directory.
var errNoCacheDir = errors.New("sandbox: Solution.CacheDir is empty: a Go solution is built with a cache of its own " +
	"in a directory no star sees; set CacheDir (the data directory's cache/gobuild) or let Runner.Run prepare it " +
	"(under Runner.Home)")

// seedProgram imports the standard-library packages a solution is likely to use; its build fills the seed cache.
const seedProgram = `package main

import (
	_ "bufio"
	_ "bytes"
	_ "container/heap"
	_ "encoding/binary"
	_ "encoding/csv"
	_ "encoding/json"
	_ "errors"
	_ "flag"
	_ "fmt"
	_ "io"
	_ "math"
	_ "math/bits"
	_ "math/rand/v2"
	_ "os"
	_ "path/filepath"
	_ "runtime"
	_ "slices"
	_ "sort"
	_ "strconv"
	_ "strings"
	_ "sync"
	_ "time"
)

func main() {}
`

// goSeedCache returns the seed cache of the toolchain at goroot, building it first when needed; "" when it
// cannot be built (the solution's build then starts from an empty cache). The seeds live in the user's cache
// directory (~/.cache/transitbench/gobuild-seed): only builds of seedProgram write them, so every data directory
// of the machine may share them.
func goSeedCache(ctx context.Context, goroot string) string {
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	root := filepath.Join(c, "transitbench", "gobuild-seed")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return ""
	}
	pruneGoCaches(root)
	version, err := os.ReadFile(filepath.Join(goroot, "VERSION"))
	if err != nil {
		version = []byte(goroot)
	}
	sum := sha256.Sum256(append([]byte(goroot+"\x00"), version...))
	seed := filepath.Join(root, hex.EncodeToString(sum[:8]))
	if fi, err := os.Stat(seed); err == nil && fi.IsDir() {
		return seed
	}
	work, err := os.MkdirTemp(root, "seed-build-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(work)
	for _, d := range []string{"solution", "bin", "cache"} {
		if err := os.Mkdir(filepath.Join(work, d), 0o755); err != nil {
			return ""
		}
	}
	os.Chmod(work, 0o755)
	if err := os.WriteFile(filepath.Join(work, "solution", "main.go"), []byte(seedProgram), 0o644); err != nil {
		return ""
	}
	args := []string{"build", "-trimpath", "-buildvcs=false", "-o", binMount + "/solution", "main.go"}
	cache := filepath.Join(work, "cache")
	if _, err := runGoBuild(ctx, goSeedWallTime, goroot, filepath.Join(work, "solution"), filepath.Join(work, "bin"), cache, args); err != nil {
		return ""
	}
	if err := os.Rename(cache, seed); err != nil {
		if fi, serr := os.Stat(seed); serr == nil && fi.IsDir() {
			return seed
		}
		return ""
	}
	return seed
}

// copyCache copies the build cache src (directories and regular files) into the existing directory dst.
func copyCache(dst, src string) error {
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
			return os.Mkdir(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(target, path, 0o644)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sandbox: seeding the Go build cache: %w", err)
	}
	return nil
}

// chownTree gives the tree at dir (not following links) to uid, with the same group id.
func chownTree(dir string, uid int) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, uid)
	})
	if err != nil {
		return fmt.Errorf("sandbox: preparing the Go build: %w", err)
	}
	return nil
}

// tail returns the last max bytes of s.
func tail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return "…" + s[len(s)-max:]
}
