// Command transitbench is the TransitBench benchmark environment: the transit and RV tracks, their data,
// the sandboxed runner, the grader and the terminal UI.
//
// Exit codes: 0 success, 1 a run or check failed, 2 bad usage (unknown command or flag, bad argument).
package main

import (
	"errors"
	"fmt"
	"os"

	"transitbench/sandbox"
)

func main() {
	if sandbox.IsChild() {
		sandbox.ChildMain() // a star's sandboxed process: set up, then exec the solution
	}
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "transitbench:", err)
	var u *usageError
	if errors.As(err, &u) || isCobraUsageError(err) {
		return 2
	}
	return 1
}
