package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/bls"
	"transitbench/engine/lc"
	"transitbench/engine/rv"
	"transitbench/grader"
	"transitbench/grader/rvgate"
	"transitbench/sandbox"
	"transitbench/workspace"
	"transitbench/workspace/chart"
	"transitbench/workspace/quicklook"
)

// Backend is everything the screens need from the rest of the program. The real one (Real) works over the
// data sets, the engine, the grader and the workspace; tests use a fake. Every method may take long: the
// screens call them only from tea.Cmds.
type Backend interface {
	// Stars lists the labelled dev stars with what the browser shows, in id order.
	Stars(ctx context.Context) ([]StarMeta, error)
	// LoadStar loads a star and runs the star view's analysis: detrending and the BLS search. A star of a
	// hidden set is never loaded (workspace.ErrHiddenStar).
	LoadStar(ctx context.Context, id string) (*StarData, error)
	// Prefetch prepares LoadStar of a star the user is likely to open next (the next one in the list), so
	// that it opens at once; it may do nothing.
	Prefetch(ctx context.Context, id string)
	// Dev runs the solution on the dev stars, sending an event per finished star; it returns when the run
	// ends, was cancelled through ctx or failed. It does not close events.
	Dev(ctx context.Context, events chan<- RunEvent) (*grader.Summary, error)
	// GradeInfo says what grading would freeze and whether that hash was graded before.
	GradeInfo(ctx context.Context) (GradeInfo, error)
	// Grade freezes the solution and grades it on A, B and dev, sending an event per finished star (on A and
	// B only the count of stars done: no star, outcome or running score). again must be set to grade a hash
	// that was graded before.
	Grade(ctx context.Context, again bool, events chan<- RunEvent) (*GradeResult, error)

	// RVTasks lists the RV tasks (SPEC B1) with what the RV browser shows, by tier, then difficulty.
	RVTasks(ctx context.Context) ([]RVTaskMeta, error)
	// LoadRVTask returns what the RV task view shows of a task: its data, never its truth. With start it starts
	// the task's clock against the tier's time budget unless it started before; without, a task not started is
	// refused (rvtrack.ErrNotStarted) and nothing changes.
	LoadRVTask(ctx context.Context, id string, start bool) (*RVTask, error)
	// FitRV refines init on the task's data (rv.Fit with a jitter), or searches from scratch when init is empty
	// (rv.SearchGP).
	FitRV(ctx context.Context, id string, init []rv.Planet) (*RVFit, error)
	// SubmitRV grades planets against the task's truth and records the submission in the ledger of the data
	// directory; it fails (rvtrack.ErrBudgetSpent) when the task has no submission left.
	SubmitRV(ctx context.Context, id string, planets []rv.Planet, jitterMS float64) (rvgate.Feedback, error)

	// AgentSessions lists the sessions of the agent server (`transitbench mcp`) recorded in the results store,
	// newest first, each with its spend and its tool calls in order.
	AgentSessions(ctx context.Context) ([]AgentSession, error)

	// Export writes the file name into the workspace's exports folder through write (the star view's CSV
	// exports) and returns its path.
	Export(ctx context.Context, name string, write func(io.Writer) error) (string, error)
}

// StarMeta is one row of the star browser.
type StarMeta struct {
	ID         string
	Category   string // injected | untouched | eb | confirmed
	Population string // random | false_alarm, "" for EBs and confirmed hosts
	Scored     bool
	MES        float64 // the MES of the star's planet (quicklook.PlanetMES), 0 when it has none
	Kepmag     float64
	CDPP6      float64 // CDPP at 6 h, ppm
	Outcome    string  // the last run's outcome (grader.StarResult.Outcome), "" when the star has not been run
}

