package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/sandbox"
)

// Run kinds recorded in the results store.
const (
	KindDev   = "dev"
	KindGrade = "grade"
	KindMini  = "mini"
)

// RunOptions tune a dev run, a grading or a mini task.
type RunOptions struct {
	// Home is the data directory; "" means data.Home().
	Home string
	// Limit runs only the first Limit stars (in id order) when positive.
	Limit int
	// Stars runs only these stars.
	Stars []string
	// Workers is the number of stars run at once; 0 means the number of CPUs.
	Workers int
	// AllowDegraded lets hidden sets run when the sandbox cannot isolate fully (SPEC A6).
	AllowDegraded bool
	// Again grades a frozen solution that was graded before (recorded as such).
	Again bool
	// Fresh starts a new dev run instead of resuming an interrupted one.
	Fresh bool
	// Limits are the per-star sandbox limits; zero fields take the defaults of SPEC A6.
	Limits sandbox.Limits
	// SetProgress reports the progress of building a data set the first time it is needed.
	SetProgress func(sets.Progress)
	// Compositions, when set, gives sets other than the standard compositions of SPEC A2 (small sets for
	// tests and quick demonstrations); a set already built with another composition is refused.
	Compositions map[string]sets.Composition
}

// setOptions are the options of opening set name.
func (o *RunOptions) setOptions(name string) sets.Options {
	so := sets.Options{Progress: o.SetProgress}
	if c, ok := o.Compositions[name]; ok {
		so.Composition = &c
	}
	return so
}

func (o *RunOptions) home() (string, error) {
	if o.Home != "" {
		return o.Home, nil
	}
	return data.Home()
}

// Event reports one finished star of a run, with the score so far.
type Event struct {
	Set     string             `json:"set"`
	RunID   int64              `json:"run_id"`
	Done    int                `json:"done"`
	Total   int                `json:"total"`
	Star    *grader.StarResult `json:"star,omitempty"`
	Exit    string             `json:"exit"`
	Runtime time.Duration      `json:"runtime_ns"`
	Summary grader.Summary     `json:"summary"`
}

// Failures counts the stars whose run gave no rows because of the solution (SPEC A5): timeouts, crashes (a
// non-zero exit, a signal, running out of memory, a failed start) and stdout over the limit.
type Failures struct {
	Timeout     int `json:"timeout"`
	Crash       int `json:"crash"`
	OutputLimit int `json:"output_limit"`
}

func (f *Failures) add(exit string) {
	switch exit {
	case sandbox.ExitTimeout:
		f.Timeout++
	case sandbox.ExitOutputLimit:
		f.OutputLimit++
	case sandbox.ExitCode, sandbox.ExitSignal, sandbox.ExitMemory, sandbox.ExitStartFailed:
		f.Crash++
	}
}

// Report is the result of running a solution over a set: `transitbench dev --json` prints it, and grading
// prints one per set. The score fields are grader.Summary's (S, C, F, eb_share, credit, false, planets,
// scored_stars and the breakdowns).
type Report struct {
	RunID    int64  `json:"run_id"`
	Set      string `json:"set"`
	StarsRun int    `json:"stars_run"`
	// Resumed counts the stars taken over from an interrupted run of the same solution.
	Resumed int `json:"resumed"`
	grader.Summary
	Failures  Failures `json:"failures"`
	Isolation string   `json:"isolation"`
	Seconds   float64  `json:"seconds"`
	Solution  string   `json:"solution_hash"`
	// Complete is false when the run was interrupted; the next run of the same solution resumes it.
	Complete bool `json:"complete"`
}

// storePath is the results database in the data directory.
func storePath(home string) string { return filepath.Join(home, "results.db") }

// OpenStore opens the results store of the data directory home.
func OpenStore(home string) (*store.Store, error) {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	return store.Open(storePath(home))
}

