// Package sandbox runs untrusted solution code on one star at a time (SPEC A6): a fresh process with a wall-clock
// limit, one CPU, no network, its own PID and mount namespaces, resource limits, an unprivileged user when started
// as root, and nothing of the data sets or answers in view. Results stream back as each star finishes.
package sandbox
