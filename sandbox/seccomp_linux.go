package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// refusedSyscalls are the system calls a star may not make: each fails with EPERM. They are the holes that
// namespaces, an unprivileged user and an empty capability set leave open or that only a kernel setting closes
// (SPEC A6, "Hardening"), and what nsjail's and Docker's default policies refuse that Python with numpy, a Go
// binary and a shell do not need. Names this architecture lacks (iopl, ioperm, uselib on arm64) are skipped.
var refusedSyscalls = []string{
	// New namespaces (a new user namespace makes its creator root inside it) and entering others'.
	"unshare", "setns",
	// The kernel keyring: per-user objects that outlive the star and can be shared with other users.
	"add_key", "keyctl", "request_key",
	// The mount family, old and new API.
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "open_tree_attr", "fsopen", "fsconfig",
	"fsmount", "fspick", "mount_setattr",
	// Other processes' memory and descriptors.
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
	// Kernel attack surface: BPF programs, performance counters, user-space page-fault handling, io_uring.
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
	// The machine itself: kernels, modules, power, swap, accounting, clocks, quotas, the kernel log, ports.
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
	"swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "quotactl", "quotactl_fd",
	"syslog", "iopl", "ioperm", "lookup_dcookie", "uselib", "vhangup", "nfsservctl", "_sysctl",
	// Opening files by handle bypasses the mount namespace's view (the "shocker" escape).
	"open_by_handle_at", "name_to_handle_at",
}

// missingSyscalls fail with ENOSYS, as on a kernel built without them: inotify and fanotify watch inodes, and
// a watch on the shared read-only tree sees every star that opens or reads the file (a channel between stars,
// as locks are). Programs that use them fall back to polling, or do without.
var missingSyscalls = []string{"inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark"}

// cloneNamespaceFlags are the flags by which clone(2) creates namespaces: a clone with any of them fails with
// EPERM. CLONE_NEWTIME (0x80) is not among them because clone(2) reads that bit as part of the exit signal;
// only unshare and clone3 create time namespaces, and both are refused.
const cloneNamespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// socketFamilies are the address families a solution may open sockets in (socket and socketpair): local
// sockets, IP (the network namespace has only a loopback interface, down) and netlink, whose NETLINK_ROUTE
// protocol alone is allowed (glibc's getaddrinfo with AI_ADDRCONFIG and Go's net.Interfaces ask it for the
// namespace's addresses). Every other family fails with EAFNOSUPPORT, as on a kernel built without it: AF_VSOCK
// reaches the host's (or hypervisor's) vsock ports whatever the network namespace, and the rest (packet,
// crypto, bluetooth, CAN, TIPC, RDS, XDP, …) is kernel attack surface. The other netlink protocols fail with
// EPROTONOSUPPORT: NETLINK_KOBJECT_UEVENT would show the host's device events, audit and the others the host's
// kernel state.
var socketFamilies = []uint64{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}

// nrOffset is the offset of the system-call number in seccomp_data; argLo and argHi give those of the low and
// high 32 bits of argument n (the architectures the filter supports are little-endian).
const nrOffset = 0

func argLo(n uint32) uint32 { return 16 + 8*n }
func argHi(n uint32) uint32 { return 16 + 8*n + 4 }

// lockCommands are the fcntl commands that take a lock: F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW. They and
// flock(2) return success without taking a lock. Locks live on inodes, and the read-only tree a star sees
// (/usr, /etc/alternatives, the devices) is the host's, shared by every star running at the same time: a lock
// one star takes there, another sees (flock with LOCK_NB, F_GETLK), a channel between stars that would also let
// one star block another. Refusing locks (ENOLCK) would break programs that lock their own files (sqlite in
// /tmp); as no-ops they keep working, and only the mutual exclusion between a star's own processes is lost,
// which a solution can get from a pipe, a semaphore or an O_EXCL file instead. F_GETLK stays: no star holds a
// lock for it to see.
var lockCommands = []uint32{unix.F_SETLK, unix.F_SETLKW, unix.F_OFD_SETLK, unix.F_OFD_SETLKW}

