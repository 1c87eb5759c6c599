package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
)

// dataMiniOptions are the inputs of 'transitbench data mini'.
type dataMiniOptions struct {
	Task  string // --task: the mini task id
	Stars int    // --stars: the train pool's size when it is built here (0: the default)
}

func newDataMiniCmd() *cobra.Command {
	opts := &dataMiniOptions{}
	cmd := &cobra.Command{
		Use:   "mini --task ID",
		Short: "List a mini task's labelled stars and count its hidden ones",
		Long: fmt.Sprintf(`List a mini task's stars (SPEC A8): %d labelled stars and %d hidden stars holding %d injected planets.
Tasks mini-train-NNNNNNNN (any number, at least 8 digits) draw from the train pool, mini-dev-00000000 …
mini-dev-%08d from dev. The draw is a pure function of the task id and the pool. The reward of a task is
clip((credit − false)/%d, −1, 1) over its hidden stars.

The hidden stars come from the secret pool M, built from the grader's secret seed (like A and B) at the first
mini run (1,000 stars); their ids are not listed, and a solution sees them under per-run random ids.

--json prints {"task", "pool", "labelled": [ids], "hidden_pool", "hidden_stars", "planets"}.`,
			sets.MiniLabelled, sets.MiniHidden, sets.MiniPlanets, sets.MiniDevTasks-1, sets.MiniPlanets),
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDataMini, opts),
	}
	cmd.Flags().StringVar(&opts.Task, "task", "", "task id, e.g. mini-dev-00000007 or mini-train-00001234")
	cmd.Flags().IntVar(&opts.Stars, "stars", 0, "train pool size to build when it is not built yet (default 2000)")
	return cmd
}

// runDataMini lists a mini task's labelled stars and counts its hidden ones (under JSON its sets.Mini),
// building its public pool first if needed. The secret pool is neither built nor read here.
func runDataMini(ctx context.Context, s streams, opts *dataMiniOptions) error {
	if _, _, err := sets.ParseMiniTask(opts.Task); err != nil {
		return usageErrorf("--task: %v", err)
	}
	if opts.Stars < 0 {
		return usageErrorf("--stars %d: give the train pool's size, or 0 for the default", opts.Stars)
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	m, err := sets.OpenMiniLabelled(home, opts.Task, sets.Options{Context: ctx, Stars: opts.Stars,
		Progress: newProgressPrinter(s.Err, "building").update})
	if err != nil {
		return err
	}
	if s.JSON {
		return writeJSON(s.Out, m)
	}
	w := s.Out
	fmt.Fprintf(w, "mini task %s: stars of set %s\n", m.ID, m.Pool)
	fmt.Fprintf(w, "labelled (%d)  %s\n", len(m.Labelled), strings.Join(m.Labelled, " "))
	fmt.Fprintf(w, "hidden (%d)    stars of the secret pool %s, not listed\n", m.HiddenStars, m.HiddenPool)
	fmt.Fprintf(w, "the hidden stars hold %d injected planets\n", m.Planets)
	return nil
}