// StarData is a loaded star: its analysis (workspace/quicklook: the light curve, the detrended flux and the BLS
// search), the truth, and the last run's result on it.
type StarData struct {
	Meta StarMeta
	Star *data.Star
	// Time, Raw, Flat and Flagged are quicklook.Analysis's: one entry per cadence, the flux detrended by
	// engine/detrend and NaN where the cadence is not valid (Flagged, or a NaN flux).
	Time, Raw, Flat []float64
	Flagged         []bool
	// RawRange and FlatRange are the light-curve panel's y ranges (chart.RobustRange of Raw and Flat).
	RawRange, FlatRange [2]float64
	// Periods and Power are the BLS periodogram (SNR objective) on the valid cadences; Peaks its strongest
	// distinct peaks, strongest first (quicklook.Analysis's).
	Periods, Power []float64
	Peaks          []bls.Peak
	// Err is the flux error the search weighted each cadence by (quicklook.Analysis's), for the search after
	// masking; WindowDays the detrending window of Flat.
	Err        []float64
	WindowDays float64
	// Curve is the light curve analysed, for an analysis again with another detrending window (redetrend).
	Curve *lc.LightCurve
	// Next is what the star view's "next planet after masking" found (quicklook.Planets: the strongest signal
	// masked, then the next), nil until asked for.
	Next []quicklook.Planet
	// Typed is the ephemeris typed into the star view (f: fold at P, t0), nil until one is.
	Typed  *quicklook.Ephemeris
	Answer *data.Answer       // nil when the star is not labelled
	Result *grader.StarResult // the last run's result on the star, nil when it has not been run
}

// RunEvent is one finished star of a dev run or a grading, with the running score; on a hidden set only Set,
// Done and Total are filled.
type RunEvent struct {
	Set         string
	Done, Total int
	Star        *grader.StarResult
	Exit        string
	Summary     grader.Summary
	// Phase, when not empty, says what the run does before its next star finishes (workspace.PhaseBuild: the
	// solution is being built); such an event has no star and no score.
	Phase string
}

// GradeInfo describes the grading a confirmation would start.
type GradeInfo struct {
	Hash     string   // content hash of the solution as it would be frozen
	GradedOn []string // the sets this hash was already graded on
	// Degraded describes what the sandbox cannot enforce here when it cannot isolate fully and degraded grading
	// was not allowed: grading the hidden sets would be refused. "" otherwise.
	Degraded string
	// Grading is the number the grading would have among the workspace's gradings; Resumes is set when it
	// would resume an interrupted grading of this hash (which keeps its number).
	Grading int
	Resumes bool
}

// GradeResult is S on A (the score), B (replication) and dev for the frozen hash: aggregates only. Grading is
// the grading's ordinal among the workspace's gradings; Withheld lists the hidden sets whose run is not
// complete, whose score is therefore not shown (their Summary is empty).
type GradeResult struct {
	Hash        string
	Again       bool
	Grading     int
	A, B, Dev   grader.Summary
	Withheld    []string
	Interrupted bool
}

// AnalyseStar is quicklook.Analyse in the star view's form: the analysis of a light curve with the light-curve
// panel's y ranges, on up to workers goroutines. Meta, Answer and Result are left for the caller.
func AnalyseStar(c *lc.LightCurve, star *data.Star, workers int) (*StarData, error) {
	return analyseStarWith(c, star, quicklook.PrepareOptions{}, workers)
}

// analyseStarWith is AnalyseStar with c prepared as opt says (quicklook.AnalyseWith).
func analyseStarWith(c *lc.LightCurve, star *data.Star, opt quicklook.PrepareOptions, workers int) (*StarData, error) {
	a, err := quicklook.AnalyseWith(c, star, opt, workers)
	if a == nil {
		return nil, err
	}
	d := starData(a)
	d.Curve = c
	return d, err
}

