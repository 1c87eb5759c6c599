package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register(newDevCmd) }

// devOptions are the inputs of 'transitbench dev'.
type devOptions struct {
	runFlags
	Limit int    // --limit: run only the first N stars (0: all)
	Stars string // --stars: run only these stars (comma-separated ids; "": all)
	Fresh bool   // --fresh: start a new run instead of resuming an interrupted one
}

func newDevCmd() *cobra.Command {
	opts := &devOptions{}
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the current solution on the labelled dev stars and score it",
		Long: `Run the workspace's current solution on its labelled dev stars exactly as grading would (each star in the
sandbox: 60 s, one CPU, no network), then print S, C, F, the EB share and the breakdowns. Per-star outcomes are
stored for 'transitbench star', 'transitbench runs' and the terminal UI.

An interrupted run (Ctrl-C) keeps its finished stars; running dev again with the same solution resumes it
(--fresh starts over).

--json prints {"run_id", "set", "hidden", "stars_run", "resumed", "S", "C", "F", "eb_share", "credit", "false",
"planets", "scored_stars", "counted_ebs", "ebs_with_rows", "by_population", "by_mes_bin", "by_category",
"ignored_stars", "ignored_rows", "failures": {"timeout", "crash", "output_limit"}, "exits": {reason: stars},
"slowest_seconds": [longest runtimes, no star ids], "score_withheld" (a partly run hidden set), "grading" (grade
runs), "isolation", "protections" {"namespaces", "seccomp", "cgroup", "fresh_uid"}, "seconds", "solution_hash", "complete"}. Exit status 1 when the run was interrupted or failed,
or when another process is resuming the same run.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDev, opts),
	}
	opts.runFlags.add(cmd)
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "run only the first N stars")
	cmd.Flags().StringVar(&opts.Stars, "stars", "", "run only these stars (comma-separated ids)")
	cmd.Flags().BoolVar(&opts.Fresh, "fresh", false, "start a new run instead of resuming an interrupted one")
	return cmd
}

// runDev runs the workspace's solution on its dev stars and prints the workspace.Report (the JSON document of
// --json, also on a failure that kept finished stars), with the run's progress on s.Err.
func runDev(ctx context.Context, s streams, opts *devOptions) error {
	if opts.Limit < 0 {
		return usageErrorf("--limit %d: give a number of stars, or 0 for all", opts.Limit)
	}
	r, err := opts.runFlags.start(ctx, s.Err)
	if err != nil {
		return err
	}
	defer r.stop()
	r.opt.Limit, r.opt.Fresh = opts.Limit, opts.Fresh
	if opts.Stars != "" {
		r.opt.Stars = strings.Split(opts.Stars, ",")
	}
	rep, err := r.ws.Dev(r.ctx, r.opt, r.events)
	r.wait()
	if err != nil && rep != nil {
		if errors.Is(err, context.Canceled) {
			err = fmt.Errorf("interrupted: %d stars kept in run %d; run 'transitbench dev' again to resume: %w",
				rep.StarsRun, rep.RunID, err)
		} else {
			err = fmt.Errorf("%w (%d finished stars kept in run %d; run 'transitbench dev' again to resume)",
				err, rep.StarsRun, rep.RunID)
		}
	}
	if s.JSON {
		if err != nil {
			return failWithResult(err, rep)
		}
		return writeJSON(s.Out, rep)
	}
	if rep != nil {
		printReport(s.Out, rep)
	}
	return err
}
