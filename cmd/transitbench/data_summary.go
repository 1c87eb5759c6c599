package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// dataSummaryOptions are the inputs of 'transitbench data summary'.
type dataSummaryOptions struct {
	Set string // --set: the set to summarise
}

func newDataSummaryCmd() *cobra.Command {
	opts := &dataSummaryOptions{}
	cmd := &cobra.Command{
		Use:   "summary --set NAME",
		Short: "Count a set's stars by category and population",
		Long: `Count a set's stars by category and population, with its scored stars, planets, counted eclipsing
binaries and fingerprint. A standard set not built yet is built first.

--json prints {"set", "kind", "generator", "hidden", "stars", "categories": {"injected", "untouched", "eb",
"confirmed"}, "populations": {"random", "false_alarm"}, "scored_stars", "planets", "counted_ebs",
"fingerprint"}. Populations count the injected and untouched stars; planets are the scored planets.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDataSummary, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "set name: dev, A, B, train, or an imported set")
	return cmd
}

// runDataSummary prints the set's counts (under JSON its sets.Summary), building a standard set first if needed.
func runDataSummary(ctx context.Context, s streams, opts *dataSummaryOptions) error {
	set, err := openSetForCmd(ctx, s.Err, opts.Set)
	if err != nil {
		return err
	}
	sum := set.Summary()
	if s.JSON {
		return writeJSON(s.Out, sum)
	}
	w := s.Out
	c := sum.Categories
	fmt.Fprintf(w, "set %s (%s, generator %s%s)\n", sum.Set, sum.Kind, sum.Generator, map[bool]string{true: ", hidden"}[sum.Hidden])
	fmt.Fprintf(w, "stars        %d: %d injected, %d untouched, %d eclipsing binaries, %d confirmed hosts\n",
		sum.Stars, c.Injected, c.Untouched, c.EB, c.Confirmed)
	fmt.Fprintf(w, "populations  %d random, %d false-alarm\n", sum.Populations.Random, sum.Populations.FalseAlarm)
	fmt.Fprintf(w, "scored       %d stars, %d planets, %d counted eclipsing binaries\n", sum.ScoredStars,
		sum.Planets, sum.CountedEBs)
	fmt.Fprintf(w, "fingerprint  %s\n", sum.Fingerprint)
	return nil
}
