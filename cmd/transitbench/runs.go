package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/grader/store"
)

func init() { register(newRunsCmd) }

// runsOptions are the inputs of 'transitbench runs'.
type runsOptions struct {
	Set   string // --set: only runs on this set ("": all)
	Kind  string // --kind: only runs of this kind (dev, grade, mini, baseline; "": all)
	Limit int    // --limit: at most this many runs (0: all)
}

func newRunsCmd() *cobra.Command {
	opts := &runsOptions{}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List past runs",
		Long: `List past runs (dev, grade, mini) from the results store in the data directory, newest first.

A grade run shows the number of its grading among its workspace's gradings (#1 for the first, counting every
grading of any solution, re-gradings included). A run on a hidden set (A, B) holds aggregates only.

--json prints a list of {"id", "kind", "set", "label" (the workspace), "solution_hash", "started", "finished",
"status", "isolation", "stars", "summary", "flags", "hidden", "grading"}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runRuns, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "only runs on this set")
	cmd.Flags().StringVar(&opts.Kind, "kind", "", "only runs of this kind (dev, grade, mini)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "at most this many runs (0: all)")
	return cmd
}

// runRuns lists the results store's runs, newest first: a table, or under JSON a list of store.Run.
func runRuns(ctx context.Context, s streams, opts *runsOptions) error {
	if opts.Limit < 0 {
		return usageErrorf("--limit %d: give a number of runs, or 0 for all", opts.Limit)
	}
	if opts.Kind != "" && !slices.Contains(runKinds, opts.Kind) {
		return usageErrorf("--kind %q: use one of %s", opts.Kind, strings.Join(runKinds, ", "))
	}
	if err := checkSetFlag(opts.Set); err != nil {
		return err
	}
	runs, err := listResults(func(st *store.Store) ([]store.Run, error) {
		return st.Runs(ctx, store.RunFilter{Set: opts.Set, Kind: opts.Kind, Limit: opts.Limit})
	})
	if err != nil {
		return err
	}
	return printRows(s, runs, "RUN\tKIND\tGRADING\tSET\tSTARS\tSTATUS\tSTARTED\tSOLUTION\tWORKSPACE", func(tw io.Writer, r store.Run) {
		grading := "–"
		if r.Grading > 0 {
			grading = fmt.Sprintf("#%d", r.Grading)
			if r.HasFlag(store.FlagAgain) {
				grading += " again"
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%.12s\t%s\n", r.ID, r.Kind, grading, r.Set, r.Stars, r.Status,
			r.Started.Local().Format("2006-01-02 15:04"), r.SolutionHash, r.Label)
	})
}
