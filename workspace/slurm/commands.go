package slurm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// slurmCommand runs one of Slurm's commands and returns its stdout; a failure carries its stderr.
func slurmCommand(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if errors, ok := err.(*exec.Error); ok {
			return "", fmt.Errorf("slurm: %s: %w: install Slurm's client commands (Debian: slurm-client) or run on a login node", name, errors)
		}
		return "", fmt.Errorf("slurm: %s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// Available reports whether Slurm's commands are installed and a controller answers (sinfo succeeds).
func Available(ctx context.Context) error {
	_, err := slurmCommand(ctx, "sinfo", "-h", "-o", "%P")
	return err
}

// sbatch submits script (none: args hold --wrap) with args and returns the job id (--parsable prints "ID" or
// "ID;cluster").
func sbatch(ctx context.Context, args []string, script string) (string, error) {
	args = append([]string{"--parsable"}, args...)
	if script != "" {
		args = append(args, script)
	}
	out, err := slurmCommand(ctx, "sbatch", args...)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if id == "" {
		return "", fmt.Errorf("slurm: sbatch printed no job id")
	}
	return id, nil
}

// queued returns the state of each array task of the jobs called name that is still in the queue, by
// "JOBID_TASK" (squeue -r lists pending tasks one by one).
func queued(ctx context.Context, name string) (map[string]string, error) {
	out, err := slurmCommand(ctx, "squeue", "-h", "-r", "--name="+name, "-o", "%i %T")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if id, state, ok := strings.Cut(strings.TrimSpace(sc.Text()), " "); ok {
			m[id] = state
		}
	}
	return m, nil
}

// finalState returns how an array task that left the queue ended (COMPLETED, FAILED, CANCELLED, NODE_FAIL,
// TIMEOUT, OUT_OF_MEMORY…): from sacct when the cluster keeps accounting, else from scontrol while the
// controller still remembers the job; "UNKNOWN" when neither knows.
func finalState(ctx context.Context, task string) string {
	if out, err := slurmCommand(ctx, "sacct", "-n", "-X", "-P", "-j", task, "-o", "State"); err == nil {
		if f := strings.Fields(out); len(f) > 0 {
			return f[0]
		}
	}
	if out, err := slurmCommand(ctx, "scontrol", "-o", "show", "job", task); err == nil {
		for _, kv := range strings.Fields(out) {
			if v, ok := strings.CutPrefix(kv, "JobState="); ok {
				return v
			}
		}
	}
	return "UNKNOWN"
}

// scancel cancels the jobs (whole arrays or single tasks, "ID" or "ID_TASK").
func scancel(ctx context.Context, jobs ...string) error {
	if len(jobs) == 0 {
		return nil
	}
	_, err := slurmCommand(ctx, "scancel", jobs...)
	return err
}