// argumentRules are the filter's checks of arguments, hand-assembled: go-seccomp-bpf leaves an argument in the
// accumulator when a conditional rule does not match, so that the groups after it compare that argument with
// their system-call numbers; only its last group may be conditional. These run before its program, which
// loads the system-call number again. They turn every lock into a no-op (see lockCommands) and refuse socket(2) and socketpair(2) outside socketFamilies
// (EAFNOSUPPORT) and netlink protocols but NETLINK_ROUTE (EPROTONOSUPPORT), comparing all 64 bits of an
// argument (the kernel reads the low 32: a family with high bits set is refused).
func argumentRules(info *arch.Info) ([]bpf.Instruction, error) {
	nr := func(name string) (uint32, error) {
		n, ok := info.SyscallNames[name]
		if !ok {
			return 0, fmt.Errorf("no system call %s on %s", name, info.Name)
		}
		return uint32(n), nil
	}
	socket, err := nr("socket")
	if err != nil {
		return nil, err
	}
	socketpair, err := nr("socketpair")
	if err != nil {
		return nil, err
	}
	flock, err := nr("flock")
	if err != nil {
		return nil, err
	}
	fcntl, err := nr("fcntl")
	if err != nil {
		return nil, err
	}
	a := &bpfAsm{}
	a.load(nrOffset)
	a.jumpIf(socket, "socket", "")
	a.jumpIf(socketpair, "socket", "")
	a.jumpIf(flock, "nolock", "")
	a.jumpIf(fcntl, "fcntl", "next")
	a.label("fcntl")
	a.load(argLo(1)) // the kernel reads cmd as an unsigned int: the high half does not matter
	for i, cmd := range lockCommands {
		onF := ""
		if i == len(lockCommands)-1 {
			onF = "next"
		}
		a.jumpIf(cmd, "nolock", onF)
	}
	a.label("nolock")
	a.ret(unix.SECCOMP_RET_ERRNO | 0) // success, without the call
	a.label("socket")
	a.load(argHi(0))
	a.jumpIf(0, "", "eafnosupport")
	a.load(argLo(0))
	for _, f := range socketFamilies {
		target := "next"
		if f == unix.AF_NETLINK {
			target = "netlink"
		}
		a.jumpIf(uint32(f), target, "")
	}
	a.label("eafnosupport")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT))
	a.label("netlink")
	a.load(argHi(2))
	a.jumpIf(0, "", "eprotonosupport")
	a.load(argLo(2))
	a.jumpIf(unix.NETLINK_ROUTE, "next", "")
	a.label("eprotonosupport")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT))
	a.label("next")
	return a.assemble()
}

// bpfAsm assembles a straight classic-BPF program with forward jumps to named labels.
type bpfAsm struct {
	insts  []bpf.Instruction
	labels map[string]int
	jumps  []bpfJump
}

// bpfJump is a conditional jump at index at, to labels (or "": the next instruction) when true and false.
type bpfJump struct {
	at       int
	val      uint32
	onT, onF string
}

func (a *bpfAsm) load(off uint32) {
	a.insts = append(a.insts, bpf.LoadAbsolute{Off: off, Size: 4})
}

func (a *bpfAsm) ret(v uint32) { a.insts = append(a.insts, bpf.RetConstant{Val: v}) }

// jumpIf jumps to onT when the accumulator equals val, else to onF.
func (a *bpfAsm) jumpIf(val uint32, onT, onF string) {
	a.jumps = append(a.jumps, bpfJump{at: len(a.insts), val: val, onT: onT, onF: onF})
	a.insts = append(a.insts, nil)
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.insts)
}

func (a *bpfAsm) assemble() ([]bpf.Instruction, error) {
	skip := func(from int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := a.labels[label]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("bad jump from %d to %q", from, label)
		}
		return uint8(to - from - 1), nil
	}
	for _, j := range a.jumps {
		t, err := skip(j.at, j.onT)
		if err != nil {
			return nil, err
		}
		f, err := skip(j.at, j.onF)
		if err != nil {
			return nil, err
		}
		a.insts[j.at] = bpf.JumpIf{Cond: bpf.JumpEqual, Val: j.val, SkipTrue: t, SkipFalse: f}
	}
	return a.insts, nil
}

