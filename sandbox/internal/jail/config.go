package jail

import "syscall"

// Env is the environment variable that marks a process as the sandbox's child (its value is "1"; the Config
// comes through the gate, see ReadConfig).
const Env = "TRANSITBENCH_SANDBOX_CHILD"

// The child's descriptors besides stdin, stdout and stderr.
const (
	// StatusFD is the status pipe: it stays empty and is closed by the exec of the solution when the setup
	// succeeds, and carries the error message when it fails.
	StatusFD = 3
	// GateFD is the gate pipe. The runner writes the Config to it once the child is in its cgroup; the child
	// waits for that before it does anything else (ReadConfig). Then one byte once the star's files are
	// ready, which the child waits for before it reads them (WaitGate).
	GateFD = 4
	// TraceFD is the stage pipe, open only when Config.Trace is set (see Stages).
	TraceFD = 5
)

// Config is what the runner tells the child: where the star and the solution are, what to hide, which limits
// to set, which user to become, and what to execute.
type Config struct {
	Namespaces  bool        // set up the mount namespace (the process was cloned into new namespaces)
	UserNS      bool        // the namespaces are inside a new user namespace, where this process is root
	Star        string      // host path of the star directory, mounted at StarMount
	Solution    string      // host path of the solution snapshot, mounted at SolutionMount
	Bin         string      // host path of the built binary's directory, mounted at BinMount; may be empty
	Binds       []BindMount // further host directories to mount (the Go build's toolchain, cache and output)
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

	// Filter is the system-call filter to load before the exec of the solution, as the kernel takes it (struct
	// sock_filter, 8 bytes an instruction, in the machine's byte order); nil for none.
	Filter []byte
	Trace  bool     // record the setup's stages and write them to TraceFD before the exec
	Sys    Syscalls // the numbers of the system calls the standard library does not name everywhere
}

// Syscalls are the numbers, on the runner's architecture, of the system calls the child makes that the
// standard library's syscall package does not name on every architecture, and the O_PATH flag of open(2).
type Syscalls struct {
	Seccomp, Setns, OpenTree, MoveMount, MountSetattr, CloseRange int
	OPath                                                         int
}

// BindMount is a host directory mounted at Dst inside the sandbox, read-only unless Writable.
type BindMount struct {
	Src, Dst string
	Writable bool
}

// Where the star, the solution and the built binary appear inside the sandbox.
const (
	StarMount     = "/run/star"
	SolutionMount = "/run/solution"
	BinMount      = "/run/bin"
)

// Fail writes err to the status pipe and exits with 127.
func Fail(err error) {
	writeAll(StatusFD, []byte(err.Error()))
	syscall.Exit(127)
}

// writeAll writes all of b to fd, again after an interruption; a write that takes nothing is an EIO.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return syscall.EIO
		}
		b = b[n:]
	}
	return nil
}

// LookPath resolves a bare command name against the PATH in env.
func LookPath(name string, env []string) (string, error) {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return name, nil
		}
	}
	for _, kv := range env {
		if len(kv) < 5 || kv[:5] != "PATH=" {
			continue
		}
		for p := kv[5:]; ; {
			d := p
			end := len(p)
			for i := 0; i < len(p); i++ {
				if p[i] == ':' {
					d, end = p[:i], i
					break
				}
			}
			c := name
			if d != "" {
				for len(d) > 1 && d[len(d)-1] == '/' {
					d = d[:len(d)-1]
				}
				if d == "/" {
					d = ""
				}
				c = d + "/" + name
			}
			var st syscall.Stat_t
			if syscall.Stat(c, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFDIR && st.Mode&0o111 != 0 {
				return c, nil
			}
			if end == len(p) {
				break
			}
			p = p[end+1:]
		}
	}
	return "", errorf("executing %s: not found on the sandbox PATH", name)
}