// redetrend is d analysed again with a detrending window of windowDays (quicklook.AnalyseWith: the flux
// detrended anew, searched and measured), on up to workers goroutines. What the analysis does not make (the
// star's list entry, truth, last result and typed ephemeris) is d's; the planets found after masking are not
// kept, since they were found on the other detrending.
func redetrend(d *StarData, windowDays float64, workers int) (*StarData, error) {
	if d.Curve == nil {
		return nil, errors.New("the light curve of the analysis was not kept")
	}
	out, err := analyseStarWith(d.Curve, d.Star, quicklook.PrepareOptions{WindowDays: windowDays}, workers)
	if out == nil {
		return nil, err
	}
	out.Meta, out.Answer, out.Result, out.Typed = d.Meta, d.Answer, d.Result, d.Typed
	return out, err
}

// starData wraps an analysis for the screens, with the light-curve panel's y ranges.
func starData(a *quicklook.Analysis) *StarData {
	d := &StarData{Star: a.Star, Time: a.Time, Raw: a.Raw, Flat: a.Flat, Flagged: a.Flagged,
		Periods: a.Periods, Power: a.Power, Peaks: a.Peaks, Err: a.Err, WindowDays: a.WindowDays}
	d.RawRange[0], d.RawRange[1] = chart.RobustRange(d.Raw)
	d.FlatRange[0], d.FlatRange[1] = chart.RobustRange(d.Flat)
	return d
}

// analysis is the quicklook view of d, for its folds: the planets found after masking (Next), when searched,
// are the other signals every fold masks.
func (d *StarData) analysis() *quicklook.Analysis {
	a := &quicklook.Analysis{Star: d.Star, Time: d.Time, Raw: d.Raw, Flat: d.Flat, Flagged: d.Flagged,
		Periods: d.Periods, Power: d.Power, Peaks: d.Peaks, Err: d.Err, WindowDays: d.WindowDays}
	return a.WithPlanets(d.Next)
}

// Real is the Backend over the real packages: the dev set of the data directory, the engine, and the
// workspace (with its results store) when there is one.
type Real struct {
	Home string
	WS   *workspace.Workspace
	Set  *sets.Set
	// AllowDegraded lets grading run the hidden sets when the sandbox cannot isolate fully (SPEC A6).
	AllowDegraded bool
	// RVDir is the folder of RV tasks; "" finds the published one (stargazer.LocateDir).
	RVDir string
	// Compositions, when set, are the sets' compositions for dev runs and gradings when they are not SPEC
	// A2's (small sets for tests), as workspace.RunOptions.Compositions.
	Compositions map[string]sets.Composition

	rv       rvStore
	mu       sync.Mutex
	cache    []*StarData              // the last analysed stars, most recent last
	inflight map[string]chan struct{} // stars being analysed, closed when done
}

// analysisCache is how many analysed stars Real keeps, so that going back to a star is instant.
const analysisCache = 8

// OpenOptions say where the real backend finds its data and workspace.
type OpenOptions struct {
	Home          string // the data directory; "" means data.Home()
	Workspace     string // the workspace; "" means <home>/workspace, created when missing
	AllowDegraded bool   // see Real.AllowDegraded
}

// Progress is a step of opening the backend (building the dev set, writing the workspace).
type Progress struct {
	Step        string
	Done, Total int
}

// OpenReal opens the data directory and the workspace, creating the workspace (and building the dev set) on
// first use; progress, when not nil, is called as the build advances.
func OpenReal(ctx context.Context, opt OpenOptions, progress func(Progress)) (*Real, error) {
	home := opt.Home
	if home == "" {
		h, err := data.Home()
		if err != nil {
			return nil, err
		}
		home = h
	}
	report := func(p Progress) {
		if progress != nil {
			progress(p)
		}
	}
	dir := opt.Workspace
	if dir == "" {
		dir = filepath.Join(home, "workspace")
	}
	ws, err := workspace.Open(dir)
	if errors.Is(err, workspace.ErrNotWorkspace) && opt.Workspace == "" {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return nil, err
		}
		ws, err = workspace.Init(dir, workspace.InitOptions{
			Home:         home,
			SetProgress:  func(p sets.Progress) { report(Progress{Step: "building the dev set", Done: p.Done, Total: p.Total}) },
			StarProgress: func(done, total int) { report(Progress{Step: "writing the workspace", Done: done, Total: total}) },
		})
	}
	if err != nil {
		return nil, err
	}
	setName := ws.Config.DevSet
	if setName == "" || setName != sets.Dev {
		setName = sets.Dev // mini workspaces show their pool, the dev set
	}
	set, err := sets.Open(home, setName, sets.Options{
		Context:     ctx,
		Composition: ws.Config.DevComposition,
		Progress:    func(p sets.Progress) { report(Progress{Step: "opening the dev set", Done: p.Done, Total: p.Total}) },
	})
	if err != nil {
		return nil, err
	}
	return &Real{Home: home, WS: ws, Set: set, AllowDegraded: opt.AllowDegraded}, nil
}