// seccompPolicy is the star's filter as a go-seccomp-bpf deny-list: everything is allowed but refusedSyscalls
// (EPERM), missingSyscalls (ENOSYS), clone with a namespace flag (EPERM) and clone3 (ENOSYS: its flags sit in memory, where a filter cannot
// read them, and ENOSYS makes glibc fall back to clone, whose flags it can).
func seccompPolicy() (seccomp.Policy, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return seccomp.Policy{}, err
	}
	present := func(list []string) []string { // names this architecture lacks are skipped
		var names []string
		for _, n := range list {
			if _, ok := info.SyscallNames[n]; ok {
				names = append(names, n)
			}
		}
		return names
	}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Names: present(refusedSyscalls), Action: seccomp.ActionErrno}, // the library adds EPERM to a bare ActionErrno
			{Names: []string{"clone3"}, Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)},
			{Names: present(missingSyscalls), Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)},
			{
				NamesWithCondtions: []seccomp.NameWithConditions{{Name: "clone", Conditions: seccomp.ArgumentConditions{
					{Argument: 0, Operation: seccomp.BitsSet, Value: cloneNamespaceFlags},
				}}},
				Action: seccomp.ActionErrno, // the only conditional group, and the last (see argumentRules)
			},
		},
	}, nil
}

// seccompProgram assembles the filter: the architecture check, argumentRules, then seccompPolicy's program.
// go-seccomp-bpf checks the architecture of each call, but lets a call of a
// foreign ABI through to the default action, here "allow": a 64-bit process can still make i386 system calls
// (int 0x80), whose numbers the deny-list does not name. So the program starts with its own check that refuses
// every call of another architecture with ENOSYS; the library already refuses the x32 ABI (numbers with
// __X32_SYSCALL_BIT) on x86-64 the same way.
func seccompProgram() ([]bpf.Instruction, error) {
	policy, err := seccompPolicy()
	if err != nil {
		return nil, err
	}
	body, err := policy.Assemble()
	if err != nil {
		return nil, err
	}
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
	args, err := argumentRules(info)
	if err != nil {
		return nil, err
	}
	prog = append(prog, args...)
	return append(prog, body...), nil
}

// seccompFilter is the star's filter as the kernel takes it (struct sock_filter, 8 bytes an instruction, in the
// machine's byte order), assembled once per process: the child only loads it (jail.Config.Filter).
var seccompFilter = sync.OnceValues(func() ([]byte, error) {
	insts, err := seccompProgram()
	if err != nil {
		return nil, fmt.Errorf("seccomp: building the filter: %w", err)
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("seccomp: assembling the filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&filter[0])), len(filter)*int(unsafe.Sizeof(filter[0])))
	return append([]byte(nil), b...), nil
})

// filterFor returns the filter a child loads: seccompFilter when on, else nil.
func filterFor(on bool) ([]byte, error) {
	if !on {
		return nil, nil
	}
	return seccompFilter()
}

// probeSeccomp starts a child that loads the filter, checks it and exits. It has no namespaces but, when the
// runner is not root, a user namespace, where it may empty its capability bounding set as every star does.
func probeSeccomp() error {
	filter, err := seccompFilter()
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "seccomp: "))
	}
	cfg := childConfig{Filter: filter, UserNS: !isRoot(), MemoryBytes: DefaultMemoryBytes, Processes: 16,
		FileBytes: 1 << 20, OpenFiles: 64, UID: -1, GID: -1, CPU: -1}
	msg, w, err := runProbeChild(cfg, "cannot start the probe child")
	if err != nil {
		return err
	}
	switch {
	case len(msg) > 0:
		return errors.New(strings.TrimPrefix(string(msg), "seccomp: "))
	case w.err != nil:
		return fmt.Errorf("the probe child failed (%v)", w.err)
	case !w.state.Success():
		return fmt.Errorf("the probe child failed (%v)", w.state)
	}
	return nil
}
