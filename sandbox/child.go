package sandbox

import (
	"os"

	"transitbench/sandbox/internal/jail"
)

// childEnv marks a process started by the runner as the sandbox's child (its configuration comes through the
// gate: openGate).
const childEnv = jail.Env

// childStatusFD is the child's end of the status pipe: it stays empty and is closed by the exec of the solution
// when setup succeeds, and carries the error message when setup fails.
const childStatusFD = jail.StatusFD

// childConfig is what the runner tells the child (see jail.Config): where the star and the solution are, what
// to hide, which limits to set, which user to become, and what to execute.
type childConfig = jail.Config

// bindMount is a host directory mounted inside the sandbox, read-only unless Writable.
type bindMount = jail.BindMount

// The package's initialisation turns a sandbox child into the solution before the importing packages'
// init functions and main run. So every program and test binary that links this package serves as the
// sandbox child without further code (where the runner starts its own executable rather than the small child
// program, see childprogram_linux.go), and a test binary that forgot the hook cannot start its own tests again inside the
// sandbox.
func init() {
	if IsChild() {
		ChildMain()
	}
}

// IsChild reports whether this process was started by the runner as a sandbox child. The package's init
// already calls ChildMain in that case; a main function may repeat the check to make the entry point
// explicit:
//
//	func main() {
//		if sandbox.IsChild() {
//			sandbox.ChildMain()
//		}
//		…
//	}
func IsChild() bool { return os.Getenv(childEnv) != "" }

// ChildMain sets up the sandbox in the current process (mounts, limits, user) and executes the solution in
// its place. It never returns. When setup fails it writes the reason to the status pipe and exits with 127.
func ChildMain() { childMain() }