// lastOutcomes returns the latest run's results on the dev set by star id (empty when none).
func (r *Real) lastOutcomes(ctx context.Context) map[string]grader.StarResult {
	res, _, err := r.WS.LastOutcomes(ctx, r.Home, r.Set.Name)
	if err != nil || res == nil {
		return map[string]grader.StarResult{}
	}
	return res
}

// Stars implements Backend.
func (r *Real) Stars(ctx context.Context) ([]StarMeta, error) {
	last := r.lastOutcomes(ctx)
	ids := r.WS.Config.DevStars
	if len(ids) == 0 {
		ids = r.Set.IDs
	}
	out := make([]StarMeta, 0, len(ids))
	for _, id := range ids {
		m, err := r.meta(id)
		if err != nil {
			return nil, err
		}
		if res, ok := last[id]; ok {
			m.Outcome = res.Outcome()
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (r *Real) meta(id string) (StarMeta, error) {
	info, err := r.Set.Info(id)
	if err != nil {
		return StarMeta{}, err
	}
	m := StarMeta{ID: id, Kepmag: info.Star.Kepmag, CDPP6: info.Star.CDPPppm["6.0"]}
	if a, ok := r.Set.Answers[id]; ok {
		m.Category, m.Population, m.Scored = a.Category, a.Population, a.Scored
		m.MES = quicklook.PlanetMES(&a)
	}
	return m, nil
}

// LoadStar implements Backend. The analysis of the last few stars is cached; the last run's result is read
// afresh every time.
func (r *Real) LoadStar(ctx context.Context, id string) (*StarData, error) {
	if workspace.IsHiddenStar(id) {
		return nil, fmt.Errorf("star %s: %w", id, workspace.ErrHiddenStar)
	}
	m, err := r.meta(id)
	if err != nil {
		return nil, err
	}
	d, err := r.analysed(ctx, id)
	if err != nil {
		return nil, err
	}
	out := *d
	out.Meta = m
	if a, ok := r.Set.Answers[id]; ok {
		out.Answer = &a
	}
	if res, ok := r.lastOutcomes(ctx)[id]; ok {
		out.Result = &res
		out.Meta.Outcome = res.Outcome()
	}
	return &out, nil
}

// Prefetch implements Backend: it analyses the star into the cache.
func (r *Real) Prefetch(ctx context.Context, id string) {
	if workspace.IsHiddenStar(id) {
		return
	}
	_, _ = r.analysed(ctx, id)
}

// analysed returns the analysis of star id from the cache, or makes it. A star being analysed for one caller
// (a prefetch, say) is waited for rather than analysed twice.
func (r *Real) analysed(ctx context.Context, id string) (*StarData, error) {
	for {
		r.mu.Lock()
		for _, d := range r.cache {
			if d.Meta.ID == id {
				r.mu.Unlock()
				return d, nil
			}
		}
		if wait, ok := r.inflight[id]; ok {
			r.mu.Unlock()
			select {
			case <-wait:
				continue // cached now, or failed: then try ourselves
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if r.inflight == nil {
			r.inflight = map[string]chan struct{}{}
		}
		done := make(chan struct{})
		r.inflight[id] = done
		r.mu.Unlock()

		d, err := r.analyse(ctx, id)
		r.mu.Lock()
		delete(r.inflight, id)
		close(done)
		if err == nil {
			r.cache = append(r.cache, d)
			if len(r.cache) > analysisCache {
				r.cache = r.cache[1:]
			}
		}
		r.mu.Unlock()
		return d, err
	}
}

func (r *Real) analyse(ctx context.Context, id string) (*StarData, error) {
	c, star, err := r.Set.Star(id)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := AnalyseStar(c, star, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	d.Meta.ID = id
	return d, nil
}

// Export implements Backend: the file goes into the workspace's exports folder (workspace.WriteExport).
func (r *Real) Export(ctx context.Context, name string, write func(io.Writer) error) (string, error) {
	return r.WS.WriteExport(name, write)
}

// forward copies the workspace's events to the screens' events until in is closed.
func forward(in <-chan workspace.Event, out chan<- RunEvent) {
	for e := range in {
		out <- RunEvent{Set: e.Set, Done: e.Done, Total: e.Total, Star: e.Star, Exit: e.Exit, Summary: e.Summary, Phase: e.Phase}
	}
}

// Dev implements Backend.
func (r *Real) Dev(ctx context.Context, events chan<- RunEvent) (*grader.Summary, error) {
	in := make(chan workspace.Event, 16)
	done := make(chan struct{})
	go func() { forward(in, events); close(done) }()
	rep, err := r.WS.Dev(ctx, workspace.RunOptions{Home: r.Home, Compositions: r.Compositions, Phases: true}, in)
	close(in)
	<-done
	if rep == nil {
		return nil, err
	}
	return &rep.Summary, err
}

// GradeInfo implements Backend.
func (r *Real) GradeInfo(ctx context.Context) (GradeInfo, error) {
	hash, _, err := workspace.HashTree(r.WS.SolutionDir())
	if err != nil {
		return GradeInfo{}, err
	}
	info := GradeInfo{Hash: hash}
	if iso := sandbox.Probe(); !iso.Full() && !r.AllowDegraded {
		info.Degraded = iso.String()
	}
	if info.Grading, info.Resumes, err = r.WS.NextGrading(ctx, r.Home); err != nil {
		return info, err
	}
	st, err := workspace.OpenStore(r.Home)
	if err != nil {
		return info, err
	}
	defer st.Close()
	if snap, err := st.Snapshot(ctx, hash); err == nil {
		for _, g := range snap.Graded {
			if !contains(info.GradedOn, g.Set) {
				info.GradedOn = append(info.GradedOn, g.Set)
			}
		}
	}
	return info, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Grade implements Backend.
func (r *Real) Grade(ctx context.Context, again bool, events chan<- RunEvent) (*GradeResult, error) {
	in := make(chan workspace.Event, 16)
	done := make(chan struct{})
	go func() { forward(in, events); close(done) }()
	rep, err := r.WS.Grade(ctx, workspace.RunOptions{Home: r.Home, Again: again, AllowDegraded: r.AllowDegraded,
		Compositions: r.Compositions, Phases: true}, in)
	close(in)
	<-done
	if rep == nil {
		return nil, err
	}
	rep = rep.ForContestant() // A and B: S alone
	res := &GradeResult{Hash: rep.Frozen, Again: rep.Again, Grading: rep.Grading}
	for _, p := range []struct {
		r   *workspace.Report
		dst *grader.Summary
	}{{rep.A, &res.A}, {rep.B, &res.B}, {rep.Dev, &res.Dev}} {
		if p.r != nil {
			*p.dst = p.r.Summary
			if !p.r.Complete {
				res.Interrupted = true
			}
			if p.r.ScoreWithheld {
				res.Withheld = append(res.Withheld, p.r.Set)
			}
		}
	}
	return res, err
}
