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
		Short: "List a mini task's labelled and hidden stars",
		Long: fmt.Sprintf(`List a mini task's stars (SPEC A8): %d labelled stars and %d hidden stars holding %d injected planets.
Tasks mini-train-NNNNNNNN (any number, at least 8 digits) draw from the train pool, mini-dev-00000000 …
mini-dev-%08d from dev. The draw is a pure function of the task id and the pool. The reward of a task is
clip((credit − false)/%d, −1, 1) over its hidden stars.

--json prints {"task", "pool", "labelled": [ids], "hidden": [ids], "planets"}.`,
			sets.MiniLabelled, sets.MiniHidden, sets.MiniPlanets, sets.MiniDevTasks-1, sets.MiniPlanets),
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDataMini, opts),
	}
	cmd.Flags().StringVar(&opts.Task, "task", "", "task id, e.g. mini-dev-00000007 or mini-train-00001234")
	cmd.Flags().IntVar(&opts.Stars, "stars", 0, "train pool size to build when it is not built yet (default 2000)")
	return cmd
}

// runDataMini lists a mini task's labelled and hidden stars (under JSON its sets.Mini), building its pool
// first if needed.
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
	m, err := sets.OpenMiniTask(home, opts.Task, sets.Options{Context: ctx, Stars: opts.Stars,
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
	fmt.Fprintf(w, "hidden (%d)    %s\n", len(m.Hidden), strings.Join(m.Hidden, " "))
	fmt.Fprintf(w, "the hidden stars hold %d injected planets\n", m.Planets)
	return nil
}
