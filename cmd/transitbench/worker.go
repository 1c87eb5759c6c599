package main

import (
	"context"

	"github.com/spf13/cobra"

	"transitbench/workspace/slurm"
)

func init() { register(newWorkerCmd) }

// workerOptions are the inputs of 'transitbench worker' (hidden: the Slurm backend's array tasks run it).
type workerOptions struct {
	Work string // --work: the run's work list (work.json in its directory under the data directory)
	Task int    // --task: the array task's index, $SLURM_ARRAY_TASK_ID
	// Submission is --submission: the array's job id, $SLURM_ARRAY_JOB_ID (each submission of a chunk appends
	// to a result file of its own)
	Submission string
}

func newWorkerCmd() *cobra.Command {
	opts := &workerOptions{Task: -1}
	cmd := &cobra.Command{
		Use:    "worker",
		Short:  "Run one chunk of a Slurm run's stars (run by the array tasks of --backend slurm)",
		Hidden: true,
		Long: `Run task --task of the work list --work through the sandbox, appending each finished star's result to the
task's result file, as the array tasks of a run with --backend slurm do. It prints nothing on a star; --json
prints nothing on success.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runWorker, opts),
	}
	cmd.Flags().StringVar(&opts.Work, "work", "", "the run's work list (work.json)")
	cmd.Flags().IntVar(&opts.Task, "task", -1, "the array task's index ($SLURM_ARRAY_TASK_ID)")
	cmd.Flags().StringVar(&opts.Submission, "submission", "", "the array's job id ($SLURM_ARRAY_JOB_ID)")
	return cmd
}

// runWorker runs the task's chunk until it is done or the task is cancelled (SIGTERM from scancel).
func runWorker(ctx context.Context, _ streams, opts *workerOptions) error {
	if opts.Work == "" {
		return usageErrorf("--work: give the run's work list (work.json)")
	}
	if opts.Task < 0 {
		return usageErrorf("--task: give the array task's index (>= 0)")
	}
	if err := isRegularFileArg("--work", opts.Work, "the run's work list"); err != nil {
		return err
	}
	if opts.Submission == "" {
		return usageErrorf("--submission: give the array's job id ($SLURM_ARRAY_JOB_ID)")
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	return slurm.Work(ctx, opts.Work, opts.Task, opts.Submission)
}
