package main

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/cobra"

	"transitbench/workspace/baselines"
)

func init() { register(newPipelineCmd) }

// pipelineOptions are the inputs of the hidden 'transitbench pipeline' command.
type pipelineOptions struct {
	Name    string // the pipeline: naive_v0, learned_vetter or expert (the first argument)
	StarDir string // the star directory (the second argument)
}

// pipelineRowJSON is one row of 'pipeline --json'.
type pipelineRowJSON struct {
	PeriodDays float64 `json:"period_days"`
	T0Days     float64 `json:"t0_days"`
	Score      float64 `json:"score"`
}

// pipelineJSON is the output of 'pipeline --json': the pipeline, the star directory and the rows it printed.
// Its fields are in the order of its JSON keys (sorted).
type pipelineJSON struct {
	Pipeline string            `json:"pipeline"`
	Rows     []pipelineRowJSON `json:"rows"`
	StarDir  string            `json:"star_dir"`
}

// newPipelineCmd is the hidden command the baseline ladder runs in the sandbox for each star, exactly as a
// contestant's solution runs: `transitbench pipeline NAME STAR_DIR` prints `period_days,t0_days,score` rows.
func newPipelineCmd() *cobra.Command {
	opts := &pipelineOptions{}
	return &cobra.Command{
		Use:   "pipeline NAME STAR_DIR",
		Short: "Run a reference pipeline (naive_v0, learned_vetter, expert) on one star directory",
		Long: `Run a reference pipeline (naive_v0, learned_vetter, expert) on one star directory and print its rows as a
solution does (period_days,t0_days,score). The expert starter ('transitbench init --starter expert') is a run
script that calls 'pipeline expert' on its star.

--json prints {"pipeline", "star_dir", "rows": [{"period_days", "t0_days", "score"}]}.`,
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.StarDir = args[0], args[1]
			return runPipeline(cmd.Context(), streamsOf(cmd), opts)
		},
	}
}

// runPipeline runs the reference pipeline on the star directory and prints its rows as a solution does (under
// JSON the pipelineJSON); the pipeline's diagnostics go to s.Err.
func runPipeline(_ context.Context, s streams, opts *pipelineOptions) error {
	name, dir := opts.Name, opts.StarDir
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if _, uerr := baselines.PipelineRows(s.Err, name, ""); errors.Is(uerr, baselines.ErrUnknownPipeline) {
			return usageErrorf("%v", uerr)
		}
		return notFoundf("star directory %s does not exist or is not a directory: give a directory holding "+
			"lightcurve.csv and star.json", dir)
	}
	if !s.JSON {
		err := baselines.PrintPipeline(s.Out, s.Err, name, dir)
		if errors.Is(err, baselines.ErrUnknownPipeline) {
			return usageErrorf("%v", err)
		}
		return err
	}
	rows, err := baselines.PipelineRows(s.Err, name, dir)
	if errors.Is(err, baselines.ErrUnknownPipeline) {
		return usageErrorf("%v", err)
	}
	if err != nil {
		return err
	}
	out := []pipelineRowJSON{}
	for _, r := range rows {
		out = append(out, pipelineRowJSON(r))
	}
	return writeJSON(s.Out, pipelineJSON{Pipeline: name, StarDir: dir, Rows: out})
}
