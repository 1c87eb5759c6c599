// Package sandbox runs untrusted solution code on one star at a time (SPEC A6): a fresh process with a wall-clock
// limit, one CPU, no network, its own PID and mount namespaces, a cgroup of its own, resource limits, an
// unprivileged user when started as root, and nothing of the data sets or answers in view. Results stream back as
// each star finishes.
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
// The runner starts its own executable in new mount, PID, network, IPC and UTS namespaces. That child makes every
// mount private, read-only and nosuid (mount_setattr with AT_RECURSIVE); mounts fresh tmpfs on /tmp
// (Limits.TmpBytes; also TMPDIR and HOME), /dev/shm (at most 64 MiB) and /run (hiding the host's sockets there: a
// read-only mount does not stop connect(2) on a socket file); bind-mounts the star directory read-only at /run/star
// (StarMount) and the solution snapshot at /run/solution (SolutionMount, also the working directory); covers every
// masked path with an empty read-only tmpfs (a file: with /dev/null); mounts a /proc for the new PID namespace;
// pins itself to one CPU; sets RLIMIT_CORE 0, RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE; empties its capability
// bounding set; drops to the worker's own user (one of Runner.UIDBase … UIDBase+63, same group, no supplementary
// groups); sets no_new_privs and the parent-death signal; sets RLIMIT_AS; and executes the solution with a clean
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
// # The star's cgroup
//
// As root, each star runs in a cgroup of its own, transitbench/<pid>-<random>/star-<n> under the runner's own
// cgroup: cgroup v2 where a v2 hierarchy with the memory, pids and cpuset controllers is mounted, else the v1
// memory, cpuset and pids controllers (plus freezer and cpuacct when mounted). The child waits at a gate (fd 4)
// until the runner has written its pid to the cgroup, so everything it and the solution do is inside. The
// cgroup holds:
//   - memory at Limits.MemoryBytes for the whole tree of processes, counting what RLIMIT_AS does not: page
//     cache, tmpfs pages (/tmp, /dev/shm), socket buffers and kernel memory (v1: memory.limit_in_bytes; on
//     Linux 6.x kernel memory, AF_UNIX socket buffers included, is charged to that counter, and
//     memory.kmem.limit_in_bytes is a no-op; TCP buffers are a counter of their own, memory.kmem.tcp, capped at
//     32 MiB; v2: memory.max). No swap: memory.memsw.limit_in_bytes at the same cap and swappiness 0 (v2:
//     memory.swap.max 0). When the kernel's OOM killer kills a process of the cgroup, the runner kills the star
//     with exit reason memory;
//   - the worker's one CPU as cpuset.cpus (cpuset.mems copied from the parent): a solution that widens its own
//     affinity still gets that one CPU;
//   - pids.max at Limits.Processes tasks;
//   - on timeout, cancellation, output over the limit or the end of the star, every process in it is killed
//     (v1: frozen, killed, thawed, until cgroup.procs is empty; v2: cgroup.kill), then the cgroup is removed.
//
// Cgroups left by a killed run (its pid gone) are removed at the start of the next run. The next star's cgroup
// is made while a star runs, and the ended star's removed in the background, to keep them off the star's path.
// Without cgroups (not root, no controllers, macOS) isolation is degraded ("cgroup" in Isolation.Missing,
// Result.Protections.Cgroup false): the RSS watchdog below and the per-user kill are the fallback.
//
// # Run directories
//
// A run keeps the stars' copies in a directory transitbench-run-<pid>-<random>, mode 0700, under the data
// directory's run root (data.Home()/run, 0700), or under Runner.WorkDir when set. The star directory is
// bind-mounted into the sandbox, so the star's user need not traverse the host path; where the solution reaches
// the star by its host path as another user (no mount namespace, or a user namespace whose root is the star's
// user) the run directory is made 0711 under the system's temporary directory instead. Each star's directory
// is removed when the star ends and the run's when the run ends. A run holds an flock on its directory; at the
// start of every run, any transitbench-* entry of the run root that no live process holds (unlocked, and its
// pid dead or not in its name) is removed, so a killed run's light curves do not stay on disk. Prepare's
// solution snapshot is still made in the system's temporary directory.
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
