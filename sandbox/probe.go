package sandbox

import (
	"strings"
	"sync"
)

// Isolation is what the sandbox can enforce on this machine.
type Isolation struct {
	// Missing lists the protections that are not available, each a short phrase; empty means full isolation.
	Missing []string

	namespaces bool // run each star in new namespaces
	userNS     bool // add a user namespace (the way in for a runner that is not root)
	cgroup     bool // give each star a cgroup of its own (root, with the memory, cpuset and pids controllers)
	seccomp    bool // the kernel takes the system-call filter
	freshUID   bool // root, with the shared user id counter usable: a fresh user id per star
}

// Protections reports the hardening measures this machine allows, which every star then gets. A protection
// that is not available is also named in Missing (as its Protections name followed by the reason), so a
// hidden set, which needs Full, does not run without it.
func (i Isolation) Protections() Protections {
	return Protections{Namespaces: i.namespaces, Seccomp: i.seccomp, Cgroup: i.cgroup, FreshUID: i.freshUID}
}

// Full reports whether every protection of SPEC A6 is in force.
func (i Isolation) Full() bool { return len(i.Missing) == 0 }

// String is "full", or "degraded: " followed by what is missing. It is the value of Result.Isolation.
func (i Isolation) String() string {
	if i.Full() {
		return "full"
	}
	return "degraded: " + strings.Join(i.Missing, "; ")
}

var (
	probeOnce   sync.Once
	probeResult Isolation
)

// Probe finds out once per process what the kernel allows: it starts one child in new mount, PID, network,
// IPC and UTS namespaces that sets up the whole sandbox (mounts, limits, the unprivileged user) and exits, and
// one that loads the system-call filter and checks that it refuses a call; as root it also takes a user id
// from the shared counter. Full isolation needs Linux and root (CI and the benchmark machines run as root). A
// runner that is not root gets the same namespaces inside a user namespace where the kernel allows one, but no
// separate user; with no namespaces at all it degrades to resource limits, a process group and, as root, a
// separate user. Without seccomp, or without a usable counter, "seccomp: …" or "fresh_uid: …" is missing. It
// also creates and removes one cgroup: without a cgroup per star, "cgroup: …" is missing.
func Probe() Isolation {
	probeOnce.Do(func() {
		seccompErr, uidErr := probeHardening()
		probeResult = probeCgroup(probe())
		probeResult.seccomp = seccompErr == nil
		if seccompErr != nil {
			probeResult.Missing = append(probeResult.Missing, "seccomp: "+seccompErr.Error())
		}
		if isRoot() {
			probeResult.freshUID = uidErr == nil
			if uidErr != nil {
				probeResult.Missing = append(probeResult.Missing, "fresh_uid: "+strings.TrimPrefix(uidErr.Error(), "sandbox: "))
			}
		}
	})
	return probeResult
}

// probeHardening finds out whether a child can load the system-call filter and, as root, whether the shared
// user id counter works.
func probeHardening() (seccompErr, uidErr error) {
	seccompErr = probeSeccomp()
	if isRoot() {
		_, _, uidErr = uids.take(0)
	}
	return seccompErr, uidErr
}

// Protections are the hardening measures of SPEC A6 ("Hardening") that were in force for a star or a run.
// A hidden set needs all of them unless the runner allows degraded isolation.
type Protections struct {
	Namespaces bool `json:"namespaces"` // new mount, PID, network, IPC and UTS namespaces
	Seccomp    bool `json:"seccomp"`    // the system-call filter
	Cgroup     bool `json:"cgroup"`     // a cgroup of its own: memory (kernel memory and tmpfs counted), cpuset, pids
	FreshUID   bool `json:"fresh_uid"`  // a user id that no earlier star of any run has used
}

// All reports whether every protection was in force.
func (p Protections) All() bool { return len(p.Missing()) == 0 }

// Missing names the protections that were not in force, in a fixed order.
func (p Protections) Missing() []string { return p.names(false) }

// InForce names the protections that were in force, in the order of Missing.
func (p Protections) InForce() []string { return p.names(true) }

// And is the protections that both p and q have: what every star of a run had.
func (p Protections) And(q Protections) Protections {
	return Protections{Namespaces: p.Namespaces && q.Namespaces, Seccomp: p.Seccomp && q.Seccomp,
		Cgroup: p.Cgroup && q.Cgroup, FreshUID: p.FreshUID && q.FreshUID}
}

// names lists, by their JSON names, the protections whose state is on.
func (p Protections) names(on bool) []string {
	var m []string
	for _, c := range []struct {
		on   bool
		name string
	}{{p.Namespaces, "namespaces"}, {p.Seccomp, "seccomp"}, {p.Cgroup, "cgroup"}, {p.FreshUID, "fresh_uid"}} {
		if c.on == on {
			m = append(m, c.name)
		}
	}
	return m
}
