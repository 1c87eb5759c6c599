package sandbox

// A star's overhead, stage by stage. When a runner has a stage hook (tests and the overhead benchmark), every
// star records the moment it passes each stage, on the clock that the runner and its child share
// (CLOCK_MONOTONIC; the sandbox has no time namespace): the runner its own stages, the child its own
// (jail.Stages), which it writes to a pipe of its own (jail.TraceFD) just before it executes the solution.
// Without a hook nothing is recorded and the child gets no such pipe.

import (
	"io"

	"golang.org/x/sys/unix"

	"transitbench/sandbox/internal/jail"
)

// stage is one moment of a star's life, in the order a star passes them.
type stage int

const (
	stageStart        stage = iota // the worker took the star
	stagePrepared                  // its directory written and made readable (Job.Prepare)
	stageUID                       // its user id taken
	stageSlot                      // its slot in hand: its cgroup, and its child waiting at the gate (slot.go)
	stagePinned                    // its cgroup given the worker's CPU
	stageOpened                    // its gate opened: the star's files are ready
	stageChildMain                 // child: its program's initialisation done, jail.Main entered
	stageChildConfig               // child: its configuration read (ahead, when the slot is)
	stageChildRoot                 // child: capability bounds dropped, its root built (mounts, pivot_root, masks), its names set (ahead too)
	stageChildGate                 // child: past the gate
	stageChildStar                 // child: the star's files copied in
	stageChildLimits               // child: pinned, in its directory, resource limits set
	stageChildUser                 // child: the star's user
	stageChildSeccomp              // child: the system-call filter loaded
	stageChildExec                 // child: about to execute the solution
	stageExecuted                  // the runner saw the exec (the status pipe closed)
	stageExited                    // the solution reaped
	stageKilled                    // its cgroup emptied, its peak and OOM count read
	stageEnded                     // its cgroup handed back (killed, and its removal started)
	stageCollected                 // its output drained and its Result made
	stageDone                      // its directory removed

	// The making of its slot, during the previous star when slots are made ahead.
	stageSlotBegan // the slot's making began
	stageSpawned   // the child started: cloned into its namespaces and its program executed
	stageAttached  // the child moved into the cgroup
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

// slot records that the star's slot is in hand, and the moments of its making.
func (t *starTrace) slot(sl *slot) {
	if t != nil {
		t.mark(stageSlot)
		t.t[stageSlotBegan], t.t[stageSpawned], t.t[stageAttached] = sl.began, sl.spawned, sl.attached
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

// readChildStages reads the child's stages from its stage pipe into t; a short record (the child failed before
// its exec) leaves them at 0.
func (t *starTrace) readChildStages(r io.Reader) {
	var b [jail.StagesBytes]byte
	_, err := io.ReadFull(r, b[:])
	io.Copy(io.Discard, r)
	if err != nil {
		return
	}
	for i, v := range jail.DecodeStages(b[:]) {
		t.t[firstChildStage+stage(i)] = v
	}
}

// The child's stages map one to one onto the runner's, from firstChildStage to lastChildStage.
var _ [jail.NumStages]struct{} = [lastChildStage - firstChildStage + 1]struct{}{}
