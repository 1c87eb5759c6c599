//go:build !unix

package detrend

// cpuSeconds is not measured on this system; benchmarks then report 0 CPU seconds.
func cpuSeconds() float64 { return 0 }
