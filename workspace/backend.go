package workspace

import (
	"context"

	"transitbench/data/sets"
	"transitbench/sandbox"
)

// Backend runs a run's stars somewhere and hands back each finished star's sandbox.Result, exactly as the
// sandbox gave it: the caller (runSet) alone parses, matches, scores and stores them, so every backend scores
// the same way. Local runs the stars on this machine; workspace/slurm runs them as a Slurm job array.
type Backend interface {
	// Run runs job's stars and sends one Result per finished star on results, in any order, until every
	// star is delivered or ctx is cancelled (then it returns ctx.Err(); stars not delivered, or delivered
	// with ExitReason "cancelled", run again on resume). The caller keeps receiving until Run returns.
	Run(ctx context.Context, job BackendJob, results chan<- sandbox.Result) error
}

// BackendJob is one run's work: the stars of Set still to run, the solution, and the sandbox runner as the run
// configured it (workers, per-star limits with the masked paths, the data directory, whether the set is hidden).
type BackendJob struct {
	RunID    int64
	Set      *sets.Set
	Solution *sandbox.Solution
	// SolutionHash is the solution's content hash.
	SolutionHash string
	Stars        []string
	// Aliases, when set, gives each star the id its star.json carries instead of its own (SPEC A1: on a
	// hidden set, a per-run random id; see AnonymousIDs). The results keep the stars' own ids.
	Aliases map[string]string
	Runner  sandbox.Runner
}

// Jobs returns the sandbox's jobs of job's stars: each star's directory written from the set, under its alias
// when job.Aliases gives one.
func (job BackendJob) Jobs() []sandbox.Job {
	jobs := make([]sandbox.Job, 0, len(job.Stars))
	for _, id := range job.Stars {
		prepare := func(dir string) error { return job.Set.WriteStarDir(id, dir) }
		if alias, ok := job.Aliases[id]; ok {
			prepare = func(dir string) error { return job.Set.WriteStarDirAs(id, alias, dir) }
		}
		jobs = append(jobs, sandbox.Job{StarID: id, Prepare: prepare})
	}
	return jobs
}

// Local is the backend of this machine: the stars run in the sandbox here, Runner.Workers at a time.
type Local struct{}

// Run runs the stars with job.Runner.
func (Local) Run(ctx context.Context, job BackendJob, results chan<- sandbox.Result) error {
	r := job.Runner
	return r.Run(ctx, job.Solution, job.Jobs(), results)
}
