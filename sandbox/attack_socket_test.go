package sandbox

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// socketFamilyProbe tries socket(2) and socketpair(2) in many address families, through libc's syscall so that
// the raw arguments (a family with high bits set) reach the kernel as given, and prints "<name> <errno>" per try
// (0: the socket was made).
const socketFamilyProbe = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_socket, SYS_socketpair = 41, 53
def try_socket(name, domain, typ, proto=0):
    ctypes.set_errno(0)
    fd = libc.syscall(ctypes.c_long(SYS_socket), ctypes.c_long(domain), ctypes.c_long(typ), ctypes.c_long(proto))
    print(name, 0 if fd >= 0 else ctypes.get_errno(), flush=True)
    if fd >= 0: os.close(fd)
def try_pair(name, domain, typ):
    fds = (ctypes.c_int * 2)()
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(SYS_socketpair), ctypes.c_long(domain), ctypes.c_long(typ), ctypes.c_long(0), fds)
    print(name, 0 if r == 0 else ctypes.get_errno(), flush=True)
    if r == 0: os.close(fds[0]); os.close(fds[1])
STREAM, DGRAM, RAW, SEQPACKET = 1, 2, 3, 5
try_socket("unix", 1, STREAM)
try_socket("inet", 2, STREAM)
try_socket("inet6", 10, DGRAM)
try_socket("netlink_route", 16, RAW, 0)
try_pair("pair_unix", 1, STREAM)
try_socket("vsock", 40, STREAM)
try_socket("vsock_dgram", 40, DGRAM)
try_socket("vsock_hibits", (1 << 32) | 40, STREAM)
try_socket("unix_hibits", (1 << 32) | 1, STREAM)
try_socket("packet", 17, RAW)
try_socket("alg", 38, SEQPACKET)
try_socket("bluetooth", 31, SEQPACKET)
try_socket("key", 15, RAW, 2)
try_socket("can", 29, RAW)
try_socket("tipc", 30, SEQPACKET)
try_socket("rds", 21, SEQPACKET)
try_socket("xdp", 44, RAW)
try_socket("netlink_uevent", 16, RAW, 15)
try_socket("netlink_audit", 16, RAW, 9)
try_socket("netlink_route_hibits", 16, RAW, (1 << 32))
try_pair("pair_vsock", 40, STREAM)
try_pair("pair_alg", 38, SEQPACKET)
`

// TestAttackSocketFamilies: the filter lets a solution make AF_UNIX, AF_INET and AF_INET6 sockets and
// NETLINK_ROUTE netlink sockets (what getaddrinfo's AI_ADDRCONFIG and Go's net.Interfaces use), refuses every
// other family with EAFNOSUPPORT and every other netlink protocol (uevents of the host's devices, audit, …)
// with EPROTONOSUPPORT: AF_VSOCK reaches the host's vsock ports whatever the network namespace, and
// the others (packet, crypto, bluetooth, CAN, TIPC, RDS, XDP, …) are kernel attack surface no solution needs.
func TestAttackSocketFamilies(t *testing.T) {
	requireFull(t)
	if runtime.GOARCH != "amd64" {
		t.Skipf("the attack script uses x86-64 system call numbers; this is %s", runtime.GOARCH)
	}
	sol := writeSolution(t, map[string]string{"solution.py": socketFamilyProbe})
	parse := func(res Result) map[string]int { return probeCodes(t, res) }
	r := &Runner{Workers: 1, isolation: withoutSeccomp(t)}
	control := parse(runJobs(t, r, sol, starJob("control", nil))["control"])
	// Control: without the filter the kernel makes vsock and uevent sockets for an unprivileged user in a
	// network namespace of its own, so the refusals under the filter come from the filter.
	for _, name := range []string{"vsock", "netlink_uevent"} {
		if got, ok := control[name]; !ok || got != 0 {
			t.Errorf("control: %s answered %d (present %v), want a socket without the filter", name, got, ok)
		}
	}
	filtered := parse(runOne(t, sol, Limits{}, nil))
	for _, name := range []string{"unix", "inet", "inet6", "netlink_route", "pair_unix"} {
		if got, ok := filtered[name]; !ok || got != 0 {
			t.Errorf("%s: answered %d (present %v) under the filter, want a socket", name, got, ok)
		}
	}
	for _, name := range []string{"vsock", "vsock_dgram", "vsock_hibits", "unix_hibits", "packet", "alg", "bluetooth",
		"key", "can", "tipc", "rds", "xdp", "pair_vsock", "pair_alg"} {
		if got, ok := filtered[name]; !ok || got != int(unix.EAFNOSUPPORT) {
			t.Errorf("%s: answered %d (present %v) under the filter, want EAFNOSUPPORT (%d)", name, got, ok, unix.EAFNOSUPPORT)
		}
	}
	for _, name := range []string{"netlink_uevent", "netlink_audit", "netlink_route_hibits"} {
		if got, ok := filtered[name]; !ok || got != int(unix.EPROTONOSUPPORT) {
			t.Errorf("%s: answered %d (present %v) under the filter, want EPROTONOSUPPORT (%d)", name, got, ok, unix.EPROTONOSUPPORT)
		}
	}
}
