package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"transitbench/workspace/baselines"
)

func init() { register(newPipelineCmd) }

// pipelineRowJSON is one row of 'pipeline --json'.
type pipelineRowJSON struct {
	PeriodDays float64 `json:"period_days"`
	T0Days     float64 `json:"t0_days"`
	Score      float64 `json:"score"`
}

// newPipelineCmd is the hidden command the baseline ladder runs in the sandbox for each star, exactly as a
// contestant's solution runs: `transitbench pipeline NAME STAR_DIR` prints `period_days,t0_days,score` rows.
func newPipelineCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "pipeline NAME STAR_DIR",
		Short: "Run a reference pipeline (naive_v0, learned_vetter) on one star directory",
		Long: `Run a reference pipeline (naive_v0, learned_vetter) on one star directory and print its rows as a solution
does (period_days,t0_days,score).

--json prints {"pipeline", "star_dir", "rows": [{"period_days", "t0_days", "score"}]}.`,
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, dir := args[0], args[1]
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				if _, uerr := baselines.PipelineRows(cmd.ErrOrStderr(), name, ""); errors.Is(uerr, baselines.ErrUnknownPipeline) {
					return usageErrorf("%v", uerr)
				}
				return notFoundf("star directory %s does not exist or is not a directory: give a directory holding "+
					"lightcurve.csv and star.json", dir)
			}
			if !wantJSON(cmd) {
				err := baselines.PrintPipeline(cmd.OutOrStdout(), cmd.ErrOrStderr(), name, dir)
				if errors.Is(err, baselines.ErrUnknownPipeline) {
					return usageErrorf("%v", err)
				}
				return err
			}
			rows, err := baselines.PipelineRows(cmd.ErrOrStderr(), name, dir)
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
			return writeJSON(cmd.OutOrStdout(), map[string]any{"pipeline": name, "star_dir": dir, "rows": out})
		},
	}
}
