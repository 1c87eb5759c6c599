package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"transitbench/sandbox"
	"transitbench/workspace"
)

// takeOverWait is how long takeOver waits for the tasks of a killed controller to leave the queue.
const takeOverWait = 2 * time.Minute

// takeOver takes over what a controller of the same run left in dir when it was killed (SIGKILL, a lost login
// node): it cancels that controller's tasks and waits until they have left the queue (they may still be
// appending), then delivers on results every star of job.Stars that their result files hold, when the work
// list is the same run's (the set and its fingerprint, the solution, the limits). Those stars finished and are
// not run again. It returns the stars still to run, in job.Stars' order.
func (b *Backend) takeOver(ctx context.Context, dir string, job workspace.BackendJob, results chan<- sandbox.Result) ([]string, error) {
	if ids, err := os.ReadFile(filepath.Join(dir, jobsFile)); err == nil {
		jobs := strings.Fields(string(ids))
		if err := scancel(ctx, jobs...); err != nil {
			b.log("%v", err)
		}
		if !waitGone(ctx, jobs, takeOverWait) {
			b.log("slurm: the tasks of an earlier controller of run %d (job %s) are still queued after %v: "+
				"taking their results so far", job.RunID, strings.Join(jobs, ", "), takeOverWait)
		}
	}
	wl, err := readWorkList(workPath(dir))
	if err != nil {
		return job.Stars, nil // nothing to take over, or nothing readable: the stars run again
	}
	if !sameRun(wl, job) {
		b.log("slurm: run %d's directory holds another solution's or set's work: running its stars again", job.RunID)
		return job.Stars, nil
	}
	files, err := resultFiles(dir)
	if err != nil {
		return nil, err
	}
	todo := make(map[string]bool, len(job.Stars))
	for _, id := range job.Stars {
		todo[id] = true
	}
	taken := 0
	for _, i := range slices.Sorted(maps.Keys(files)) {
		for _, path := range files[i] {
			t := tailReader{path: path}
			rs, err := t.next()
			if err != nil {
				b.log("%v: its stars run again", err)
				continue
			}
			for _, r := range rs {
				if !todo[r.StarID] || r.ExitReason == sandbox.ExitCancelled {
					continue
				}
				if wl.Hidden {
					r.StderrTail = ""
				}
				results <- r
				delete(todo, r.StarID)
				taken++
			}
		}
	}
	if taken > 0 {
		b.log("slurm: took %d finished stars from the result files of an earlier controller of run %d", taken, job.RunID)
	}
	var left []string
	for _, id := range job.Stars {
		if todo[id] {
			left = append(left, id)
		}
	}
	return left, nil
}

// sameRun reports whether the work list wl was written for job's run as it is now: the same set and
// fingerprint, solution, limits and degraded policy (the stars, chunks and aliases may differ).
func sameRun(wl *WorkList, job workspace.BackendJob) bool {
	a, err1 := json.Marshal(wl.Limits)
	b, err2 := json.Marshal(job.Runner.Limits)
	return err1 == nil && err2 == nil && bytes.Equal(a, b) && wl.Set == job.Set.Name &&
		wl.Fingerprint == job.Set.Fingerprint && wl.SolutionHash == job.SolutionHash &&
		wl.Hidden == job.Set.Hidden() && wl.AllowDegraded == job.Runner.AllowDegraded
}

// waitGone waits until no task of the jobs is in the queue, at most wait; it reports whether they left.
func waitGone(ctx context.Context, jobs []string, wait time.Duration) bool {
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		out, err := slurmCommand(ctx, "squeue", "-h", "-r", "-o", "%i")
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			continue
		}
		if !anyOf(strings.Fields(out), jobs) {
			return true
		}
	}
	return false
}

// anyOf reports whether one of the queued ids ("JOBID" or "JOBID_TASK") belongs to one of the jobs.
func anyOf(queued, jobs []string) bool {
	for _, q := range queued {
		id, _, _ := strings.Cut(q, "_")
		if slices.Contains(jobs, id) {
			return true
		}
	}
	return false
}
