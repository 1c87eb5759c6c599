// Package jail is the child side of the sandbox: the code that runs in a star's new process, between the clone
// into its namespaces and the exec of the solution (the mounts and the new root, the names, the limits, the
// user, the system-call filter). The runner (package sandbox) starts it and, once it is in the star's cgroup,
// hands it its Config through a pipe, the gate. It uses the standard library alone, so that the runner can
// build it on the machine, from the sources it embeds, into a small program of its own
// (sandbox/childprogram_linux.go): a star then starts that program, not the runner's whole executable, whose
// initialisation costs many milliseconds. The system calls the standard library does not name on every
// architecture (seccomp, setns, the new mount API, close_range) come with their numbers in Config, from the
// runner's tables.
package jail
