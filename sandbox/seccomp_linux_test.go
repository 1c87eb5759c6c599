package sandbox

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompVerdict runs the star's filter in golang.org/x/net/bpf's interpreter on one system call and returns the
// filter's answer (SECCOMP_RET_*, with the errno in the low 16 bits).
func seccompVerdict(t *testing.T, vm *bpf.VM, auditArch uint32, nr uint32, args ...uint64) uint32 {
	t.Helper()
	// struct seccomp_data {int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];}. The kernel loads
	// native-endian 32-bit words and the interpreter big-endian ones, so each word is written big-endian at the
	// offset where the kernel would find it; on a little-endian machine the low half of an argument comes first.
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], auditArch)
	for i, a := range args {
		lo, hi := uint32(a), uint32(a>>32)
		off := 16 + 8*i
		if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 { // big-endian machine
			lo, hi = hi, lo
		}
		binary.BigEndian.PutUint32(data[off:], lo)
		binary.BigEndian.PutUint32(data[off+4:], hi)
	}
	v, err := vm.Run(data)
	if err != nil {
		t.Fatalf("running the filter: %v", err)
	}
	return uint32(v)
}

func TestSeccompFilter(t *testing.T) {
	prog, err := seccompProgram()
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatalf("the filter is not a valid BPF program: %v", err)
	}
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	id := uint32(native.ID)
	nr := func(name string) uint32 {
		n, ok := native.SyscallNames[name]
		if !ok {
			t.Fatalf("no system call %s on %s", name, native.Name)
		}
		return uint32(n)
	}
	const (
		allow = unix.SECCOMP_RET_ALLOW
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
		enosy = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	)
	// Every refused call this architecture has, whatever its arguments.
	refused := 0
	for _, name := range refusedSyscalls {
		if _, ok := native.SyscallNames[name]; !ok {
			continue
		}
		refused++
		for _, a := range [][]uint64{nil, {0, 0, 0}, {^uint64(0), ^uint64(0)}} {
			if got := seccompVerdict(t, vm, id, nr(name), a...); got != eperm {
				t.Errorf("%s%v: filter answers %#x, want EPERM (%#x)", name, a, got, eperm)
			}
		}
	}
	// The brief of SPEC A6 and what the audit reproduced, by name: none may be skipped on amd64.
	if runtime.GOARCH == "amd64" && refused != len(refusedSyscalls) {
		t.Errorf("%d of the %d refused system calls exist on amd64", refused, len(refusedSyscalls))
	}
	// What numpy, Go and a shell need passes: a sample across the table, and clone for threads and fork.
	for _, name := range []string{"read", "write", "openat", "mmap", "munmap", "mprotect", "futex", "execve",
		"wait4", "exit_group", "rt_sigaction", "sched_getaffinity", "sched_setaffinity", "getrandom", "prlimit64",
		"clock_gettime", "epoll_pwait", "pipe2", "dup3", "rseq", "close_range", "pidfd_open"} {
		if got := seccompVerdict(t, vm, id, nr(name)); got != allow {
			t.Errorf("%s: filter answers %#x, want allow", name, got)
		}
	}
	threadFlags := uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD |
		unix.CLONE_SYSVSEM | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID)
	forkFlags := uint64(unix.CLONE_CHILD_SETTID|unix.CLONE_CHILD_CLEARTID) | uint64(unix.SIGCHLD)
	vforkFlags := uint64(unix.CLONE_VM|unix.CLONE_VFORK|unix.CLONE_PIDFD) | uint64(unix.SIGCHLD)
	for _, f := range []uint64{threadFlags, forkFlags, vforkFlags, 0} {
		if got := seccompVerdict(t, vm, id, nr("clone"), f); got != allow {
			t.Errorf("clone(%#x): filter answers %#x, want allow", f, got)
		}
	}
	for _, ns := range []uint64{unix.CLONE_NEWUSER, unix.CLONE_NEWNS, unix.CLONE_NEWNET, unix.CLONE_NEWPID,
		unix.CLONE_NEWIPC, unix.CLONE_NEWUTS, unix.CLONE_NEWCGROUP} {
		if got := seccompVerdict(t, vm, id, nr("clone"), forkFlags|ns); got != eperm {
			t.Errorf("clone(%#x): filter answers %#x, want EPERM", forkFlags|ns, got)
		}
		// The flags are an unsigned long: set bits above 32 do not hide a namespace flag below.
		if got := seccompVerdict(t, vm, id, nr("clone"), 1<<40|ns); got != eperm {
			t.Errorf("clone(%#x): filter answers %#x, want EPERM", 1<<40|ns, got)
		}
	}
	if got := seccompVerdict(t, vm, id, nr("clone3")); got != enosy {
		t.Errorf("clone3: filter answers %#x, want ENOSYS (%#x) so that glibc falls back to clone", got, enosy)
	}
	// Another ABI: every call refused, even those allowed natively.
	foreign := []*arch.Info{arch.I386, arch.ARM}
	if runtime.GOARCH != "amd64" {
		foreign = []*arch.Info{arch.X86_64, arch.I386}
	}
	for _, f := range foreign {
		for _, n := range []uint32{0, 1, 20, 39, 59, 120, 310, 435} {
			if got := seccompVerdict(t, vm, uint32(f.ID), n); got != enosy {
				t.Errorf("%s system call %d: filter answers %#x, want ENOSYS", f.Name, n, got)
			}
		}
	}
	if runtime.GOARCH == "amd64" {
		// x32: the native arch value with __X32_SYSCALL_BIT in the number.
		for _, n := range []uint32{0, 39, 56} {
			if got := seccompVerdict(t, vm, id, 0x4000_0000|n); got != enosy {
				t.Errorf("x32 system call %d: filter answers %#x, want ENOSYS", n, got)
			}
		}
	}
}

// BenchmarkSeccompProgram measures what the filter adds to every star's child besides the seccomp call itself:
// building the policy and assembling it into BPF.
func BenchmarkSeccompProgram(b *testing.B) {
	for b.Loop() {
		prog, err := seccompProgram()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bpf.Assemble(prog); err != nil {
			b.Fatal(err)
		}
	}
}
