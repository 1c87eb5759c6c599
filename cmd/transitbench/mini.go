package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"transitbench/data/sets"
)

func init() { register(newMiniCmd) }

// miniRunOptions are the inputs of 'transitbench mini run'.
type miniRunOptions struct {
	runFlags
	Task string // --task: the mini task id (required)
}

func newMiniCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mini",
		Short: "The mini taskset (SPEC A8)",
		Args:  cobra.NoArgs,
		RunE:  groupHelp,
	}
	opts := &miniRunOptions{}
	run := &cobra.Command{
		Use:   "run --task ID",
		Short: "Run the workspace's solution on a mini task's hidden stars and print the reward",
		Long: `Run the workspace's solution on the 16 hidden stars of a mini task (8 injected planets) and print the reward
clip((credit − false) / 8, −1, 1). The labelled stars of mini-train-%08d come from the train pool, those of
mini-dev-00000000 … 31 from the dev pool; the hidden stars of every task come from the secret pool M, built from
the grader's secret seed at the first mini run (or 'transitbench data build --set M'), and run like a hidden
set's: anonymous ids, a shuffled order, full isolation unless --allow-degraded, only the reward shown.

--json prints {"task", "reward", "credit", "false", "run_id", "seconds"}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runMiniRun, opts),
	}
	opts.runFlags.add(run)
	run.Flags().StringVar(&opts.Task, "task", "", "the mini task id")
	cmd.AddCommand(run)
	return cmd
}

// runMiniRun runs the workspace's solution on a mini task's hidden stars and prints the reward (under JSON the
// workspace.MiniResult), with the run's progress on s.Err.
func runMiniRun(ctx context.Context, s streams, opts *miniRunOptions) error {
	if opts.Task == "" {
		return usageErrorf("--task is required (e.g. mini-dev-00000007)")
	}
	if _, _, err := sets.ParseMiniTask(opts.Task); err != nil {
		return usageErrorf("--task: %v", err)
	}
	r, err := opts.runFlags.start(ctx, s.Err)
	if err != nil {
		return err
	}
	defer r.stop()
	res, err := r.ws.Mini(r.ctx, opts.Task, r.opt, r.events)
	r.wait()
	if err != nil {
		return err
	}
	if s.JSON {
		return writeJSON(s.Out, res)
	}
	fmt.Fprintf(s.Out, "%s  reward %.3f  (credit %.1f, false %d)\n", res.Task, res.Reward, res.Credit, res.False)
	return nil
}
