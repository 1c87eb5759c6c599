// Command transitbench is the TransitBench benchmark environment: the transit and RV tracks, their data,
// the sandboxed runner, the grader and the terminal UI.
//
// Exit codes: 0 success, 1 a run or check failed, 2 bad usage (unknown command or flag, bad argument). Under
// --json a failure also prints {"error": {"code", "message"}} on stdout (the codes are in errors.go).
package main

import (
	"io"
	"os"

	"transitbench/internal/termtext"
	"transitbench/sandbox"
)

func main() {
	if sandbox.IsChild() {
		sandbox.ChildMain() // a star's sandboxed process: set up, then exec the solution
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int { return runIO(args, os.Stdout, os.Stderr) }

// runIO runs the command line args with its output on stdout and stderr and returns the exit status. Both go
// through termtext.Writer: whatever a command prints of a solution's output, a task or data file or an agent's
// name, no control character reaches the terminal raw (newlines and tabs pass; JSON output holds none anyway,
// writeJSON escapes them inside its strings).
func runIO(args []string, rawOut, rawErr io.Writer) int {
	stdout, stderr := termtext.NewWriter(rawOut), termtext.NewWriter(rawErr)
	defer stdout.Flush()
	defer stderr.Flush()
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	c, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	asJSON := argsWantJSON(args)
	if c != nil && wantJSON(c) {
		asJSON = true
	}
	return reportError(stdout, stderr, err, asJSON)
}
