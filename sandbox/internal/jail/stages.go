package jail

// Stage is a moment of the child's setup that it records when Config.Trace is set (the runner's overhead
// benchmark): the runner reads them from the stage pipe next to its own.
type Stage int

const (
	StageMain    Stage = iota // the program's initialisation done, Main entered
	StageConfig               // the configuration read (the gate's first opening)
	StageRoot                 // the root built (mounts, pivot_root, masks) and the names set
	StageGate                 // past the gate's second opening: the star's files are ready
	StageStar                 // the star's files copied in
	StageLimits               // pinned, in its directory, resource limits set
	StageUser                 // the star's user
	StageSeccomp              // the system-call filter loaded
	StageExec                 // about to execute the solution
	NumStages
)

// Stages are the moments of the child's stages, in nanoseconds of CLOCK_MONOTONIC (which the runner and the
// child share: the sandbox has no time namespace); 0 for a stage not passed.
type Stages [NumStages]int64

// StagesBytes is the size of the child's record on the stage pipe: 8 bytes a stage, little-endian.
const StagesBytes = 8 * NumStages

// DecodeStages decodes the child's record, b (StagesBytes long).
func DecodeStages(b []byte) (s Stages) {
	for i := range s {
		s[i] = int64(le64(b[8*i:]))
	}
	return s
}
