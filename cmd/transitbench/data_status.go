package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
)

func newDataStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "List the data directory's sets: built, half-built or missing",
		Long: `List the standard sets and every other set in the data directory, without building or checking them:
whether each is built, and whether an interrupted build waits to be continued (by the next build or the next
command that opens the set).

--json prints a list of {"set", "built", "interrupted", "stars_done", "stars", "generator"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDataStatus(cmd.Context(), streamsOf(cmd))
		},
	}
}

// runDataStatus lists the data directory's sets and their state (under JSON a list of sets.Status), without
// building or checking them. It takes no options.
func runDataStatus(_ context.Context, s streams) error {
	home, err := data.Home()
	if err != nil {
		return err
	}
	return printRows(s, sets.List(home), "set\tstate\tstars\tgenerator", func(tw io.Writer, st sets.Status) {
		state := "not built"
		switch {
		case st.Built && st.Interrupted:
			state = fmt.Sprintf("built; a rebuild stopped at %d stars", st.StarsDone)
		case st.Built:
			state = "built"
		case st.Interrupted:
			state = fmt.Sprintf("half-built: %d of %d stars (the next build continues)", st.StarsDone, st.Stars)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", st.Set, state, st.Stars, st.Generator)
	})
}
