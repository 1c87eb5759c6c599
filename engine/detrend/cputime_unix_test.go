//go:build unix

package detrend

import "syscall"

// cpuSeconds returns the process's user plus system CPU time in seconds. Benchmarks report it beside the wall
// time, because on a shared machine the wall time also counts the time other processes held the CPU.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}
