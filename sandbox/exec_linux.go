package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"transitbench/sandbox/internal/jail"
)

// namespaceFlags are the namespaces every star gets: mounts, PIDs (killing its init kills the tree),
// network (only a loopback interface, down), IPC and hostname.
const namespaceFlags = syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET |
	syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// startChild starts the child program (childProgram: the small program built from package jail, else this
// executable) as a sandbox child in cfg's namespaces, its stdout and stderr going to the given files, its
// status pipe to status and, when not nil, its stage pipe to trace (see stages.go). It returns the runner's end
// of the child's gate: the child waits there, doing nothing, until openGate hands it its configuration (after
// the runner has moved it into its cgroup), or exits when the gate closes without one, as it does when the
// runner dies. The start and the wait happen on one locked OS thread, because the parent-death signal fires
// when the thread that started a child exits.
func startChild(cfg childConfig, stdout, stderr, status, trace *os.File) (*child, *os.File, error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, err
	}
	defer devnull.Close()
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	sys := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if cfg.Namespaces {
		sys.Cloneflags = namespaceFlags
	}
	if cfg.UserNS {
		// Root of the new user namespace is the star's user when the runner is root, else the runner's user.
		uid, gid := os.Getuid(), os.Getgid()
		if cfg.UID >= 0 {
			uid, gid = cfg.UID, cfg.GID
		}
		sys.Cloneflags |= syscall.CLONE_NEWUSER
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
		// Only root may allow setgroups in the new namespace (and then clears the supplementary groups).
		sys.GidMappingsEnableSetgroups = isRoot()
		sys.Credential = &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: !isRoot()}
	}
	attr := &os.ProcAttr{
		Env:   childEnviron(),
		Files: []*os.File{devnull, stdout, stderr, status, gateR}, // gateR is jail.GateFD
		Sys:   sys,
	}
	if trace != nil {
		attr.Files = append(attr.Files, trace) // jail.TraceFD
	}
	c := &child{waited: make(chan waitResult, 1), group: !cfg.Namespaces, mountNS: -1}
	started := make(chan error, 1)
	program := childProgram()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p, err := os.StartProcess(program, []string{"transitbench-sandbox"}, attr)
		if err != nil {
			started <- err
			return
		}
		c.proc = p
		started <- nil
		st, err := p.Wait()
		c.waited <- waitResult{state: st, at: time.Now(), err: err}
	}()
	err = <-started
	gateR.Close()
	if err != nil {
		gateW.Close()
		return nil, nil, err
	}
	if cfg.Namespaces {
		// The child waits at its gate, in its new mount namespace (see child.mountNS).
		if fd, err := unix.Open("/proc/"+strconv.Itoa(c.proc.Pid)+"/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
			c.mountNS = fd
		}
	}
	return c, gateW, nil
}

// jailSyscalls are the numbers of the system calls the child makes that the standard library does not name on
// every architecture (see jail.Syscalls), from golang.org/x/sys's tables.
var jailSyscalls = jail.Syscalls{
	Seccomp:      unix.SYS_SECCOMP,
	Setns:        unix.SYS_SETNS,
	OpenTree:     unix.SYS_OPEN_TREE,
	MoveMount:    unix.SYS_MOVE_MOUNT,
	MountSetattr: unix.SYS_MOUNT_SETATTR,
	CloseRange:   unix.SYS_CLOSE_RANGE,
	OPath:        unix.O_PATH,
}

// treeRSS returns the resident memory of pid and all its descendants, in bytes. When pid is the init of its
// own PID namespace, its processes are exactly those listed in the namespace's /proc, reached through
// /proc/PID/root/proc: a few reads. Otherwise the whole /proc is scanned for the tree under pid (this kernel
// has no /proc/PID/task/TID/children). Processes that end during the scan are skipped.
func treeRSS(pid int, ownNamespace bool) int64 {
	procDir := "/proc"
	if ownNamespace {
		procDir = "/proc/" + strconv.Itoa(pid) + "/root/proc"
	}
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return 0
	}
	page := int64(os.Getpagesize())
	children := map[int][]int{}
	rss := map[int]int64{}
	var total int64
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(procDir + "/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid … with rss the 24th field; comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		children[ppid] = append(children[ppid], p)
		rss[p] = pages * page
		total += pages * page
	}
	if ownNamespace {
		return total
	}
	total = 0
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		total += rss[p]
		stack = append(stack, children[p]...)
	}
	return total
}

