package tui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"transitbench/data"
	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/rvtrack"
)

// RVTaskMeta is one row of the RV task browser.
type RVTaskMeta struct {
	ID          string
	Tier        string // easy | medium | hard | real
	Difficulty  int    // the published difficulty score (1–10; as 'rv list' shows it)
	Points      int
	Instruments int
	SpanDays    float64
	Budget      int  // submissions allowed
	Left        int  // submissions left
	Passed      bool // a submission within budget passed
	// Deadline is when the task's time budget runs out: its clock starts when the contestant starts it (the
	// browser asks before opening a task not started) or at its first submission. Zero while not started.
	Deadline time.Time
	// State is where the task stood when it was read (rvtrack.Ledger.State): not started, running, expired,
	// passed, out of submissions, imported. Its seconds left are those of that moment; the screens count down
	// from Deadline.
	State rvtrack.TaskState
}

// RVTask is what the RV task view shows of a task: its contestant view (never the truth) and its series.
type RVTask struct {
	Meta        RVTaskMeta
	View        stargazer.View
	Data        *rv.Data
	MedianSigma float64
}

// RVFit is the outcome of an automatic fit (rvtrack.FitData).
type RVFit = rvtrack.AutoFit

// rvStore is the real backend's RV side: the published tasks, read on first use. The submission ledger is
// read and changed under its own lock (rvtrack.WithLedger), which also keeps this program apart from a CLI
// submitting on the same data directory.
type rvStore struct {
	once  sync.Once
	tasks []*stargazer.Task
	err   error
}

// rvTasks reads the task folder (stargazer.LocateDir with r.RVDir) and the imported tasks of the data
// directory's user task folder (stargazer.UserDir) once. Without a published folder the imported tasks alone
// are listed when there are any.
func (r *Real) rvTasks() ([]*stargazer.Task, error) {
	r.rv.once.Do(func() {
		dir, err := stargazer.LocateDir(r.RVDir)
		if err == nil {
			// A task file that does not load is left out; 'transitbench rv list' names it and says why.
			r.rv.tasks, _, err = stargazer.LoadDir(dir)
		}
		var user []*stargazer.Task
		home := r.Home
		if home == "" {
			home, _ = data.Home()
		}
		if home != "" {
			user, _ = stargazer.LoadUserDir(stargazer.UserDir(home))
		}
		if err != nil && len(user) == 0 {
			r.rv.err = err
			return
		}
		seen := map[string]bool{}
		for _, t := range r.rv.tasks {
			seen[t.TaskID] = true
		}
		for _, t := range user {
			if !seen[t.TaskID] { // an imported task with a published id is left out ('rv list' warns)
				r.rv.tasks = append(r.rv.tasks, t)
			}
		}
		stargazer.SortTasks(r.rv.tasks)
	})
	return r.rv.tasks, r.rv.err
}

func (r *Real) rvTask(id string) (*stargazer.Task, error) {
	tasks, err := r.rvTasks()
	if err != nil {
		return nil, err
	}
	return stargazer.Find(tasks, id)
}

// withLedger runs fn on the submission ledger of the data directory, locked against every other user.
func (r *Real) withLedger(fn func(*rvtrack.Ledger) error) error {
	return rvtrack.WithLedger(rvtrack.LedgerPath(r.Home), fn)
}

func rvMeta(t *stargazer.Task, l *rvtrack.Ledger) RVTaskMeta {
	v := t.View()
	d := t.Data()
	b := t.Budget()
	m := RVTaskMeta{ID: t.TaskID, Tier: t.Tier(), Difficulty: t.TruthDifficulty, Points: v.NObs,
		Instruments: len(d.Instruments), SpanDays: d.Span(), Budget: b.Submissions,
		Left: max(b.Submissions-l.Used(t.TaskID), 0), Passed: l.Passed(t.TaskID), State: l.State(t)}
	m.Deadline = m.State.Deadline
	return m
}

// RVTasks implements Backend.
func (r *Real) RVTasks(ctx context.Context) ([]RVTaskMeta, error) {
	tasks, err := r.rvTasks()
	if err != nil {
		return nil, err
	}
	// Listing reads a snapshot: the ledger is replaced atomically, so no lock is needed to read it whole.
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(r.Home))
	if err != nil {
		return nil, err
	}
	out := make([]RVTaskMeta, len(tasks))
	for i, t := range tasks {
		out[i] = rvMeta(t, l)
	}
	return out, nil
}

// LoadRVTask implements Backend. With start it starts the task's clock against the tier's time budget (unless
// it started before); without, a task not started is refused with rvtrack.ErrNotStarted and nothing changes.
// An imported task has no clock and always loads.
func (r *Real) LoadRVTask(ctx context.Context, id string, start bool) (*RVTask, error) {
	t, err := r.rvTask(id)
	if err != nil {
		return nil, err
	}
	var meta RVTaskMeta
	err = r.withLedger(func(l *rvtrack.Ledger) error {
		switch {
		case t.Imported:
		case start:
			if _, err := l.Start(t.TaskID); err != nil {
				return err
			}
		default:
			if _, err := l.Show(t.TaskID); err != nil {
				return fmt.Errorf("%w: open it from the RV browser and confirm to start its %d s clock", err, t.Budget().Seconds)
			}
		}
		meta = rvMeta(t, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &RVTask{Meta: meta, View: t.View(), Data: t.Data(), MedianSigma: t.MedianSigma()}, nil
}

// FitRV implements Backend.
func (r *Real) FitRV(ctx context.Context, id string, init []rv.Planet) (*RVFit, error) {
	t, err := r.rvTask(id)
	if err != nil {
		return nil, err
	}
	if t.Imported && len(init) == 0 {
		return rvtrack.HonestFit(t.Data()), nil
	}
	return rvtrack.FitData(t.Data(), init)
}

// SubmitRV implements Backend.
func (r *Real) SubmitRV(ctx context.Context, id string, planets []rv.Planet, jitterMS float64) (rvgate.Feedback, error) {
	t, err := r.rvTask(id)
	if err != nil {
		return rvgate.Feedback{}, err
	}
	if t.Imported {
		return rvgate.Feedback{}, fmt.Errorf("task %s was imported from your own data and has no truth to grade a submission against; its fit and metrics are shown here", id)
	}
	var fb rvgate.Feedback
	err = r.withLedger(func(l *rvtrack.Ledger) (err error) {
		fb, err = l.Submit(t, planets, jitterMS, nil)
		return err
	})
	return fb, err
}
