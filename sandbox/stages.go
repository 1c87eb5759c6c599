package sandbox

// A star's overhead, stage by stage. When a runner has a stage hook (tests and the overhead benchmark), every
// star records the moment it passes each stage, on the clock that the runner and its child share
// (CLOCK_MONOTONIC; the sandbox has no time namespace): the runner its own stages, the child its own, which it
// writes to a pipe of its own (childTraceFD) just before it executes the solution. Without a hook nothing is
// recorded and the child gets no such pipe.

import (
	"encoding/binary"
	"io"

	"golang.org/x/sys/unix"
)

// stage is one moment of a star's life, in the order a star passes them.
type stage int

const (
	stageStart        stage = iota // the worker took the star
	stagePrepared                  // its directory written and made readable (Job.Prepare)
	stageUID                       // its user id taken
	stageCgroup                    // its cgroup ready
	stageSpawned                   // the child started: cloned into its namespaces and its program executed
	stageAttached                  // the child moved into the cgroup and its gate opened
	stageChildMain                 // child: its program's initialisation done, ChildMain entered
	stageChildGate                 // child: past the gate, its configuration read
	stageChildRoot                 // child: its root built (mounts, pivot_root, masks) and its names set
	stageChildLimits               // child: pinned, in its directory, resource limits set, capabilities dropped
	stageChildUser                 // child: the star's user
	stageChildSeccomp              // child: the system-call filter loaded
	stageChildExec                 // child: about to execute the solution
	stageExecuted                  // the runner saw the exec (the status pipe closed)
	stageExited                    // the solution reaped
	stageKilled                    // its cgroup emptied, its peak and OOM count read
	stageEnded                     // its cgroup handed back (reset or removed)
	stageCollected                 // its output drained and its Result made
	stageDone                      // its directory removed
	numStages
)

// firstChildStage and lastChildStage bound the stages the child records.
const (
	firstChildStage = stageChildMain
	lastChildStage  = stageChildExec
)

// stageTimes holds a star's moments in nanoseconds of CLOCK_MONOTONIC, 0 for a stage not passed.
type stageTimes [numStages]int64

// starTrace records one star's stages; a nil *starTrace records nothing.
type starTrace struct {
	t stageTimes
}

func (t *starTrace) mark(s stage) {
	if t != nil {
		t.t[s] = monotonicNow()
	}
}

// monotonicNow reads CLOCK_MONOTONIC in nanoseconds.
func monotonicNow() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// childTraceFD is the child's end of the stage pipe, open only when childConfig.Trace is set.
const childTraceFD = 5

// childStages are the child's own moments, recorded when its configuration asks for them (nil otherwise).
var childStages *starTrace

// writeChildStages writes the child's stages to the stage pipe, 8 bytes each (little-endian), from
// firstChildStage to lastChildStage. The exec of the solution closes the pipe.
func writeChildStages() {
	if childStages == nil {
		return
	}
	childStages.mark(stageChildExec)
	var b [8 * (lastChildStage - firstChildStage + 1)]byte
	for s := firstChildStage; s <= lastChildStage; s++ {
		binary.LittleEndian.PutUint64(b[8*(s-firstChildStage):], uint64(childStages.t[s]))
	}
	unix.Write(childTraceFD, b[:])
}

// readChildStages reads what writeChildStages wrote into t; a short record (the child failed before its exec)
// leaves the child's stages at 0.
func (t *starTrace) readChildStages(r io.Reader) {
	var b [8 * (lastChildStage - firstChildStage + 1)]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		io.Copy(io.Discard, r)
		return
	}
	io.Copy(io.Discard, r)
	for s := firstChildStage; s <= lastChildStage; s++ {
		t.t[s] = int64(binary.LittleEndian.Uint64(b[8*(s-firstChildStage):]))
	}
}