// userPIDs lists the live processes whose real user id is uid (zombies, already dead, are left out).
func userPIDs(uid int) []int {
	entries, _ := os.ReadDir("/proc")
	want := strconv.Itoa(uid)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		zombie := false
		for _, line := range strings.Split(string(b), "\n") {
			if f, ok := strings.CutPrefix(line, "State:"); ok {
				zombie = strings.HasPrefix(strings.TrimSpace(f), "Z")
			}
			if f, ok := strings.CutPrefix(line, "Uid:"); ok {
				if fs := strings.Fields(f); len(fs) > 0 && fs[0] == want && !zombie {
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	return pids
}

// allowedCPUs lists the CPUs this process may run on.
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := range 1024 {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

func probe() Isolation {
	if isRoot() {
		err := probeNamespaces(false)
		if err == nil {
			return Isolation{namespaces: true}
		}
		// A container may refuse root the namespaces yet allow them inside a user namespace.
		if probeNamespaces(true) == nil {
			return Isolation{namespaces: true, userNS: true, Missing: []string{err.Error() + ": the namespaces " +
				"work only inside a user namespace"}}
		}
		return Isolation{Missing: []string{err.Error() + ": no network, filesystem or process-tree isolation"}}
	}
	if err := probeNamespaces(true); err != nil {
		return Isolation{Missing: []string{"not running as root, and " + err.Error() + ": no namespaces and no " +
			"separate user, so the solution can read whatever your user can read, reach the network and leave " +
			"processes behind"}}
	}
	return Isolation{namespaces: true, userNS: true, Missing: []string{"not running as root: no separate user " +
		"(the solution runs as your user, in a user namespace, and can read what your user can read outside the masks)"}}
}

// runProbeChild starts a child of cfg (its output going to the runner's stderr) and waits for it. It returns
// what the child reported of its setup and how it ended; refused says in the error what a failed start means.
func runProbeChild(cfg childConfig, refused string) ([]byte, waitResult, error) {
	stR, stW, err := os.Pipe()
	if err != nil {
		return nil, waitResult{}, fmt.Errorf("cannot create a pipe (%v)", err)
	}
	defer stR.Close()
	c, gateW, err := startChild(cfg, os.Stderr, os.Stderr, stW, nil)
	stW.Close()
	if err != nil {
		return nil, waitResult{}, fmt.Errorf("%s (%v)", refused, err)
	}
	if err := sendConfig(gateW, cfg); err != nil {
		gateW.Close()
		c.proc.Kill()
		<-c.waited
		c.releaseNamespace()
		return nil, waitResult{}, fmt.Errorf("%s (%v)", refused, err)
	}
	openGate(gateW) // when this fails, the child has already failed, and says why on the status pipe
	msg, _ := io.ReadAll(stR)
	w := <-c.waited
	c.releaseNamespace()
	return msg, w, nil
}

// probeNamespaces starts one child that sets up a whole sandbox around empty directories and exits.
func probeNamespaces(userNS bool) error {
	dir, err := os.MkdirTemp("", "transitbench-probe-")
	if err != nil {
		return fmt.Errorf("cannot create a probe directory (%v)", err)
	}
	defer os.RemoveAll(dir)
	for _, d := range []string{"star", "solution"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("cannot create a probe directory (%v)", err)
		}
	}
	os.Chmod(dir, 0o755)
	uid := -1
	if isRoot() {
		uid, _, _ = uids.take(0) // a fresh id, as a star would have
	}
	cfg := childConfig{
		Namespaces: true, UserNS: userNS, Star: filepath.Join(dir, "star"), Solution: filepath.Join(dir, "solution"),
		Mask: []string{dir}, TmpBytes: 1 << 20, MemoryBytes: DefaultMemoryBytes, Processes: 16,
		FileBytes: 1 << 20, OpenFiles: 64, UID: uid, GID: uid, CPU: -1,
	}
	msg, w, err := runProbeChild(cfg, "the kernel refused new namespaces")
	if err != nil {
		return err
	}
	if len(msg) > 0 || w.err != nil || !w.state.Success() {
		return fmt.Errorf("setting up the namespaces failed (%s%v)", msg, w.err)
	}
	return nil
}
