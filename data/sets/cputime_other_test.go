//go:build !unix

package sets

// cpuSeconds is not measured on this system.
func cpuSeconds() float64 { return 0 }
