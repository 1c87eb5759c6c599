package main

import (
	"fmt"

	"transitbench/workspace"
)

// refuseHidden returns the error for a request to show a hidden star (SPEC A8): code "hidden", exit status 2.
// It wraps workspace.ErrHiddenStar; detail follows "hidden stars are not shown: ".
func refuseHidden(detail string) error {
	return withCode(codeHidden, fmt.Errorf("%w: %s", workspace.ErrHiddenStar, detail))
}