// starOutcome is what the store keeps of a star's run: the grader's result as the matches and the parsed rows.
func starOutcome(runID int64, res sandbox.Result, sr *grader.StarResult, rows []grader.Row, dropped []grader.DroppedLine) store.Outcome {
	rowsJSON, _ := json.Marshal(struct {
		Rows    []grader.Row         `json:"rows"`
		Dropped []grader.DroppedLine `json:"dropped,omitempty"`
	}{rows, dropped})
	matches, _ := json.Marshal(sr)
	return store.Outcome{
		RunID: runID, StarID: res.StarID, Status: sr.Outcome(), Credit: sr.Credit, False: sr.False,
		RuntimeMS: res.Runtime.Milliseconds(), ExitReason: res.ExitReason, StderrTail: res.StderrTail,
		Isolation: res.Isolation, Rows: rowsJSON, Matches: matches,
	}
}

// StarResultOf decodes the grader's result of a stored outcome.
func StarResultOf(o store.Outcome) (grader.StarResult, error) {
	var sr grader.StarResult
	if len(o.Matches) == 0 {
		return sr, fmt.Errorf("workspace: outcome of %s in run %d has no match result", o.StarID, o.RunID)
	}
	err := json.Unmarshal(o.Matches, &sr)
	return sr, err
}

// runner holds what one run over one set needs.
type runner struct {
	st       *store.Store
	set      *sets.Set
	sol      *sandbox.Solution
	opt      RunOptions
	runID    int64
	results  map[string]grader.StarResult
	failures Failures
	iso      string
}

// scoreStar turns a sandbox result into the grader's result for the star: rows are parsed only from a run
// that exited normally (SPEC A5: a non-zero exit, a timeout, a signal or too much stdout gives no rows).
func (r *runner) scoreStar(res sandbox.Result) (grader.StarResult, []grader.Row, []grader.DroppedLine, error) {
	ans, ok := r.set.Answers[res.StarID]
	if !ok {
		return grader.StarResult{}, nil, nil, fmt.Errorf("workspace: star %s is not in set %s", res.StarID, r.set.Name)
	}
	var rows []grader.Row
	var dropped []grader.DroppedLine
	if res.ExitReason == sandbox.ExitOK {
		rows, dropped = grader.ParseRows(bytes.NewReader(res.Stdout))
	}
	valid, err := r.set.ValidTimes(res.StarID)
	if err != nil {
		return grader.StarResult{}, nil, nil, err
	}
	return grader.MatchStar(ans, valid, rows), rows, dropped, nil
}

