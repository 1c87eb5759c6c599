package workspace

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
	// Contestant is the label of the contestant whose frozen solution GradeFrozen grades (grade --frozen
	// --label): the grading counts among that contestant's, capped at MaxGradings (0: DefaultMaxGradings;
	// negative: no cap).
	Contestant  string
	MaxGradings int
	// Fresh starts a new dev run instead of resuming an interrupted one.
	Fresh bool
	// Phases asks for an Event with Phase set before the stars run (the terminal UI says the solution is
	// being built); without it every Event is a finished star, as the progress printers expect.
	Phases bool
	// Limits are the per-star sandbox limits; zero fields take the defaults of SPEC A6.
	Limits sandbox.Limits
	// SetProgress reports the progress of building a data set the first time it is needed.
	SetProgress func(sets.Progress)
	// Backend runs the stars: nil is Local, this machine's sandbox; workspace/slurm's runs them on a cluster.
	Backend Backend
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

// Event reports one finished star of a run, with the score so far. On a hidden set it says only how many
// stars are done: Star, Exit, Runtime and Summary stay empty, since a score after each star would give away
// each star's truth by difference.
type Event struct {
	Set     string             `json:"set"`
	RunID   int64              `json:"run_id"`
	Done    int                `json:"done"`
	Total   int                `json:"total"`
	Star    *grader.StarResult `json:"star,omitempty"`
	Exit    string             `json:"exit"`
	Runtime time.Duration      `json:"runtime_ns"`
	Summary grader.Summary     `json:"summary"`
	// Phase, when not empty, is what the run is doing before its next star finishes (PhaseBuild); such an
	// event names no star, and is sent only when RunOptions.Phases is set.
	Phase string `json:"phase,omitempty"`
}

