package testutil

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU returns the CPU time (user + system) the test process has used so far.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU adds a "cpu-ns/op" metric: the process's CPU time per iteration since start (a ProcessCPU
// reading). On a shared machine ns/op (wall clock) grows with the load of other processes; CPU time does not.
func ReportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
}
