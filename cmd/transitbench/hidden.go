package main

import (
	"github.com/spf13/cobra"

	"transitbench/workspace"
)

// errCodeHidden is the error code of a request to show a hidden star (SPEC A8).
const errCodeHidden = "hidden"

// hiddenError is what a command returns when asked to show a hidden star: bad usage (exit status 2), with the
// code "hidden" for the JSON error form. It wraps workspace.ErrHiddenStar.
type hiddenError struct{ msg string }

func (e *hiddenError) Error() string     { return e.msg }
func (e *hiddenError) Unwrap() error     { return workspace.ErrHiddenStar }
func (e *hiddenError) ErrorCode() string { return errCodeHidden }

// jsonError is the JSON form of an error on stdout: {"error": {"code", "message"}}.
type jsonError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// refuseHidden returns the error for a request to show a hidden star, printing its JSON form on stdout first
// when --json is set. detail follows "hidden stars are not shown: ".
func refuseHidden(cmd *cobra.Command, detail string) error {
	e := &hiddenError{msg: workspace.ErrHiddenStar.Error() + ": " + detail}
	if wantJSON(cmd) {
		var j jsonError
		j.Error.Code, j.Error.Message = errCodeHidden, e.msg
		if err := writeJSON(cmd.OutOrStdout(), j); err != nil {
			return err
		}
	}
	return &usageError{e}
}
