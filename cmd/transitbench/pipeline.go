package main

import (
	"errors"

	"github.com/spf13/cobra"

	"transitbench/workspace/baselines"
)

func init() { register(newPipelineCmd) }

// newPipelineCmd is the hidden command the baseline ladder runs in the sandbox for each star, exactly as a
// contestant's solution runs: `transitbench pipeline NAME STAR_DIR` prints `period_days,t0_days,score` rows.
func newPipelineCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "pipeline NAME STAR_DIR",
		Short:  "Run a reference pipeline (naive_v0, learned_vetter) on one star directory",
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := baselines.PrintPipeline(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], args[1])
			if errors.Is(err, baselines.ErrUnknownPipeline) {
				return usageErrorf("%v", err)
			}
			return err
		},
	}
}
