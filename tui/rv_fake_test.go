package tui

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/rvtrack"
)

// rvFake is the fake backend's RV side: two tasks made from a known planet, a budget and a grading that passes
// a single planet within 1 % of the true period.
type rvFake struct {
	mu      sync.Mutex
	tasks   []RVTask
	truth   map[string]rv.Planet
	used    map[string]int
	passed  map[string]bool
	started map[string]time.Time // the tasks started, when
	fits    []string             // "fit:<id>:<n planets>" or "search:<id>"
	submits []string
}

// fakeRVPlanet is the planet of task rv-e-001.
var fakeRVPlanet = rv.Planet{PeriodDays: 12.3, KMS: 9, E: 0.1, OmegaRad: 1, M0Rad: 2}

// fakeRVData is n observations over span days of planet p, from two instruments with offsets 5 and −20 m/s,
// errors of 1.5 m/s and a deterministic noise of about 1 m/s.
func fakeRVData(p rv.Planet, n int, span float64) *rv.Data {
	times, rvs, sig, inst := make([]float64, n), make([]float64, n), make([]float64, n), make([]string, n)
	for i := range times {
		times[i] = 1000 + span*float64(i)/float64(n-1) + 0.3*math.Sin(float64(i)*7.7)
	}
	rv.ModelRV(rvs, times, times[0], []rv.Planet{p})
	for i := range rvs {
		off, name := 5.0, "inst_A"
		if i%3 == 2 {
			off, name = -20, "inst_B"
		}
		rvs[i] += off + math.Sin(float64(i)*12.9898)*1.2
		sig[i], inst[i] = 1.5, name
	}
	d, err := rv.NewData(times, rvs, sig, inst)
	if err != nil {
		panic(err)
	}
	return d
}

func newRVFake() *rvFake {
	f := &rvFake{truth: map[string]rv.Planet{}, used: map[string]int{}, passed: map[string]bool{}, started: map[string]time.Time{}}
	add := func(id, tier string, diff int, p rv.Planet, n int, span float64) {
		d := fakeRVData(p, n, span)
		b := stargazer.BudgetFor(tier)
		f.truth[id] = p
		f.tasks = append(f.tasks, RVTask{
			Meta: RVTaskMeta{ID: id, Tier: tier, Difficulty: diff, Points: d.Len(), Instruments: len(d.Instruments),
				SpanDays: d.Span(), Budget: b.Submissions, Left: b.Submissions},
			View: stargazer.View{TaskID: id, Tier: tier, Budget: b, MStarSun: 1, TRefDays: d.TRef, NObs: d.Len(),
				Instruments: d.Instruments, TimesDays: d.Times, RVsMS: d.RVs, SigmasMS: d.Sigmas},
			Data: d, MedianSigma: 1.5,
		})
	}
	add("rv-e-001", stargazer.TierEasy, 2, fakeRVPlanet, 60, 100)
	add("rv-h-001", stargazer.TierHard, 8, rv.Planet{PeriodDays: 41, KMS: 3, M0Rad: 1}, 50, 200)
	return f
}

var rvFakes sync.Map // *fakeBackend → *rvFake

// The driver of the tests runs each command as it comes; the task view's clock would tick (and wait a second)
// until its task expired. The tests send rvClockMsg themselves instead.
func init() { rvTick = func(string) tea.Cmd { return nil } }

func (f *fakeBackend) rv() *rvFake {
	v, _ := rvFakes.LoadOrStore(f, newRVFake())
	return v.(*rvFake)
}

func (r *rvFake) find(id string) (*RVTask, error) {
	for i := range r.tasks {
		if r.tasks[i].Meta.ID == id {
			t := r.tasks[i]
			t.Meta.Left, t.Meta.Passed = t.Meta.Budget-r.used[id], r.passed[id]
			secs := t.View.Budget.Seconds
			t.Meta.State = rvtrack.TaskState{State: rvtrack.StateNotStarted, Seconds: secs, SubmissionsLeft: t.Meta.Left}
			if at, ok := r.started[id]; ok {
				t.Meta.Deadline = at.Add(time.Duration(secs) * time.Second)
				t.Meta.State.State, t.Meta.State.Started, t.Meta.State.Deadline = rvtrack.StateRunning, at, t.Meta.Deadline
			}
			return &t, nil
		}
	}
	return nil, fmt.Errorf("no RV task %s", id)
}

func (f *fakeBackend) RVTasks(ctx context.Context) ([]RVTaskMeta, error) {
	r := f.rv()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []RVTaskMeta
	for _, t := range r.tasks {
		tt, _ := r.find(t.Meta.ID)
		out = append(out, tt.Meta)
	}
	return out, nil
}

// LoadRVTask starts the task at rvNow with start, and refuses a task not started without.
func (f *fakeBackend) LoadRVTask(ctx context.Context, id string, start bool) (*RVTask, error) {
	r := f.rv()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.started[id]; !ok {
		if !start {
			return nil, fmt.Errorf("%w: %s", rvtrack.ErrNotStarted, id)
		}
		r.started[id] = rvNow()
	}
	return r.find(id)
}

// FitRV refines init with the real least squares; a search returns the truth moved by 0.5 %.
func (f *fakeBackend) FitRV(ctx context.Context, id string, init []rv.Planet) (*RVFit, error) {
	r := f.rv()
	r.mu.Lock()
	t, err := r.find(id)
	truth := r.truth[id]
	if err == nil {
		if len(init) == 0 {
			r.fits = append(r.fits, "search:"+id)
		} else {
			r.fits = append(r.fits, fmt.Sprintf("fit:%s:%d", id, len(init)))
		}
	}
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if len(init) == 0 {
		p := truth
		p.PeriodDays *= 1.005
		return &RVFit{Planets: []rv.Planet{p}, JitterMS: 0.5}, nil
	}
	return rvtrack.FitData(t.Data, init)
}

func (f *fakeBackend) SubmitRV(ctx context.Context, id string, planets []rv.Planet, jitter float64) (rvgate.Feedback, error) {
	r := f.rv()
	r.mu.Lock()
	defer r.mu.Unlock()
	t, err := r.find(id)
	if err != nil {
		return rvgate.Feedback{}, err
	}
	if t.Meta.Left <= 0 {
		return rvgate.Feedback{}, fmt.Errorf("%w: %s", rvtrack.ErrBudgetSpent, id)
	}
	r.submits = append(r.submits, fmt.Sprintf("%s:%d", id, len(planets)))
	m := rvgate.Metrics(t.Data, planets, jitter, t.MedianSigma)
	okCount := len(planets) == 1
	okMatch := okCount && math.Abs(planets[0].PeriodDays/r.truth[id].PeriodDays-1) < 0.01
	passed := m.OKRMS && m.OKDeltaBIC && okMatch && okCount
	r.used[id]++
	r.passed[id] = r.passed[id] || passed
	return rvgate.Feedback{Task: id, Submission: r.used[id], SubmissionsLeft: t.Meta.Budget - r.used[id],
		OKRMS: m.OKRMS, OKDeltaBIC: m.OKDeltaBIC, OKMatch: &okMatch, OKCount: &okCount, Passed: &passed,
		RMSMS: m.RMSMS, MaxRMSMS: m.MaxRMSMS, DeltaBICPerPoint: m.DeltaBICPerPoint, TaskPassed: r.passed[id],
		BudgetStatus: rvgate.BudgetStatus{WithinBudget: true, SecondsLeft: float64(t.View.Budget.Seconds)}}, nil
}
