// Package sandbox runs untrusted solution code on one star at a time (SPEC A6): a fresh process with a wall-clock
// limit, one CPU, no network, its own PID and mount namespaces, a cgroup of its own, resource limits, an
// unprivileged user when started as root, and nothing of the data sets or answers in view. Results stream back as
// each star finishes.
//
// # Use
//
//	sol, err := sandbox.Detect("ws/solution")   // solution.py, an executable run, or a Go main package
//	r := &sandbox.Runner{Home: home, Limits: sandbox.Limits{Mask: []string{"ws/data"}}, Hidden: false}
//	go func() { err = r.Run(ctx, sol, jobs, results); close(results) }()
//	for res := range results { … }
//
// Each star starts a child process that sets up the sandbox in new namespaces and then executes the solution in
// its place. The child's code is package jail (sandbox/internal/jail, standard library only): the runner builds
// it once per toolchain and version, from the sources it embeds, into a small program of its own in the user's
// cache directory (~/.cache/transitbench/sandbox-child, 0700; see childprogram_linux.go), which starts in a
// millisecond or two where the runner's whole executable takes tens of milliseconds to initialise. Where it
// cannot be built (no Go toolchain) the child is the running program again (/proc/self/exe): the package's init
// function recognises the child and runs the same jail code, so any program or test binary that links the
// package works unchanged; cmd/transitbench also says so at the top of main (IsChild, ChildMain).
//
// A worker makes its next stars' slots while a star runs (slot.go): each has the star's directory (empty) and
// user id, a cgroup, and a child started in its own new namespaces. Once the child is in its cgroup the runner
// hands it its configuration, and the child builds the sandbox's root and enters it, then waits at its gate
// until its star comes: the star's files are written into the directory, the cgroup gets the worker's CPU, and
// the gate opens; the child copies the files in and goes on to the limits, the user, the filter and the exec.
// Each slot serves one star and no other; one left when the run ends is killed and its cgroup removed.
//
// # The data directory
//
// The package imports nothing of the project and knows no data directory of its own: the caller names it in
// Runner.Home (the project's callers pass data.Home(), or the workspace's RunOptions.Home). Home is required:
// Run refuses to run anything without it (ErrNoHome, before preparing the solution or any star), so a caller
// that forgets it gets an error, never stars that run with the answers unmasked. The runner masks Home in
// every star, keeps its run directories under Home/run (unless Runner.WorkDir) and, for a Go solution without
// Solution.CacheDir, keeps the build cache under Home/cache/gobuild. Prepare called directly needs
// Solution.CacheDir for a Go solution and refuses it without one.
//
// # What a star's process sees (full isolation)
//
// The runner starts its own executable in new mount, PID, network, IPC and UTS namespaces. That child marks every descriptor
// above 2 close-on-exec (see Hardening), then builds the
// solution's whole filesystem on a fresh tmpfs and makes it the root with pivot_root; the host's root is then
// detached, so nothing else of the host is reachable (not /home, /root, /var, /srv, /opt, /sys, the host's /tmp
// or /dev/shm, nor any unix socket in them: a read-only mount would not stop connect(2), absence does), and
// /proc/self/mountinfo lists only these mounts:
//
//	/              the tmpfs, read-only once built
//	/usr           the host's, read-only, nosuid, nodev (with /usr/local, hence /usr/local/go); /bin, /sbin,
//	               /lib, /lib64, /lib32 as on the host: read-only trees, or the same symbolic links (Debian)
//	/etc           passwd, group and hosts of its own (root, nobody and "sandbox", the star's user; localhost
//	               only), copies of nsswitch.conf and ld.so.cache, and /etc/alternatives read-only; nothing
//	               that names the host (its hosts, hostname, machine-id, mailname, resolv.conf, localtime: the
//	               sandbox runs in UTC); the host name is "sandbox" and the NIS domain name "(none)"
//	/dev           null, zero, full, random, urandom (bound from the host's); fd, stdin, stdout, stderr links
//	               into /proc/self/fd; a fresh /dev/shm tmpfs (at most 64 MiB); nothing else
//	/proc          a new proc for the PID namespace
//	/tmp           a fresh tmpfs of Limits.TmpBytes (also TMPDIR and HOME)
//	/run/star      a read-only tmpfs holding a copy of the star's files (StarMount): a copy, so that the
//	               mount table does not show the star directory's host path (and the run directory's)
//	/run/solution  the solution snapshot, read-only (SolutionMount, also the working directory)
//	/run/bin       the built Go program's directory, read-only
//
// Besides the system paths bound at their own names, the mount table names one host path: the snapshot's, a
// fresh temporary directory with a random name (transitbench-snap-<24 hex digits>, no process id) that says
// nothing of the home, the workspace, the data or the runner. Every bind is made with open_tree and given its
// read-only attributes before it is attached (mount_setattr), so it is never writable in the tree. Masks still
// cover, after the pivot, any masked path that lies inside this tree (a data directory under /usr) with an empty
// read-only tmpfs (a file: with /dev/null); the child has emptied its capability bounding set before. All that
// is done ahead, in the star's slot. Once the star's files are copied in, the child pins itself to one CPU;
// sets RLIMIT_CORE 0, RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE; drops to the star's own fresh user
// (see Hardening; same group, no supplementary groups); sets no_new_privs and the parent-death signal; loads
// the system-call filter; sets RLIMIT_AS; and executes the solution with a clean environment
// (OMP/OPENBLAS/MKL/NUMEXPR_NUM_THREADS=1, GOMAXPROCS=1, PATH=/usr/local/bin:/usr/bin:/bin). The network
// namespace has only a loopback interface, down. argv[1] of the solution is /run/star.
//
// Masked always (where inside the tree): the data directory (Runner.Home), the run's working directory (where
// other stars are prepared), the solution snapshot's host path, the solution's source directory and the
// directory holding it (the workspace, with its dev answers), the Go build caches (Solution.CacheDir); plus
// Limits.Mask.
//
// The solution is PID 1 of its namespace. So when it exits, or when the runner kills it (timeout, output over the
// limit, cancellation), the kernel kills every process it left behind; nothing survives a star. Being PID 1 also
// means signals it sends itself, or its children send it, are ignored unless it installs a handler (faults still
// kill it), SIGXFSZ is ignored (writes past the file-size cap fail with EFBIG), and orphans it does not reap stay
// zombies until the star ends (bounded by RLIMIT_NPROC).
//
// Python solutions run with /usr/bin/python3 (Debian's, with python3-numpy) when it exists: the first python3 on
// PATH may be a per-user install (pyenv under /root) that is not in the sandbox's tree at all.
//
// # The solution snapshot
//
// Prepare snapshots the solution directory, so that edits during a run do not change it, into the system's
// temporary directory: transitbench-snap-<random>, mode 0700 (the runner's alone: a star's child binds it into
// the sandbox while still root, and inside it the copy's files are 0644/0755 so the star's user can read
// them), 0711 only where a star reaches it by its host path as another user (root without a mount namespace).
// The owner's process id is in a file inside, and a lock on the directory marks it in use, so that the next
// Prepare removes those of killed runs. The snapshot holds regular files, directories and relative links that
// stay inside it; a link that is absolute or leads out, a device, a FIFO or a socket is refused with an error
// naming it.
//
// The copy never follows a link of the solution directory, even when another user who can write it changes it
// during the copy: it walks by directory descriptors, opens each listed entry relative to its directory's
// descriptor with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) (openat with O_NOFOLLOW before Linux 5.6; each
// name is one component), and checks that the opened file is the listed one (device, inode, type); a file
// swapped for a link to a file only root may read, or a directory for a link to another directory, fails the
// run with "the solution directory … changed while it was being copied", and nothing the link names is read.
// Links are checked once the copy is complete, in the copy, which only the runner writes. (A hard link to
// another user's file is what fs.protected_hardlinks, on by default, keeps a user from making.)
// Solution.SnapshotSHA256 is the SHA-256 of a manifest of what was copied (per entry: dir, file with its mode
// and content hash, link with its target), for a caller to record which code ran.
//
// # The Go build
//
// A Go solution is built once, by Prepare, inside a sandbox of the same kind as a star's, through the same code
// (starRun.exec and the child's setup, so what hardens a star's run hardens the build too): the
// solution's files can steer the toolchain (an assembler #include of an absolute path, //go:embed, go.mod
// directives), so the toolchain must see nothing of the host. It sees the minimal tree above, the snapshot
// read-only at /run/solution, the toolchain's GOROOT read-only at its own path, the solution's build cache
// writable at /run/gocache and the output directory writable at /run/bin; it runs as an unprivileged user,
// without network, within 120 s (goBuildWallTime) and 2 GiB, and the error shown is the last 8 KiB of its
// output. The environment is fixed: GOENV=off, GOFLAGS empty, GOWORK=off, GOPROXY=off, GOSUMDB=off,
// GOTOOLCHAIN=local, CGO_ENABLED=0, and `go build -trimpath -buildvcs=false`. A go.mod may hold only module,
// go, toolchain, godebug (a line or a block), retract, exclude and ignore (the standard library alone: require,
// replace and tool are refused before the build). Nothing outside the Go toolchain may run: before the build,
// a solution holding a host object (.syso, which the linker would take in and may hand to the system linker),
// sources of another tool chain (.c, .cc, .cpp, .cxx, .m, .S, .sx, .f, .F, .for, .f90, .swig, .swigcxx), a file
// named like cgo's output (_cgo_*) or a //go:cgo_ directive (linker flags, dynamic imports) is refused with
// the file's name; Go assembly (.s) stays allowed. A build that runs out of memory (killed in its cgroup, or a
// tool whose allocation failed, noticed from the Go runtime's message anywhere in the output) fails with "the
// build ran out of memory (2 GiB)", without the crashed tool's goroutine dumps.
//
// The build cache is per solution directory (a workspace's solution/, each frozen copy), under
// Solution.CacheDir, else the data directory's cache/gobuild (Runner.Home/cache/gobuild), which no star sees:
// a build can write anything into its own cache, so a cache shared between solutions would let one
// contestant's build plant objects for another's. A new cache starts as
// a copy of a seed built once per toolchain from a fixed program importing common standard-library packages
// (kept in ~/.cache/transitbench/gobuild-seed; only that trusted program's builds write it), so a first build
// does not compile the standard library again. A cache whose solution directory is gone is removed at the next
// new cache's creation and at the start of every run. The caches are capped: one solution directory's at
// 512 MiB (trimmed after every build that leaves it larger, least recently used entries first, to 384 MiB),
// all of a cache root's together at 2 GiB (trimmed after every build and at the start of every run, whole caches
// of the least recently built solution directories first, never one a build holds). The build's mount table also shows the host paths of GOROOT and of the cache (under the
// data directory): paths only, nothing of the data. Where the machine has no namespaces (degraded isolation) the
// build runs directly, with the same environment, time limit and output cap.
//
// # The star's cgroup
//
// As root, each star runs in a cgroup of its own, transitbench/<pid>-<random>/star-<n> under the runner's own
// cgroup: cgroup v2 where a v2 hierarchy with the memory, pids and cpuset controllers is mounted, else the v1
// memory, cpuset and pids controllers (plus freezer and cpuacct when mounted). The child waits at a gate (fd 4)
// until the runner has written its pid to the cgroup and then its configuration to the gate, so everything it
// and the solution do is inside. The cgroup holds:
//   - memory at Limits.MemoryBytes for the whole tree of processes, counting what RLIMIT_AS does not: page
//     cache, tmpfs pages (/tmp, /dev/shm), socket buffers and kernel memory (v1: memory.limit_in_bytes; on
//     Linux 6.x kernel memory, AF_UNIX socket buffers included, is charged to that counter, and
//     memory.kmem.limit_in_bytes is a no-op; TCP buffers are a counter of their own, memory.kmem.tcp, capped at
//     32 MiB; v2: memory.max). No swap: memory.memsw.limit_in_bytes at the same cap and swappiness 0 (v2:
//     memory.swap.max 0). When the kernel's OOM killer kills a process of the cgroup, the runner kills the star
//     with exit reason memory;
//   - the worker's one CPU as cpuset.cpus (cpuset.mems copied from the parent), set when the star takes the
//     cgroup, before its child's gate opens: a solution that widens its own affinity still gets that one CPU;
//   - pids.max at Limits.Processes tasks;
//   - on timeout, cancellation, output over the limit or the end of the star, every process in it is killed
//     (v1: frozen, killed, thawed, until cgroup.procs is empty; v2: cgroup.kill), then the cgroup is removed.
//
// Cgroups left by a killed run (its pid gone) are removed at the start of the next run. The next stars'
// cgroups are made while a star runs (with their slots), and the ended star's removed in the background, to keep
// them off the star's path. Each star has a cgroup of its own, never one an earlier star used.
// Without cgroups (not root, no controllers, macOS) isolation is degraded ("cgroup" in Isolation.Missing,
// Result.Protections.Cgroup false): the RSS watchdog below and the per-user kill are the fallback.
//
// # Run directories
//
// A run keeps the stars' copies in a directory transitbench-run-<pid>-<random>, mode 0700, under the data
// directory's run root (Runner.Home/run, 0700), or under Runner.WorkDir when set. The star directory is
// bind-mounted into the sandbox, so the star's user need not traverse the host path; where the solution reaches
// the star by its host path as another user (no mount namespace, or a user namespace whose root is the star's
// user) the run directory is made 0711 under the system's temporary directory instead. Each star's directory
// is removed when the star ends and the run's when the run ends. A run holds an flock on its directory; at the
// start of every run, any transitbench-* entry of the run root that no live process holds (unlocked, and its
// pid dead or not in its name) is removed, so a killed run's light curves do not stay on disk. Prepare's
// solution snapshot is made in the system's temporary directory (see "The solution snapshot").
//
// # What it cannot hide: the shared kernel
//
// Concurrent stars share one kernel, and through it a few channels stay open that no filter closes without
// breaking solutions. The page cache is the widest: the read-only tree is the host's, so a star that reads a
// page of a file no one has read lately makes it cached, and another star that times its own first read of that
// page (about 60 µs from disk, under 20 µs from the cache, here) learns one bit. Measured between two concurrent
// stars (pread of 1 byte per 16 KiB slot of a 117 MB library under /usr, readahead off): 6000 bits sent in 0.4 s
// and read in 0.8–0.9 s with 0.4–0.75 % errors, about 6–7 kbit/s of receiving time. It is limited by the cold
// pages of the 5.3 GB /usr (a page, once read, carries nothing until it is evicted), so on the order of 10^5
// bits per star. The CPU's own shared state (caches, frequency, the other core's load) and the machine's free
// memory are channels of the same kind, narrower. Stars of one run are the same solution: what such a channel
// can carry is what a star may read anyway (its own light curve); the answers are in no star's view.
//
// # Hardening
//
// Beyond the namespaces (SPEC A6, "Hardening"), every star gets, where the machine allows it (nsjail's and
// IOI isolate's choices where this package had to make one):
//
//   - A seccomp filter, loaded for all threads right before the exec and inherited by everything the solution
//     starts. It refuses with EPERM: unshare and setns, and clone with any CLONE_NEW* flag (no new user or other
//     namespace); the keyring (add_key, keyctl, request_key); the mount family (mount, umount2, pivot_root,
//     move_mount, open_tree, open_tree_attr, fsopen, fsconfig, fsmount, fspick, mount_setattr); ptrace,
//     process_vm_readv/writev, kcmp, pidfd_getfd, process_madvise; bpf, perf_event_open, userfaultfd and
//     io_uring_setup/enter/register; kexec_load, kexec_file_load, init_module, finit_module, delete_module,
//     reboot, swapon, swapoff, acct; settimeofday, clock_settime, clock_adjtime, adjtimex; quotactl,
//     quotactl_fd, syslog, iopl, ioperm, lookup_dcookie, uselib, vhangup, nfsservctl, _sysctl; and
//     open_by_handle_at and name_to_handle_at. clone3 fails with ENOSYS, so that glibc falls back to clone,
//     whose flags the filter can read. Every system call of another ABI (i386 by int 0x80, x32) fails with
//     ENOSYS. Sockets: socket and socketpair work in AF_UNIX, AF_INET and AF_INET6, and AF_NETLINK with
//     NETLINK_ROUTE only (getaddrinfo's AI_ADDRCONFIG and Go's net.Interfaces ask it for the namespace's
//     addresses); every other family fails with EAFNOSUPPORT (AF_VSOCK above all: its ports are the host's or
//     hypervisor's, whatever the network namespace; also packet, crypto, bluetooth, CAN, TIPC, RDS, XDP, …),
//     every other netlink protocol (device uevents, audit, …) with EPROTONOSUPPORT; a family or protocol with
//     high bits set is refused. Locks: flock and fcntl's F_SETLK, F_SETLKW, F_OFD_SETLK and F_OFD_SETLKW
//     succeed without taking a lock, and inotify and fanotify fail with ENOSYS: the read-only tree a star sees
//     (/usr, /etc/alternatives, the devices) is the host's, shared with every star running at the same time,
//     and a lock or a watch on one of its inodes is a channel between stars (and a lock could block another
//     star). No-ops rather than errors, so that programs that lock their own files (sqlite in /tmp) keep
//     working; what a solution loses is mutual exclusion between its own processes, which a pipe, a semaphore
//     or an O_EXCL file give instead. Everything else, sched_setaffinity included, is allowed: Python with
//     numpy, Go binaries and shell scripts run unchanged.
//   - A user id no earlier star on the machine has had, so that the keys, quotas and process counts the kernel
//     keeps per user start empty for each star and RLIMIT_NPROC caps the star alone. The ids run from
//     DefaultUIDBase (0x70000000, or Runner.UIDBase) up to 0x7FFE0000, the range systemd leaves unused, and
//     come from one counter that all processes share: the file /run/transitbench/sandbox-uid, which a
//     process reads and advances by 64 under flock(2). When the file cannot be used the ids come from a
//     random start, distinct within the process but not guaranteed fresh.
//   - No descriptor but stdin, stdout and stderr: the child marks every descriptor above 2 close-on-exec
//     (close_range with CLOSE_RANGE_CLOEXEC, else one by one from /proc/self/fd), so that files or
//     directories the program starting the runner left open without close-on-exec do not reach the solution.
//
// Result.Protections records which of them a star had (Cgroup stays false: this package does not make
// cgroups). Probe finds out what the machine allows (a child loads the filter and checks that a call is
// refused; root takes an id from the counter) and names what is missing in Isolation.Missing as "seccomp: …"
// or "fresh_uid: …", so a hidden set does not run without them. In a hidden set, a star that would not get a
// fresh id (the counter failing during the run) is not run: it ends with start_failed.
//
// # Exit reasons
//
// ok, exit_code, timeout, signal (ExitCode = 128 + signal), output_limit (stdout over 1 MiB: killed at once, the
// first 1 MiB kept), memory, start_failed (the star's Prepare or the sandbox setup failed; StderrTail says why),
// cancelled. "memory" is an OOM kill in the star's cgroup (memory.oom_control or memory.events oom_kill, looked
// at every 100 ms and at the end), or inferred: RLIMIT_AS makes allocations fail rather than kill, so a failure
// whose stderr ends with a known out-of-memory message (MemoryError, "Unable to allocate", "out of memory",
// std::bad_alloc, "Cannot allocate memory"), or a SIGKILL the runner did not send, counts as memory. Without a
// cgroup, the runner instead sums the resident memory of the star's whole process tree every 100 ms and kills the
// star with reason memory when the sum passes Limits.MemoryBytes (RLIMIT_AS alone would let a tree of processes
// hold Processes × MemoryBytes; the watchdog does not see tmpfs or kernel memory). Runtime is the solution's own
// wall time, from its exec to its end; PeakRSSBytes is the peak resident set of the solution and the children it
// waited for (it includes the few MiB of the child before its exec), or the peak of the star's cgroup (all the
// memory charged to it, page cache and tmpfs included) or, without one, the largest sum over the tree the
// watchdog saw, whichever is larger.
//
// # Degraded isolation
//
// Probe finds out once whether the machine allows all of the above (Linux, root, namespaces, cgroups). A runner that is not
// root gets the same namespaces inside a user namespace where the kernel allows it (the solution is that
// namespace's root, with no capabilities, so it keeps its user's file permissions): degraded, for want of a
// separate user. With no namespaces at all (or on macOS) stars still run, with the limits, a process group,
// no_new_privs and (as root) a separate user and the cgroup, but without namespaces: the solution sees the host's
// filesystem as its user may and the network; processes it leaves behind are killed through its cgroup (without
// one, as root, the runner kills every process of the star's user afterwards). Every Result records the level (Result.Isolation: "full" or
// "degraded: …"), and Run refuses a hidden set under degraded isolation unless Runner.AllowDegraded is set (the
// --allow-degraded flag).
package sandbox
