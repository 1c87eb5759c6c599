package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data/sets"
	"transitbench/grader/store"
)

func init() { register(newFailingCmd) }

func newFailingCmd() *cobra.Command {
	var set string
	var limit int
	cmd := &cobra.Command{
		Use:   "failing --set NAME",
		Short: "List the stars solutions get wrong most often",
		Long: `List the stars of a set that dev and grade runs most often missed (a planet left unclaimed) or gave false
candidates on, across all runs in the results database: where a maintainer looks first.

The hidden sets (A, B) have no per-star outcomes and are refused (exit status 2, "hidden stars are not shown").

--json prints a list of {"star_id", "runs", "missed", "false", "last_run_id", "last_status"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if set == "" {
				return usageErrorf("--set is required (e.g. --set dev)")
			}
			if limit <= 0 {
				return usageErrorf("--limit %d: give a positive number of stars", limit)
			}
			if err := checkSetFlag(set); err != nil {
				return err
			}
			if sets.IsHidden(set) {
				return refuseHidden("set " + set + " is hidden, and its runs keep no per-star outcomes; list the failing stars of dev")
			}
			st, err := openResults()
			if err != nil {
				return err
			}
			defer st.Close()
			stars, err := st.FailingStars(cmd.Context(), set, limit)
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				if stars == nil {
					stars = []store.FailingStar{}
				}
				return writeJSON(cmd.OutOrStdout(), stars)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "STAR\tRUNS\tMISSED\tFALSE\tLAST RUN\tLAST")
			for _, s := range stars {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", s.StarID, s.Runs, s.Missed, s.False, s.LastRunID, s.LastStatus)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&set, "set", "", "the set (dev, A, B, …)")
	cmd.Flags().IntVar(&limit, "limit", 20, "at most this many stars")
	return cmd
}