// summary scores the stars finished so far.
func (r *runner) summary() grader.Summary {
	ids := make([]string, 0, len(r.results))
	for id := range r.results {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	all := make([]grader.StarResult, len(ids))
	for i, id := range ids {
		all[i] = r.results[id]
	}
	return grader.Summarize(all)
}

// run runs the solution on ids, skipping those already in r.results, storing each outcome as it arrives and
// sending an event per star. It returns ctx.Err() when cancelled; finished stars are kept.
func (r *runner) run(ctx context.Context, ids []string, events chan<- Event) error {
	var jobs []sandbox.Job
	for _, id := range ids {
		if _, done := r.results[id]; done {
			continue
		}
		id := id
		jobs = append(jobs, sandbox.Job{StarID: id, Prepare: func(dir string) error { return r.set.WriteStarDir(id, dir) }})
	}
	// The data directory holds every set's answers and the secret seed: the sandbox masks data.Home() itself,
	// and a run on another data directory (RunOptions.Home) masks that one too.
	limits := r.opt.Limits
	if home, err := r.opt.home(); err == nil {
		limits.Mask = append(slices.Clone(limits.Mask), home)
	}
	sr := &sandbox.Runner{Workers: r.opt.Workers, Limits: limits, AllowDegraded: r.opt.AllowDegraded, Hidden: r.set.Hidden()}
	results := make(chan sandbox.Result)
	errc := make(chan error, 1)
	go func() { errc <- sr.Run(ctx, r.sol, jobs, results) }()
	var firstErr error
	for {
		select {
		case res := <-results:
			if res.ExitReason == sandbox.ExitCancelled {
				continue // not finished: a resumed run runs it again
			}
			r.iso = res.Isolation
			star, rows, dropped, err := r.scoreStar(res)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if err := r.st.PutOutcome(context.WithoutCancel(ctx), starOutcome(r.runID, res, &star, rows, dropped)); err != nil && firstErr == nil {
				firstErr = err
			}
			r.results[res.StarID] = star
			r.failures.add(res.ExitReason)
			if events != nil {
				s := star
				events <- Event{Set: r.set.Name, RunID: r.runID, Done: len(r.results), Total: len(ids), Star: &s,
					Exit: res.ExitReason, Runtime: res.Runtime, Summary: r.summary()}
			}
		case err := <-errc:
			if firstErr != nil {
				return firstErr
			}
			return err
		}
	}
}

// selectStars applies RunOptions.Stars and Limit to the ids of a set.
func selectStars(all []string, opt RunOptions) ([]string, error) {
	ids := slices.Clone(all)
	if len(opt.Stars) > 0 {
		known := make(map[string]bool, len(all))
		for _, id := range all {
			known[id] = true
		}
		var unknown []string
		for _, id := range opt.Stars {
			if !known[id] {
				unknown = append(unknown, id)
			}
		}
		if len(unknown) > 0 {
			return nil, fmt.Errorf("workspace: unknown stars %s: see the ids in data/dev", strings.Join(unknown, ", "))
		}
		ids = slices.Clone(opt.Stars)
	}
	if opt.Limit > 0 && opt.Limit < len(ids) {
		ids = ids[:opt.Limit]
	}
	return ids, nil
}

// runSet runs sol on ids of set as a run of kind, resuming the given run when resume > 0.
func runSet(ctx context.Context, st *store.Store, set *sets.Set, sol *sandbox.Solution, ids []string, kind, label, hash string,
	flags []string, resume int64, opt RunOptions, events chan<- Event) (*Report, error) {
	start := time.Now()
	r := &runner{st: st, set: set, sol: sol, opt: opt, results: map[string]grader.StarResult{}, iso: sandbox.Probe().String()}
	if resume > 0 {
		outs, err := st.Outcomes(ctx, resume)
		if err != nil {
			return nil, err
		}
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		for _, o := range outs {
			if !want[o.StarID] {
				continue
			}
			if sr, err := StarResultOf(o); err == nil {
				r.results[o.StarID] = sr
				r.failures.add(o.ExitReason)
			}
		}
		if err := st.ResumeRun(ctx, resume); err != nil {
			return nil, err
		}
		r.runID = resume
	} else {
		id, err := st.CreateRun(ctx, store.Run{Kind: kind, Set: set.Name, Label: label, SolutionHash: hash,
			Isolation: r.iso, Stars: len(ids), Flags: flags})
		if err != nil {
			return nil, err
		}
		r.runID = id
	}
	resumed := len(r.results)
	runErr := r.run(ctx, ids, events)
	rep := &Report{RunID: r.runID, Set: set.Name, StarsRun: len(r.results), Resumed: resumed, Summary: r.summary(),
		Failures: r.failures, Isolation: r.iso, Seconds: time.Since(start).Seconds(), Solution: hash,
		Complete: runErr == nil && len(r.results) == len(ids)}
	status := "done"
	switch {
	case errors.Is(runErr, context.Canceled), errors.Is(runErr, context.DeadlineExceeded):
		status = "cancelled"
	case runErr != nil:
		status = "failed"
	}
	summary, _ := json.Marshal(rep)
	if err := st.FinishRun(context.WithoutCancel(ctx), r.runID, status, summary); err != nil && runErr == nil {
		runErr = err
	}
	return rep, runErr
}
