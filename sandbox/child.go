package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// childEnv marks a process started by the runner as the sandbox's child; its value is the childConfig as JSON.
const childEnv = "TRANSITBENCH_SANDBOX_CHILD"

// childStatusFD is the child's end of the status pipe: it stays empty and is closed by the exec of the solution
// when setup succeeds, and carries the error message when setup fails.
const childStatusFD = 3

// childConfig is what the runner tells the child: where the star and the solution are, what to hide, which
// limits to set, which user to become, and what to execute.
type childConfig struct {
	Namespaces  bool        // set up the mount namespace (the process was cloned into new namespaces)
	UserNS      bool        // the namespaces are inside a new user namespace, where this process is root
	Star        string      // host path of the star directory, mounted at StarMount
	Solution    string      // host path of the solution snapshot, mounted at SolutionMount
	Bin         string      // host path of the built binary's directory, mounted at binMount; may be empty
	Binds       []bindMount // further host directories to mount (the Go build's toolchain, cache and output)
	Mask        []string    // resolved host paths to hide
	TmpBytes    int64
	MemoryBytes int64
	Processes   int
	FileBytes   int64
	OpenFiles   int
	UID, GID    int // the user to become (in a user namespace: the host user that its root maps to); -1 keeps the current one
	CPU         int // the CPU to pin to; -1 leaves the affinity alone
	Dir         string
	Argv        []string // nil in a probe: set everything up, then exit 0
	Env         []string

	Seccomp bool // load the system-call filter before the exec of the solution
	Trace   bool // record the setup's stages and write them to childTraceFD before the exec (see stages.go)
}

// bindMount is a host directory mounted at Dst inside the sandbox, read-only unless Writable.
type bindMount struct {
	Src, Dst string
	Writable bool
}

// The package's initialisation turns a sandbox child into the solution before the importing packages'
// init functions and main run. So every program and test binary that links this package serves as the
// sandbox child without further code, and a test binary that forgot the hook cannot start its own tests
// again inside the sandbox.
func init() {
	if IsChild() {
		ChildMain()
	}
}

// IsChild reports whether this process was started by the runner as a sandbox child. The package's init
// already calls ChildMain in that case; a main function may repeat the check to make the entry point
// explicit:
//
//	func main() {
//		if sandbox.IsChild() {
//			sandbox.ChildMain()
//		}
//		…
//	}
func IsChild() bool { return os.Getenv(childEnv) != "" }

// ChildMain sets up the sandbox in the current process (mounts, limits, user) and executes the solution in
// its place. It never returns. When setup fails it writes the reason to the status pipe and exits with 127.
func ChildMain() {
	// Affinity, no_new_privs and the parent-death signal belong to a thread: set them on the thread that
	// executes the solution.
	runtime.LockOSThread()
	entered := monotonicNow()
	waitForRunner() // until the runner has moved this process into the star's cgroup
	status := os.NewFile(childStatusFD, "status")
	var cfg childConfig
	if err := json.Unmarshal([]byte(os.Getenv(childEnv)), &cfg); err != nil {
		childFail(status, fmt.Errorf("reading the sandbox configuration: %w", err))
	}
	if cfg.Trace {
		childStages = &starTrace{}
		childStages.t[stageChildMain] = entered
		childStages.mark(stageChildGate)
	}
	if err := childSetup(&cfg, status); err != nil {
		childFail(status, err)
	}
	os.Exit(0) // a probe: everything was set up
}

func childFail(status *os.File, err error) {
	if status != nil {
		fmt.Fprint(status, err.Error())
	}
	os.Exit(127)
}

// lookPath resolves a bare command name against the PATH in env.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(p) {
				c := filepath.Join(d, name)
				if fi, err := os.Stat(c); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return c, nil
				}
			}
		}
	}
	return "", fmt.Errorf("executing %s: not found on the sandbox PATH", name)
}
