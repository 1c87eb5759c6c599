package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

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

// runWithOpts is the RunE of a command whose run function takes the command's streams and its options as its
// flags left them.
func runWithOpts[O any](run func(context.Context, streams, *O) error, opts *O) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), streamsOf(cmd), opts) }
}

// printRows prints rows to s.Out: under JSON as one array, else as a table with the tab-separated header and one
// line a row, which line writes.
func printRows[T any](s streams, rows []T, header string, line func(w io.Writer, row T)) error {
	if s.JSON {
		return writeJSON(s.Out, rows)
	}
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		line(tw, r)
	}
	return tw.Flush()
}
