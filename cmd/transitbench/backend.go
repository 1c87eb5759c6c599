package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"transitbench/workspace"
	"transitbench/workspace/slurm"
)

// backendFlags choose where a run's stars run (--backend) and, for slurm, how the job array is submitted. dev,
// grade, mini run and baselines share them.
type backendFlags struct {
	Backend     string   // --backend: local or slurm
	Partition   string   // --slurm-partition
	Account     string   // --slurm-account
	QOS         string   // --slurm-qos
	Extra       []string // --slurm-flag (repeated): more sbatch options
	Chunk       int      // --slurm-chunk: stars per array task
	MaxParallel int      // --slurm-max-tasks: tasks running at once (0: no cap)
	CPUs        int      // --slurm-cpus: stars a task runs at once (its --cpus-per-task)
	Retries     int      // --slurm-retries: submissions again of a failed or lost chunk
	// command and env, when set, replace how the nodes start the worker (tests run their own binary).
	command, env []string
}

// add binds the backend flags to cmd.
func (f *backendFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.Backend, "backend", "local", "where the stars run: local (this machine) or slurm (a job array; the data directory must be shared with the nodes)")
	fl.StringVar(&f.Partition, "slurm-partition", "", "slurm: the partition (sbatch --partition)")
	fl.StringVar(&f.Account, "slurm-account", "", "slurm: the account (sbatch --account)")
	fl.StringVar(&f.QOS, "slurm-qos", "", "slurm: the quality of service (sbatch --qos)")
	fl.StringArrayVar(&f.Extra, "slurm-flag", nil, "slurm: one more sbatch option, e.g. --slurm-flag=--constraint=avx2 (repeatable)")
	fl.IntVar(&f.Chunk, "slurm-chunk", slurm.DefaultChunk, "slurm: stars per array task")
	fl.IntVar(&f.MaxParallel, "slurm-max-tasks", 0, "slurm: array tasks running at once (0: as many as the cluster gives)")
	fl.IntVar(&f.CPUs, "slurm-cpus", 1, "slurm: stars each task runs at once (its CPUs; memory is this × the star's cap)")
	fl.IntVar(&f.Retries, "slurm-retries", slurm.DefaultRetries, "slurm: times a failed or lost chunk is submitted again")
}

// backend returns the workspace.Backend the flags choose (nil: local), logging the array's submissions on errw.
func (f *backendFlags) backend(errw io.Writer) (workspace.Backend, error) {
	switch f.Backend {
	case "", "local":
		return nil, nil
	case "slurm":
	default:
		return nil, usageErrorf("--backend %q: use local or slurm", f.Backend)
	}
	if f.Chunk < 1 || f.CPUs < 1 || f.MaxParallel < 0 || f.Retries < 0 {
		return nil, usageErrorf("--slurm-chunk %d, --slurm-cpus %d, --slurm-max-tasks %d, --slurm-retries %d: give chunk and cpus of 1 or more, the others 0 or more",
			f.Chunk, f.CPUs, f.MaxParallel, f.Retries)
	}
	retries := f.Retries
	if retries == 0 {
		retries = -1 // Backend's 0 is the default
	}
	return &slurm.Backend{Partition: f.Partition, Account: f.Account, QOS: f.QOS, Extra: f.Extra, Chunk: f.Chunk,
		MaxParallel: f.MaxParallel, Workers: f.CPUs, Retries: retries, Command: f.command, Env: f.env,
		Log: func(msg string) { fmt.Fprintln(errw, msg) }}, nil
}