// PhaseBuild is the phase of a run while the solution is snapshotted (and a Go solution built), before its
// first star starts.
const PhaseBuild = "build"

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
// scored_stars and the breakdowns). Exits counts the stars by the sandbox's exit reason and Slowest lists the
// longest runtimes (seconds, longest first, at most SlowestShown, without star IDs). A report on a hidden set is
// all a run on it shows (SPEC A8): aggregates only, and no score at all until the run is complete
// (ScoreWithheld), since scores of partial runs would give away single stars' truth by difference.
type Report struct {
	RunID    int64  `json:"run_id"`
	Set      string `json:"set"`
	Hidden   bool   `json:"hidden"`
	StarsRun int    `json:"stars_run"`
	// Resumed counts the stars taken over from an interrupted run of the same solution.
	Resumed int `json:"resumed"`
	grader.Summary
	Failures      Failures       `json:"failures"`
	Exits         map[string]int `json:"exits"`
	Slowest       []float64      `json:"slowest_seconds"`
	ScoreWithheld bool           `json:"score_withheld,omitempty"`
	// Grading is the ordinal of the grading the run belongs to among its workspace's gradings (0: not a grading).
	Grading   int    `json:"grading,omitempty"`
	Isolation string `json:"isolation"`
	// Protections are the sandbox's hardening measures (SPEC A6) that every star of the run had: what the
	// machine allows, less any a star ran without.
	Protections sandbox.Protections `json:"protections"`
	Seconds     float64             `json:"seconds"`
	Solution    string              `json:"solution_hash"`
	// Complete is false when the run was interrupted; the next run of the same solution resumes it.
	Complete bool `json:"complete"`
	// Redacted marks a hidden set's report as the contestant sees it (ForContestant): S alone.
	Redacted bool `json:"redacted,omitempty"`
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

// SlowestShown is how many of a run's longest runtimes a Report lists.
const SlowestShown = 5

// hiddenState is what a run on a hidden set keeps of a finished star, sealed (store.PutHiddenOutcome), so
// that a resumed run takes the star over: its contribution to the aggregates (grader.Summarize's inputs, the
// planets reduced to their MES bin), its exit reason and runtime. Never its rows, output, ephemerides or MES.
type hiddenState struct {
	Scored     bool           `json:"scored"`
	Category   string         `json:"category"`
	Population string         `json:"population,omitempty"`
	Rows       int            `json:"rows"`
	Credit     float64        `json:"credit"`
	False      int            `json:"false"`
	CountedEB  bool           `json:"counted_eb,omitempty"`
	EBWithRows bool           `json:"eb_with_rows,omitempty"`
	Planets    []hiddenPlanet `json:"planets,omitempty"`
	Exit       string         `json:"exit"`
	RuntimeMS  int64          `json:"runtime_ms"`
}

// hiddenPlanet is a planet's MES bin (grader.MESBinIndex) and the credit it got.
type hiddenPlanet struct {
	Bin    int     `json:"bin"`
	Credit float64 `json:"credit"`
}

// binMES stands for each MES bin in a reduced result: a value inside the bin.
var binMES = [4]float64{grader.MESEdgeLow / 2, grader.MESEdgeLow, grader.MESEdgeHigh, grader.MESEdgeTop}

// reduce keeps of a star's result what the aggregates need.
func reduce(sr grader.StarResult, exit string, runtime time.Duration) hiddenState {
	h := hiddenState{Scored: sr.Scored, Category: sr.Category, Population: sr.Population, Rows: len(sr.Rows),
		Credit: sr.Credit, False: sr.False, CountedEB: sr.CountedEB, EBWithRows: sr.EBWithRows, Exit: exit,
		RuntimeMS: runtime.Milliseconds()}
	for _, p := range sr.Planets {
		h.Planets = append(h.Planets, hiddenPlanet{Bin: grader.MESBinIndex(p.MES), Credit: p.Credit})
	}
	return h
}

// result rebuilds a star result that grader.Summarize counts exactly as the star's real result: same
// category, population, counted rows, credits, false candidates and planets per MES bin; no ID, no ephemeris.
func (h hiddenState) result() grader.StarResult {
	sr := grader.StarResult{Scored: h.Scored, Category: h.Category, Population: h.Population, Credit: h.Credit,
		False: h.False, CountedEB: h.CountedEB, EBWithRows: h.EBWithRows, Rows: make([]grader.RowResult, h.Rows)}
	for _, p := range h.Planets {
		sr.Planets = append(sr.Planets, grader.PlanetResult{MES: binMES[min(max(p.Bin, 0), len(binMES)-1)], Credit: p.Credit})
	}
	return sr
}

// runner holds what one run over one set needs.
type runner struct {
	st       *store.Store
	set      *sets.Set
	sol      *sandbox.Solution
	opt      RunOptions
	hash     string
	runID    int64
	results  map[string]grader.StarResult
	runtimes map[string]time.Duration
	exits    map[string]int
	failures Failures
	iso      string
	prot     sandbox.Protections // what every star run so far had
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

// count adds a finished star's exit reason and runtime to the run's tallies.
func (r *runner) count(id, exit string, runtime time.Duration) {
	r.failures.add(exit)
	r.exits[exit]++
	r.runtimes[id] = runtime
}

// slowest returns the n longest runtimes in seconds (rounded to 0.1 s), longest first.
func (r *runner) slowest(n int) []float64 {
	all := make([]time.Duration, 0, len(r.runtimes))
	for _, d := range r.runtimes {
		all = append(all, d)
	}
	slices.SortFunc(all, func(a, b time.Duration) int { return cmp.Compare(b, a) })
	out := []float64{}
	for _, d := range all[:min(n, len(all))] {
		out = append(out, math.Round(d.Seconds()*10)/10)
	}
	return out
}

// keep stores a finished star's outcome: in full for a public set; for a hidden set only its sealed
// hiddenState, the rows, output and truth being dropped here.
func (r *runner) keep(ctx context.Context, res sandbox.Result, sr *grader.StarResult, rows []grader.Row, dropped []grader.DroppedLine) error {
	if !r.set.Hidden() {
		return r.st.PutOutcome(ctx, starOutcome(r.runID, res, sr, rows, dropped))
	}
	state, err := json.Marshal(reduce(*sr, res.ExitReason, res.Runtime))
	if err != nil {
		return err
	}
	return r.st.PutHiddenOutcome(ctx, r.runID, res.StarID, state)
}

// takeOver loads the finished stars of run id among ids into r, for a resumed run.
func (r *runner) takeOver(ctx context.Context, id int64, ids []string) error {
	if r.set.Hidden() {
		states, err := r.st.HiddenOutcomes(ctx, id, ids)
		if err != nil {
			return err
		}
		for star, b := range states {
			var h hiddenState
			if json.Unmarshal(b, &h) != nil {
				continue // run the star again
			}
			r.results[star] = h.result()
			r.count(star, h.Exit, time.Duration(h.RuntimeMS)*time.Millisecond)
		}
		return nil
	}
	outs, err := r.st.Outcomes(ctx, id)
	if err != nil {
		return err
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
			r.count(o.StarID, o.ExitReason, time.Duration(o.RuntimeMS)*time.Millisecond)
		}
	}
	return nil
}

// run runs the solution on ids, skipping those already in r.results, storing each outcome as it arrives and
// sending an event per star. It returns ctx.Err() when cancelled; finished stars are kept. The solution's
// stdout and stderr on a star of a hidden set go no further than this function.
func (r *runner) run(ctx context.Context, ids []string, events chan<- Event) error {
	var todo []string
	for _, id := range ids {
		if _, done := r.results[id]; !done {
			todo = append(todo, id)
		}
	}
	// The data directory holds every set's answers and the secret seed: the sandbox masks the run's
	// (Runner.Home), and a run on another data directory (RunOptions.Home) masks the default one too.
	home, err := r.opt.home()
	if err != nil {
		return err
	}
	limits := r.opt.Limits
	if def, err := data.Home(); err == nil && def != home {
		limits.Mask = append(slices.Clone(limits.Mask), def)
	}
	job := BackendJob{RunID: r.runID, Set: r.set, Solution: r.sol, SolutionHash: r.hash, Stars: todo,
		Runner: sandbox.Runner{Workers: r.opt.Workers, Limits: limits, AllowDegraded: r.opt.AllowDegraded, Hidden: r.set.Hidden(), Home: home}}
	if r.set.Hidden() {
		// SPEC A1: nothing the solution reads names the set or the star's place in it.
		job.Stars, job.Aliases = shuffled(todo), AnonymousIDs(todo)
	}
	backend := r.opt.Backend
	if backend == nil {
		backend = Local{}
	}
	if events != nil && r.opt.Phases {
		events <- Event{Set: r.set.Name, RunID: r.runID, Done: len(r.results), Total: len(ids), Phase: PhaseBuild}
	}
	results := make(chan sandbox.Result)
	errc := make(chan error, 1)
	go func() { errc <- backend.Run(ctx, job, results) }()
	var firstErr error
	for {
		select {
		case res := <-results:
			if res.ExitReason == sandbox.ExitCancelled {
				continue // not finished: a resumed run runs it again
			}
			r.iso = res.Isolation
			if res.ExitReason != sandbox.ExitStartFailed { // a star that never started needed no protection
				r.prot = r.prot.And(res.Protections)
			}
			star, rows, dropped, err := r.scoreStar(res)
			if r.set.Hidden() {
				res.Stdout, res.StderrTail = nil, ""
			}
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if err := r.keep(context.WithoutCancel(ctx), res, &star, rows, dropped); err != nil && firstErr == nil {
				firstErr = err
			}
			r.results[res.StarID] = star
			r.count(res.StarID, res.ExitReason, res.Runtime)
			if events != nil {
				ev := Event{Set: r.set.Name, RunID: r.runID, Done: len(r.results), Total: len(ids)}
				if !r.set.Hidden() {
					s := star
					ev.Star, ev.Exit, ev.Runtime, ev.Summary = &s, res.ExitReason, res.Runtime, r.summary()
				}
				events <- ev
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

// ErrRunBusy is returned when the run a command would resume, or the grading it would run, is in progress in
// another process; the error says which process.
var ErrRunBusy = errors.New("workspace: the run is in progress in another process")

// busyError says which process holds a run or a grading.
type busyError struct {
	what string // "run 12 is being resumed", "grading #2 of this workspace (run 7) is being run"
	pid  int
}

func (e *busyError) Error() string {
	by := "another process"
	if e.pid > 0 {
		by = fmt.Sprintf("PID %d", e.pid)
	}
	return fmt.Sprintf("%s by %s: wait for it to finish (or stop that process), then run this again", e.what, by)
}

func (e *busyError) Unwrap() error { return ErrRunBusy }

// lockDir holds the locks of runs and gradings in the data directory.
func lockDir(home string) string { return filepath.Join(home, "locks") }

func runLockPath(home string, id int64) string {
	return filepath.Join(lockDir(home), fmt.Sprintf("run-%d.lock", id))
}

// runSpec says what run runSet makes: its kind, label (the workspace, a baseline's name or a mini task),
// solution hash, flags and grading ordinal; find, when set, returns the run to resume (0: a new run).
type runSpec struct {
	kind, label, hash string
	lineage           string // a grade run's (store.Run.Lineage)
	workspace         string // the workspace's path (store.Run.Workspace; "" for a baseline)
	flags             []string
	grading           int
	find              func(ctx context.Context) (int64, error)
}

// claim picks the run for spec under the data directory's start lock: the run find returns, when its lock is
// free (another process holding it gives a busyError and changes nothing), or a new run. It returns the run's
// ID and the release of its lock, held until the run is finished; a resumed run's finished stars are in r.
func (r *runner) claim(ctx context.Context, home string, spec runSpec, ids []string) (release func(), err error) {
	unlock, err := data.LockFile(filepath.Join(lockDir(home), "start.lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	var resume int64
	if spec.find != nil {
		if resume, err = spec.find(ctx); err != nil {
			return nil, err
		}
	}
	if resume > 0 {
		release, pid, err := tryLockSettling(runLockPath(home, resume))
		if errors.Is(err, data.ErrLocked) {
			return nil, &busyError{what: fmt.Sprintf("run %d is being resumed", resume), pid: pid}
		}
		if err != nil {
			return nil, err
		}
		if err := r.takeOver(ctx, resume, ids); err != nil {
			release()
			return nil, err
		}
		if err := r.st.ResumeRun(ctx, resume); err != nil {
			release()
			return nil, err
		}
		r.runID = resume
		return release, nil
	}
	id, err := r.st.CreateRun(ctx, store.Run{Kind: spec.kind, Set: r.set.Name, Label: spec.label, SolutionHash: spec.hash,
		Isolation: r.iso, Stars: len(ids), Flags: spec.flags, Hidden: r.set.Hidden(), Grading: spec.grading, Lineage: spec.lineage,
		Workspace: spec.workspace, SolutionKind: string(r.sol.Kind)})
	if err != nil {
		return nil, err
	}
	release, _, err = data.TryLockFile(runLockPath(home, id))
	if err != nil {
		r.st.FinishRun(context.WithoutCancel(ctx), id, store.StatusFailed, nil)
		return nil, err
	}
	r.runID = id
	return release, nil
}

// runSet runs sol on ids of set as the run spec describes, resuming the run spec.find returns when there is
// one. A run is held by one process at a time (a lock per run in the data directory): a second process that
// would resume it gets ErrRunBusy and leaves the run alone.
func runSet(ctx context.Context, st *store.Store, set *sets.Set, sol *sandbox.Solution, ids []string, spec runSpec,
	opt RunOptions, events chan<- Event) (*Report, error) {
	start := time.Now()
	home, err := opt.home()
	if err != nil {
		return nil, err
	}
	r := &runner{st: st, set: set, sol: sol, opt: opt, hash: spec.hash, results: map[string]grader.StarResult{},
		runtimes: map[string]time.Duration{}, exits: map[string]int{}, iso: sandbox.Probe().String(),
		prot: sandbox.Probe().Protections()}
	release, err := r.claim(ctx, home, spec, ids)
	if err != nil {
		return nil, err
	}
	defer release()
	resumed := len(r.results)
	runErr := r.run(ctx, ids, events)
	rep := &Report{RunID: r.runID, Set: set.Name, Hidden: set.Hidden(), StarsRun: len(r.results), Resumed: resumed,
		Summary: r.summary(), Failures: r.failures, Exits: r.exits, Slowest: r.slowest(SlowestShown),
		Grading: spec.grading, Isolation: r.iso, Protections: r.prot, Seconds: time.Since(start).Seconds(), Solution: spec.hash,
		Complete: runErr == nil && len(r.results) == len(ids)}
	if rep.Hidden && !rep.Complete {
		rep.Summary, rep.ScoreWithheld = grader.Summary{}, true
	}
	status := store.StatusDone
	switch {
	case errors.Is(runErr, context.Canceled), errors.Is(runErr, context.DeadlineExceeded):
		status = store.StatusCancelled
	case runErr != nil:
		status = store.StatusFailed
	}
	summary, _ := json.Marshal(rep)
	if err := st.FinishRun(context.WithoutCancel(ctx), r.runID, status, summary); err != nil && runErr == nil {
		runErr = err
	}
	if status == store.StatusDone {
		os.Remove(runLockPath(home, r.runID)) // a done run is never resumed, so nobody waits on its lock
	}
	return rep, runErr
}

// ErrHiddenStar is the answer to a request to show a star of a hidden set (SPEC A8): its truth, its light curve
// and what a solution printed on it are never shown.
var ErrHiddenStar = errors.New("hidden stars are not shown")

// IsHiddenStar reports whether id names a star of a hidden set (A-0000, B-0999: the set's name, a dash and the
// index).
func IsHiddenStar(id string) bool {
	i := strings.LastIndexByte(id, '-')
	return i > 0 && sets.IsHidden(id[:i])
}
