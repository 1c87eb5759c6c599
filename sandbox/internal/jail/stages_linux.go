package jail

import (
	"syscall"
	"unsafe"
)

// stages is the child's record, nil unless Config.Trace is set.
var stages *Stages

func (s *Stages) mark(st Stage) {
	if s != nil {
		s[st] = MonotonicNow()
	}
}

// clockMonotonic is CLOCK_MONOTONIC (linux/time.h).
const clockMonotonic = 1

// MonotonicNow reads CLOCK_MONOTONIC in nanoseconds (0 where it cannot).
func MonotonicNow() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}

// writeStages writes the child's stages to the stage pipe, 8 bytes each (little-endian). The exec of the
// solution closes the pipe.
func writeStages() {
	if stages == nil {
		return
	}
	stages.mark(StageExec)
	b := make([]byte, 0, StagesBytes)
	for _, t := range stages {
		b = appendLE64(b, uint64(t))
	}
	syscall.Write(TraceFD, b)
}
