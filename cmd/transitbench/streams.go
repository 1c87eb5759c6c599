package main

import (
	"io"

	"github.com/spf13/cobra"
)

// streams is where a command's run function reads and writes, so that the logic runs without cobra: In is
// standard input, Out the command's result (a table, or under JSON exactly one JSON document), Err progress and
// warnings, and JSON whether --json was given.
type streams struct {
	In   io.Reader
	Out  io.Writer
	Err  io.Writer
	JSON bool
}

// streamsOf returns the streams of a cobra command: its input, output and error writers and its --json flag.
func streamsOf(cmd *cobra.Command) streams {
	return streams{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), JSON: wantJSON(cmd)}
}
