// Package sandbox runs untrusted solution code on one star at a time (SPEC A6): a fresh process with a wall-clock
// limit, one CPU, no network, its own PID and mount namespaces, resource limits, an unprivileged user when started
// as root, and nothing of the data sets or answers in view. Results stream back as each star finishes.
//
// # Use
//
//	sol, err := sandbox.Detect("ws/solution")   // solution.py, an executable run, or a Go main package
//	r := &sandbox.Runner{Limits: sandbox.Limits{Mask: []string{"ws/data"}}, Hidden: false}
//	go func() { err = r.Run(ctx, sol, jobs, results); close(results) }()
//	for res := range results { … }
//
// Each star re-executes the running program (/proc/self/exe) as the sandbox's child. The package's init function
// recognises the child and turns it into the solution, so any program or test binary that links the package works
// unchanged; cmd/transitbench also says so at the top of main (IsChild, ChildMain).
//
// # What a star's process sees (full isolation)
//
// The runner starts its own executable in new mount, PID, network, IPC and UTS namespaces. That child marks every
// descriptor above 2 close-on-exec (see Hardening); makes every mount private, read-only and nosuid (mount_setattr with AT_RECURSIVE); mounts fresh tmpfs on /tmp
// (Limits.TmpBytes; also TMPDIR and HOME), /dev/shm (at most 64 MiB) and /run (hiding the host's sockets there: a
// read-only mount does not stop connect(2) on a socket file); bind-mounts the star directory read-only at /run/star
// (StarMount) and the solution snapshot at /run/solution (SolutionMount, also the working directory); covers every
// masked path with an empty read-only tmpfs (a file: with /dev/null); mounts a /proc for the new PID namespace;
// pins itself to one CPU; sets RLIMIT_CORE 0, RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE; empties its capability
// bounding set; drops to the star's own fresh user (same group, no supplementary groups); sets no_new_privs and
// the parent-death signal; loads the system-call filter; sets RLIMIT_AS; and executes the solution with a clean
// environment (OMP/OPENBLAS/MKL/NUMEXPR_NUM_THREADS=1, GOMAXPROCS=1, PATH=/usr/local/bin:/usr/bin:/bin). The
// network namespace has only a loopback interface, down. argv[1] of the solution is /run/star.
//
// Masked always: the data directory (data.Home), the run's working directory (where other stars are prepared), the
// solution snapshot's host path, the solution's source directory and the directory holding it (the workspace, with
// its dev answers); plus Limits.Mask.
//
// The solution is PID 1 of its namespace. So when it exits, or when the runner kills it (timeout, output over the
// limit, cancellation), the kernel kills every process it left behind; nothing survives a star. Being PID 1 also
// means signals it sends itself, or its children send it, are ignored unless it installs a handler (faults still
// kill it), SIGXFSZ is ignored (writes past the file-size cap fail with EFBIG), and orphans it does not reap stay
// zombies until the star ends (bounded by RLIMIT_NPROC).
//
// Python solutions run with /usr/bin/python3 (Debian's, with python3-numpy) when it exists: the first python3 on
// PATH may be a per-user install (pyenv under /root) that the sandbox user cannot read. Go solutions are built once
// by Prepare, outside the sandbox, with the system go, no cgo, no network and the local toolchain only. Prepare
// snapshots the solution directory (world-readable copy) so that the sandbox user can read it and edits during a
// run do not change it.
//
// # Hardening
//
// Beyond the namespaces (SPEC A6, "Hardening"), every star gets, where the machine allows it:
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
//     ENOSYS. Everything else, sched_setaffinity included, is allowed: Python with numpy, Go binaries and
//     shell scripts run unchanged.
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
// cancelled. "memory" is inferred: RLIMIT_AS makes allocations fail rather than kill, so a failure whose stderr
// ends with a known out-of-memory message (MemoryError, "Unable to allocate", "out of memory", std::bad_alloc,
// "Cannot allocate memory"), or a SIGKILL the runner did not send (the OOM killer), counts as memory. The runner
// also sums the resident memory of the star's whole process tree every 100 ms and kills the star with reason memory
// when the sum passes Limits.MemoryBytes (RLIMIT_AS alone would let a tree of processes hold Processes ×
// MemoryBytes). Runtime is the solution's own wall time, from its exec to its end; PeakRSSBytes is the peak
// resident set of the solution and the children it waited for (it includes the few MiB of the child before its
// exec), or the largest sum over the tree the watchdog saw, whichever is larger.
//
// # Degraded isolation
//
// Probe finds out once whether the machine allows all of the above (Linux, root, namespaces, seccomp, the uid
// counter). A runner that is not root gets the same namespaces inside a user namespace where the kernel allows it (the solution is that
// namespace's root, with no capabilities, so it keeps its user's file permissions): degraded, for want of a
// separate user. With no namespaces at all (or on macOS) stars still run, with the limits, a process group,
// no_new_privs, the filter and (as root) a fresh user, but without namespaces: the solution sees the host's filesystem as
// its user may, the network, and may leave processes behind that escape its process group (as root the runner kills
// every process of the star's user afterwards). Every Result records the level (Result.Isolation: "full" or
// "degraded: …"), and Run refuses a hidden set under degraded isolation unless Runner.AllowDegraded is set (the
// --allow-degraded flag).
package sandbox
