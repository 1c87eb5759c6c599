package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Each attack is a small solution that must fail harmlessly while the run completes and records why.
// Attacks through the kernel: the network, the host's unix sockets, user namespaces, refused system calls
// and inherited descriptors.

// countAccepts accepts and closes connections on ln, counting them in n, until ln is closed.
func countAccepts(ln net.Listener, n *atomic.Int32) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		c.Close()
	}
}

func TestAttackNetwork(t *testing.T) {
	requireFull(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go countAccepts(ln, &accepted)
	port := ln.Addr().(*net.TCPAddr).Port
	sol := writeSolution(t, map[string]string{"solution.py": `import socket, subprocess, sys
port = int(open(sys.argv[1] + "/port").read())
for host in ("127.0.0.1", "localhost", "10.0.2.2", "8.8.8.8"):
    try:
        s = socket.create_connection((host, port), timeout=1)
        print("CONNECTED", host)
    except OSError as e:
        print("refused", host, e, file=sys.stderr)
print(subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True).returncode, file=sys.stderr)
`})
	res := runOne(t, sol, Limits{}, map[string]string{"port": strconv.Itoa(port)})
	assertReason(t, res, ExitOK)
	if strings.Contains(string(res.Stdout), "CONNECTED") {
		t.Errorf("the solution connected: %q", res.Stdout)
	}
	if !strings.Contains(res.StderrTail, "refused 127.0.0.1") {
		t.Errorf("stderr %q: the connection attempt did not run", res.StderrTail)
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener saw %d connections from the sandbox", n)
	}
}

// TestAttackHostUnixSocket listens on unix sockets of the host outside /run and /tmp's view: in a world-writable
// directory of /var/tmp, in the host's /dev/shm and in the test's temporary directory. A read-only mount would
// not stop connect(2); only their absence from the sandbox's tree does.
func TestAttackHostUnixSocket(t *testing.T) {
	requireFull(t)
	var dirs []string
	for _, parent := range []string{"/var/tmp", "/dev/shm", t.TempDir()} {
		d := sharedTempDir(t, parent, "transitbench-test-sock-", 0o777)
		dirs = append(dirs, d)
	}
	os.Chmod(filepath.Dir(dirs[2]), 0o755) // the test's temporary directory: open to the sandbox user
	os.Chmod(filepath.Dir(filepath.Dir(dirs[2])), 0o755)
	var accepted atomic.Int32
	var paths []string
	for _, d := range dirs {
		p := filepath.Join(d, "s.sock")
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		os.Chmod(p, 0o777)
		go countAccepts(ln, &accepted)
		paths = append(paths, p)
	}
	sol := writeSolution(t, map[string]string{"solution.py": `import socket, sys
for p in open(sys.argv[1] + "/paths").read().split():
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p)
        print("CONNECTED", p)
    except OSError as e:
        print("refused", p, e, file=sys.stderr)
`})
	star := map[string]string{"paths": strings.Join(paths, "\n")}

	// Control: outside the sandbox the same client reaches every listener.
	out, errOut := runOnHost(t, sol, star)
	if n := strings.Count(out, "CONNECTED"); n != len(paths) {
		t.Fatalf("control: %d of %d connections on the host (stdout %q, stderr %q)", n, len(paths), out, errOut)
	}
	waitFor(t, func() bool { return accepted.Load() == int32(len(paths)) })
	accepted.Store(0)

	res := runOne(t, sol, Limits{}, star)
	assertReason(t, res, ExitOK)
	if strings.Contains(string(res.Stdout), "CONNECTED") {
		t.Errorf("the solution connected to a host socket: %q", res.Stdout)
	}
	for _, p := range paths {
		if !strings.Contains(res.StderrTail, "refused "+p+" [Errno 2]") {
			t.Errorf("stderr %q: want ENOENT for %s", res.StderrTail, p)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listeners saw %d connections from the sandbox", n)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not met within 5 s")
}

// withoutSeccomp is the machine's isolation minus the system-call filter: the controls of the seccomp attacks
// run under it to show that each attack works where the filter is missing.
func withoutSeccomp(t *testing.T) *Isolation {
	t.Helper()
	iso := Probe()
	if !iso.seccomp {
		t.Fatalf("isolation %s: the seccomp attacks need the filter", iso)
	}
	iso.seccomp = false
	iso.Missing = append(slices.Clone(iso.Missing), "seccomp: switched off for a control")
	return &iso
}

// namespaceEscape tries to become root of a new user namespace (unshare, then clone with the flags) and mount a
// tmpfs there; it prints what worked.
const namespaceEscape = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x20000, 17
uid, gid = os.getuid(), os.getgid()
if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0:
    print("UNSHARED")
    open("/proc/self/setgroups", "w").write("deny")
    open("/proc/self/uid_map", "w").write("0 %d 1" % uid)
    open("/proc/self/gid_map", "w").write("0 %d 1" % gid)
    if libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == 0:
        print("MOUNTED", os.getuid())
else:
    print("unshare refused:", os.strerror(ctypes.get_errno()), file=sys.stderr)
libc.syscall.restype = ctypes.c_long
pid = libc.syscall(56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)  # clone on x86-64
if pid == 0:
    os._exit(0)
if pid > 0:
    os.waitpid(pid, 0)
    print("CLONED")
else:
    print("clone refused:", os.strerror(ctypes.get_errno()), file=sys.stderr)
`

// TestAttackUserNamespace: a star may not become root of a new user namespace (by unshare, clone or the unshare
// command) and mount there.
func TestAttackUserNamespace(t *testing.T) {
	requireFull(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("the attack script uses the x86-64 number of clone; this is %s", runtime.GOARCH)
	}
	sol := writeSolution(t, map[string]string{"solution.py": namespaceEscape})
	shell := shellSolution(t, `unshare -Urm sh -c 'mount -t tmpfs x /tmp && echo MOUNTED'; exit 0`)
	_, unshareErr := os.Stat("/usr/bin/unshare")

	// Control: without the filter the same script gets a user namespace and mounts in it.
	r := &Runner{Workers: 1, isolation: withoutSeccomp(t)}
	res := runJobs(t, r, sol, starJob("control", nil))["control"]
	for _, want := range []string{"UNSHARED\n", "MOUNTED 0\n", "CLONED\n"} {
		if !strings.Contains(string(res.Stdout), want) {
			t.Fatalf("control: stdout %q lacks %q (stderr %q): the attack does not work even without the filter",
				res.Stdout, want, res.StderrTail)
		}
	}
	if unshareErr == nil {
		res = runJobs(t, r, shell, starJob("control-cmd", nil))["control-cmd"]
		if string(res.Stdout) != "MOUNTED\n" {
			t.Fatalf("control: unshare -Urm printed %q (stderr %q)", res.Stdout, res.StderrTail)
		}
	}

	res = runOne(t, sol, Limits{}, nil)
	assertReason(t, res, ExitOK)
	if len(res.Stdout) != 0 {
		t.Errorf("under the filter the solution got: %q", res.Stdout)
	}
	for _, want := range []string{"unshare refused: Operation not permitted", "clone refused: Operation not permitted"} {
		if !strings.Contains(res.StderrTail, want) {
			t.Errorf("stderr %q lacks %q", res.StderrTail, want)
		}
	}
	if unshareErr == nil {
		res = runOne(t, shell, Limits{}, nil)
		if len(res.Stdout) != 0 || !strings.Contains(res.StderrTail, "Operation not permitted") {
			t.Errorf("unshare -Urm under the filter: stdout %q, stderr %q", res.Stdout, res.StderrTail)
		}
	}
}

// kernelCalls makes refused system calls with arguments for which the kernel itself would answer otherwise
// (a missing process, a null pointer, a bad descriptor), and prints "name errno" for each ("name 0" when the
// call succeeded). It also makes an i386 system call (getpid by int 0x80) from machine code in memory, in a child
// process ("i386_getpid -1" when the kernel, having no i386 ABI, killed it).
const kernelCalls = `import ctypes, errno, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(name, nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(nr, *[ctypes.c_long(a) for a in args])
    print(name, ctypes.get_errno() if r < 0 else 0, flush=True)
    if name == "userfaultfd" and r >= 0:
        os.close(r)
# x86-64 numbers
call("ptrace", 101, 16, 999999, 0, 0)                 # PTRACE_ATTACH to no process: ESRCH
call("process_vm_readv", 310, 999999, 0, 1, 0, 1, 0)  # local iovec NULL: EFAULT
call("perf_event_open", 298, 0, 0, -1, -1, 0)         # attr NULL: EFAULT
call("userfaultfd", 323, 1)                           # UFFD_USER_MODE_ONLY: a descriptor
call("bpf", 321, 0, 0, 0)                             # BPF_MAP_CREATE with no attr
call("kexec_load", 246, 0, 0, 0, 0)
call("kexec_file_load", 320, -1, -1, 0, 0, 0)
call("init_module", 175, 0, 0, 0)
call("finit_module", 313, -1, 0, 0)
call("delete_module", 176, 0, 0)
call("setns", 308, -1, 0)                             # bad descriptor: EBADF
call("io_uring_setup", 425, 1, 0)                     # params NULL: EFAULT
call("name_to_handle_at", 303, -100, 0, 0, 0, 0)      # path NULL: EFAULT
call("keyctl", 250, 0, -4, 0, 0, 0)                   # KEYCTL_GET_KEYRING_ID of the user keyring
call("clone3", 435, 0, 0)                             # no args: EINVAL
call("adjtimex", 159, 0)                              # buf NULL: EFAULT
call("syslog", 103, 10, 0, 0)                         # SYSLOG_ACTION_SIZE_BUFFER
# i386: mov eax, 20 (getpid); int 0x80; ret. In a child process: on a kernel built without the i386 ABI
# (no IA32 emulation) int 0x80 kills its caller with SIGSEGV, printed as -1.
pid = os.fork()
if pid == 0:
    code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(b"\xb8\x14\x00\x00\x00\xcd\x80\xc3")
    f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(code)))
    r = f()
    print("i386_getpid", -r if r < 0 else 0, flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
if os.WIFSIGNALED(status):
    print("i386_getpid", -1, flush=True)
`

// TestAttackKernelCalls: the system calls that reach into other processes or the kernel are refused by the
// filter, and so is the i386 system-call ABI.
func TestAttackKernelCalls(t *testing.T) {
	requireFull(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("the attack script uses x86-64 system call numbers and machine code; this is %s", runtime.GOARCH)
	}
	sol := writeSolution(t, map[string]string{"solution.py": kernelCalls})
	parse := func(res Result) map[string]int { return probeCodes(t, res) }
	r := &Runner{Workers: 1, isolation: withoutSeccomp(t)}
	control := parse(runJobs(t, r, sol, starJob("control", nil))["control"])
	filtered := parse(runOne(t, sol, Limits{}, nil))
	eperm, enosys := int(unix.EPERM), int(unix.ENOSYS)
	// Control: the calls whose arguments the kernel rejects by itself, or which work, answer otherwise without
	// the filter, so EPERM under it comes from the filter.
	for name, want := range map[string]int{"ptrace": int(unix.ESRCH), "process_vm_readv": int(unix.EFAULT),
		"perf_event_open": int(unix.EFAULT), "userfaultfd": 0, "setns": int(unix.EBADF),
		"io_uring_setup": int(unix.EFAULT), "name_to_handle_at": int(unix.EFAULT), "keyctl": 0,
		"clone3": int(unix.EINVAL), "adjtimex": int(unix.EFAULT)} {
		if got, ok := control[name]; !ok || got != want {
			t.Errorf("control: %s answered %d (present %v), want %d without the filter", name, got, ok, want)
		}
	}
	for _, name := range []string{"ptrace", "process_vm_readv", "perf_event_open", "userfaultfd", "bpf", "kexec_load",
		"kexec_file_load", "init_module", "finit_module", "delete_module", "setns", "io_uring_setup",
		"name_to_handle_at", "keyctl", "adjtimex", "syslog"} {
		if got, ok := filtered[name]; !ok || got != eperm {
			t.Errorf("%s answered %d (present %v) under the filter, want EPERM", name, got, ok)
		}
	}
	if got := filtered["clone3"]; got != enosys {
		t.Errorf("clone3 answered %d under the filter, want ENOSYS", got)
	}
	// The i386 ABI: refused by the filter's architecture check where the kernel has it. A kernel built without
	// IA32 emulation kills any caller of int 0x80 (seen on Linux 6.18 here), with or without the filter; the
	// check is then proved only by TestSeccompFilter's interpreter run, and the solution must still not get an
	// answer.
	switch ctl, ok := control["i386_getpid"]; {
	case !ok || (ctl != 0 && ctl != -1):
		t.Errorf("control: i386 getpid answered %d (present %v), want 0, or -1 on a kernel without the i386 ABI", ctl, ok)
	case ctl == -1:
		t.Logf("this kernel has no i386 system-call ABI (int 0x80 kills its caller); the filter's ABI check is proved by TestSeccompFilter")
		if got := filtered["i386_getpid"]; got != -1 && got != enosys {
			t.Errorf("the i386 getpid answered %d under the filter on a kernel without the i386 ABI", got)
		}
	default:
		if got, ok := filtered["i386_getpid"]; !ok || got != enosys {
			t.Errorf("the i386 getpid answered %d (present %v) under the filter, want ENOSYS", got, ok)
		}
	}
}

// TestAttackInheritedDescriptors: descriptors the runner's process holds without close-on-exec (left open by
// whatever started it) do not reach the solution: it reads and writes nothing through descriptors 3 to 64 or
// their /proc/self/fd links, and cannot fchdir through them.
func TestAttackInheritedDescriptors(t *testing.T) {
	requireFull(t)
	dir := fakeDataDir(t) // masked below: the descriptors are the only way in
	secretPath, logPath := filepath.Join(dir, "answers.json"), filepath.Join(dir, "runner.log")
	if err := os.WriteFile(logPath, []byte("log start\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	var fds []int
	for _, f := range []struct {
		path string
		mode int
	}{{secretPath, syscall.O_RDONLY}, {logPath, syscall.O_WRONLY | syscall.O_APPEND}, {dir, syscall.O_RDONLY | syscall.O_DIRECTORY}} {
		fd, err := syscall.Open(f.path, f.mode, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil { // inheritable, as a careless parent leaves it
			t.Fatal(err)
		}
		fds = append(fds, fd)
	}
	if fds[2] > 64 {
		t.Fatalf("descriptor %d is past the 64 the attack tries", fds[2])
	}

	// Control: a child that Go starts inherits them, so the sandbox child does too until it closes them.
	out, err := exec.Command("/bin/sh", "-c", fmt.Sprintf(`cat /proc/self/fd/%d; echo FROM-CHILD >&%d; ls /proc/self/fd/%d/`,
		fds[0], fds[1], fds[2])).CombinedOutput()
	if b, _ := os.ReadFile(logPath); err != nil || !strings.Contains(string(out), secret) || !strings.Contains(string(b), "FROM-CHILD") {
		t.Fatalf("control: a child of the test did not inherit the descriptors (%v): %q; log %q", err, out, b)
	}
	if err := os.WriteFile(logPath, []byte("log start\n"), 0o666); err != nil {
		t.Fatal(err)
	}

	sol := writeSolution(t, map[string]string{"solution.py": `import os
print("fds=" + ",".join(sorted(os.listdir("/proc/self/fd"), key=int)), flush=True)
for fd in range(3, 65):
    try:
        print("READ", fd, os.pread(fd, 200, 0), flush=True)
    except OSError:
        pass
    try:
        with open("/proc/self/fd/%d" % fd, "rb") as f:
            print("PROC", fd, f.read(200), flush=True)
    except OSError:
        pass
    try:
        os.write(fd, b"WRITTEN-BY-STAR\n")
        print("WROTE", fd, flush=True)
    except OSError:
        pass
    try:
        os.fchdir(fd)
        print("FCHDIR", fd, os.listdir("."), flush=True)
    except OSError:
        pass
print("done")
`})
	res := runOne(t, sol, Limits{Mask: []string{dir}}, nil)
	assertReason(t, res, ExitOK)
	mustNotContain(t, res, secret)
	out = res.Stdout
	// listdir's own descriptor is the one above 2.
	if !strings.HasPrefix(string(out), "fds=0,1,2,3\n") || !strings.HasSuffix(string(out), "done\n") {
		t.Errorf("stdout %q: want only 0, 1, 2 (and listdir's own) open, and the attack run to its end", truncate(string(out)))
	}
	for _, bad := range []string{"READ", "PROC", "WROTE", "FCHDIR"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("the solution got through a descriptor: %q", truncate(string(out)))
			break
		}
	}
	if b, err := os.ReadFile(logPath); err != nil || string(b) != "log start\n" {
		t.Errorf("the runner's log changed: %q, %v", b, err)
	}
}

// hardenedStatus is the line of /proc/self/status that shows the filter in force: mode 2, one filter.
const hardenedStatus = "Seccomp:\t2\n"

// TestHardenedSolutionsRun: under the filter, with an inherited-descriptor sweep and a fresh user, the forms of
// solution still work: Python with numpy (threads, a subprocess), a static Go binary (threads, os/exec), and a
// shell script with pipes, subshells and background jobs.
func TestHardenedSolutionsRun(t *testing.T) {
	requireFull(t)
	sols := map[string]struct {
		files map[string]string
		want  string
	}{
		"numpy": {map[string]string{"solution.py": `import socket, subprocess, threading
import numpy
u, s, vt = numpy.linalg.svd(numpy.random.rand(50, 50))
out = []
th = threading.Thread(target=lambda: out.append(int(numpy.allclose((u * s) @ vt, (u * s) @ vt))))
th.start(); th.join()
print(len(s), out[0], subprocess.run(["/bin/echo", "sub"], capture_output=True, text=True).stdout.strip())
a, b = socket.socketpair(); a.send(b"x")
import sqlite3  # locks its file (fcntl F_SETLK), a no-op under the filter
db = sqlite3.connect("/tmp/db"); db.execute("create table t (x)"); db.execute("insert into t values (1)"); db.commit()
print(b.recv(1).decode(), [name for _, name in socket.if_nameindex()])
print([l for l in open("/proc/self/status") if l.startswith("Seccomp:")][0], end="")
`}, "50 1 sub\nx ['lo']\n" + hardenedStatus},
		"go": {map[string]string{"main.go": `package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

func main() {
	// Sockets: a unix listener in /tmp, and the interfaces through netlink (NETLINK_ROUTE).
	ln, err := net.Listen("unix", "/tmp/sock")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln.Close()
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) != 1 || ifs[0].Name != "lo" {
		fmt.Fprintln(os.Stderr, "interfaces:", ifs, err)
		os.Exit(1)
	}
	var wg sync.WaitGroup
	sums := make([]int, 8)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // a thread of its own: clone with the thread flags
			for j := range 100000 {
				sums[i] += j % 7
			}
		}()
	}
	wg.Wait()
	out, err := exec.Command("/bin/sh", "-c", "echo child").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Seccomp:") {
			fmt.Printf("%d %s%s\n", sums[3], out, l)
		}
	}
}
`}, "299995 child\n" + hardenedStatus}, // Σ j mod 7 over 0…99999: 14285 cycles of 21, then 0+1+2+3+4
		"shell": {map[string]string{"run": `#!/bin/sh
x=$(echo abc | tr a-c x-z)
(echo "sub $x") | cat
sh -c 'echo child' &
wait
grep Seccomp: /proc/self/status
`}, "sub xyz\nchild\n" + hardenedStatus},
	}
	for name, c := range sols {
		t.Run(name, func(t *testing.T) {
			res := runOne(t, writeSolution(t, c.files), Limits{}, map[string]string{"star.json": "{}"})
			assertReason(t, res, ExitOK)
			if string(res.Stdout) != c.want {
				t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, c.want, truncate(res.StderrTail))
			}
			want := Protections{Namespaces: true, Seccomp: true, Cgroup: true, FreshUID: true}
			if res.Protections != want {
				t.Errorf("protections %+v, want %+v", res.Protections, want)
			}
		})
	}
}
