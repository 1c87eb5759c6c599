package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/internal/termtext"
)

func init() { register(newFailingCmd) }

// failingOptions are the inputs of 'transitbench failing'.
type failingOptions struct {
	Set        string // --set: the set (required; hidden sets are refused)
	Limit      int    // --limit: at most this many stars
	scopeFlags        // --workspace, --all-workspaces: whose runs
}

func newFailingCmd() *cobra.Command {
	opts := &failingOptions{}
	cmd := &cobra.Command{
		Use:   "failing --set NAME",
		Short: "List the stars solutions get wrong most often",
		Long: `List the stars of a set that dev and grade runs most often missed (a planet left unclaimed) or gave false
candidates on, across the current workspace's runs (--workspace DIR, else the one around the working
directory, else the default workspace; the first line names it and its solution's kind), or with
--all-workspaces across every run of the data directory: where a maintainer looks first.

The hidden sets (A, B) have no per-star outcomes and are refused (exit status 2, "hidden stars are not shown").

--json prints a list of {"star_id", "runs", "missed", "false", "last_run_id", "last_status"}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runFailing, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "the set (dev, A, B, …)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "at most this many stars")
	opts.scopeFlags.add(cmd)
	return cmd
}

// runFailing lists the set's most often failed stars from the results store (under JSON a list of
// store.FailingStar).
func runFailing(ctx context.Context, s streams, opts *failingOptions) error {
	if opts.Set == "" {
		return usageErrorf("--set is required (e.g. --set dev)")
	}
	if opts.Limit <= 0 {
		return usageErrorf("--limit %d: give a positive number of stars", opts.Limit)
	}
	if err := checkSetFlag(opts.Set); err != nil {
		return err
	}
	if sets.IsHidden(opts.Set) {
		return refuseHidden("set " + opts.Set + " is hidden, and its runs keep no per-star outcomes; list the failing stars of dev")
	}
	scope, err := opts.scope()
	if err != nil {
		return err
	}
	stars, err := listResults(func(st *store.Store) ([]store.FailingStar, error) {
		return st.FailingStarsIn(ctx, scope.filter(), opts.Set, opts.Limit)
	})
	if err != nil {
		return err
	}
	if !s.JSON {
		fmt.Fprintln(s.Out, scope.header())
	}
	return printRows(s, stars, "STAR\tRUNS\tMISSED\tFALSE\tLAST RUN\tLAST", func(tw io.Writer, f store.FailingStar) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", termtext.Line(f.StarID), f.Runs, f.Missed, f.False, f.LastRunID, termtext.Line(f.LastStatus))
	})
}
