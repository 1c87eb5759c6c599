package rvtrack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"transitbench/data"
	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
)

// Ledger records, per task, when the contestant started it and every graded submission, so that the tier
// budgets (SPEC B1) hold across runs of the program. It lives in one JSON file (data.Home()/rv/submissions.json
// by default), rewritten atomically (a temporary file in the same directory, then rename) after each change.
//
// Several programs may work on one data directory at once (two 'rv submit' runs, the terminal UI and a
// script): WithLedger holds an exclusive lock on a file beside the ledger (the ledger's path plus ".lock")
// while it reads the ledger afresh, lets the caller check, grade and record, and saves. A ledger from
// OpenLedger is a snapshot for display and cannot be saved.
//
// The budgets are enforced in two ways:
//   - Submissions: a task that has used its tier's count is refused (ErrBudgetSpent); nothing is recorded.
//   - Time and tokens: a task's clock starts when the contestant starts it explicitly ('rv start TASK', the
//     agent tool rv_start, the terminal UI's confirmation; Start) or, when that did not happen, at its first
//     submission. Nothing that only looks starts it: its data is shown only once it has started (Show). Each submission records the seconds elapsed since then and the tokens the caller declares it
//     has spent on the task so far (the product cannot count tokens; a harness can). A submission past the
//     tier's seconds or declaring more than its tokens is still graded and recorded, with WithinBudget false,
//     and does not count toward the task being passed (SPEC B3: a task is passed if any submission within
//     budget passes).
//
// Ledgers written before the clock existed load as they are: a task without a recorded start started at its
// first submission, and a submission without within_budget was within budget.
type Ledger struct {
	path   string
	locked bool // held under WithLedger's lock: changes may be saved
	// Clock, when not nil, replaces time.Now; tests move time with it instead of sleeping.
	Clock func() time.Time `json:"-"`
	// Tasks holds each task's submissions in the order they were made.
	Tasks map[string][]Record `json:"tasks"`
	// Started holds when each opened task's clock started (UTC).
	Started map[string]time.Time `json:"started,omitempty"`
}

// Record is one graded submission. The ledger file lies in the contestant's data directory and is readable by
// the contestant, so a record holds what the feedback showed (the verdicts and the data-determined scalars) and
// the submission itself, never the raw match score or anything else derived from the truth beyond the verdicts
// (SPEC B3). A maintainer recomputes the full gate result, match score included, with
// rvgate.Evaluate(task, planets, jitter) from Submission (Submission.Resolve gives the planets). Ledgers written before
// carry a match_score field; it is dropped when they are read, and so from the file at the next save.
type Record struct {
	Time time.Time `json:"time"`
	// Passed is the gate's verdict on the submission (all four criteria). It counts toward the task being
	// passed only when WithinBudget.
	Passed bool `json:"passed"`
	// PassedStrict and PassedCalibrated are the verdicts of the strict and the calibrated gates (false in
	// ledgers older than them).
	PassedStrict     bool    `json:"passed_strict"`
	PassedCalibrated bool    `json:"passed_calibrated"`
	OKRMS            bool    `json:"ok_rms"`
	OKDeltaBIC       bool    `json:"ok_delta_bic"`
	OKMatch          bool    `json:"ok_match"`
	OKCount          bool    `json:"ok_count"`
	RMSMS            float64 `json:"rms_ms"`
	DeltaBICPerPoint float64 `json:"delta_bic_per_point"`
	NPlanets         int     `json:"n_planets"`
	// Submission is what was submitted (K_ms, M0_rad form; FromPlanets), nil in older ledgers and for records
	// added with Add.
	Submission *rvgate.Submission `json:"submission,omitempty"`
	// ElapsedSeconds is the time from the task's start to the submission (0 in ledgers older than the clock).
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// TokensUsed is the cumulative token count the caller declared with the submission, nil when it declared none.
	TokensUsed *int `json:"tokens_used,omitempty"`
	// WithinBudget is false when the submission came after the tier's time budget or declared more than its
	// token budget (true when absent from the file).
	WithinBudget bool `json:"within_budget"`
}

// UnmarshalJSON reads a record, taking a missing within_budget as true (ledgers older than the time and
// token budgets).
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	p := plain{WithinBudget: true}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = Record(p)
	return nil
}

// Status returns the standing the submission was made with against budget b.
func (r Record) Status(b stargazer.Budget) rvgate.BudgetStatus {
	return rvgate.StatusAt(b, time.Duration(r.ElapsedSeconds*float64(time.Second)), r.TokensUsed)
}

// LedgerPath returns where the ledger lives under a data directory (data.Home()): home/rv/submissions.json.
func LedgerPath(home string) string { return filepath.Join(home, "rv", "submissions.json") }

// ErrBudgetSpent is returned when a task has no submissions left.
var ErrBudgetSpent = errors.New("rv: submission budget spent")

// errReadOnly is returned when a ledger from OpenLedger is changed.
var errReadOnly = errors.New("rv: this submission ledger was opened for reading only; change it inside WithLedger")

// WithLedger locks the ledger at path against every other user (data.LockFile on path+".lock", waiting while
// another program holds it), reads it, calls fn with it and releases the lock when fn returns. Everything fn
// does — checking the budget, grading, Add, Start — happens on the ledger as it is on disk, with no other
// writer in between, so concurrent submissions never lose one another or overspend a budget. fn's error is
// returned as it is.
func WithLedger(path string, fn func(*Ledger) error) error {
	release, err := data.LockFile(path + ".lock")
	if err != nil {
		return fmt.Errorf("rv: cannot lock the submission ledger: %w", err)
	}
	defer release()
	l, err := OpenLedger(path)
	if err != nil {
		return err
	}
	l.locked = true
	return fn(l)
}

// OpenLedger reads the ledger at path, or starts an empty one when the file does not exist. The result is a
// snapshot for display: Add and Start on it fail. Use WithLedger to change the ledger.
func OpenLedger(path string) (*Ledger, error) {
	l := &Ledger{path: path, Tasks: map[string][]Record{}, Started: map[string]time.Time{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("rv: cannot read the submission ledger: %w", err)
	}
	if err := json.Unmarshal(b, l); err != nil {
		return nil, fmt.Errorf("rv: the submission ledger %s is damaged (%v): move it away to start afresh", path, err)
	}
	if l.Tasks == nil {
		l.Tasks = map[string][]Record{}
	}
	if l.Started == nil {
		l.Started = map[string]time.Time{}
	}
	return l, nil
}

func (l *Ledger) now() time.Time {
	if l.Clock != nil {
		return l.Clock().UTC()
	}
	return time.Now().UTC()
}

// Used returns how many submissions task has spent.
func (l *Ledger) Used(task string) int { return len(l.Tasks[task]) }

// Passed reports whether any recorded submission of task passed the gate within budget.
func (l *Ledger) Passed(task string) bool {
	for _, r := range l.Tasks[task] {
		if r.Passed && r.WithinBudget {
			return true
		}
	}
	return false
}

// PassedGates reports whether any recorded submission of task within budget passed the original gate, the
// strict one and the calibrated one (SPEC B3).
func (l *Ledger) PassedGates(task string) (original, strict, calibrated bool) {
	for _, r := range l.Tasks[task] {
		if r.WithinBudget {
			original = original || r.Passed
			strict = strict || r.PassedStrict
			calibrated = calibrated || r.PassedCalibrated
		}
	}
	return original, strict, calibrated
}

// StartTime returns when task's clock started: its recorded start, else its first submission. ok is false
// when the task has not been opened.
func (l *Ledger) StartTime(task string) (start time.Time, ok bool) {
	if t, ok := l.Started[task]; ok {
		return t, true
	}
	if rs := l.Tasks[task]; len(rs) > 0 {
		return rs[0].Time, true
	}
	return time.Time{}, false
}

// Start starts task's clock against its tier's time budget unless it has started, and returns the start,
// saving the ledger when it changed. It is the one explicit act that opens a task ('rv start', the agent tool
// rv_start, the terminal UI's confirmation); a submission also starts the clock of a task not started (at the
// submission, so that it is within the time budget).
func (l *Ledger) Start(task string) (time.Time, error) {
	if t, ok := l.StartTime(task); ok {
		return t, nil
	}
	if !l.locked {
		return time.Time{}, errReadOnly
	}
	now := l.now()
	l.Started[task] = now
	if err := l.save(); err != nil {
		delete(l.Started, task)
		return time.Time{}, err
	}
	return now, nil
}

// ErrNotStarted is returned by Show for a task whose clock has not started: its data is shown only after
// Start.
var ErrNotStarted = errors.New("rv: task not started")

// Show is what every command, tool and screen that shows the contestant a task's observations, or anything
// computed from them (a fit, dry-run metrics, periodogram peaks, a figure), calls before answering ('rv show',
// 'rv fit', 'rv submit --dry-run'; the agent tools rv_show, rv_fit, rv_plot and rv_submit's dry run; the
// terminal UI's task view). It returns the task's start, or ErrNotStarted (wrapped, naming the task) when the
// task has not started: looking starts nothing, Start does. It changes nothing, so a snapshot (OpenLedger) may
// answer it. Listing tasks (their tier, size, budget and state) does not show their data, nor do the batch
// commands over every task ('rv truthcheck', 'rv baseline', 'rv grade': the benchmark checking its tasks and
// grading a solution, which print per-tier counts and gate verdicts); the results site, which only reads,
// draws a task's data only when Shown.
func (l *Ledger) Show(task string) (time.Time, error) {
	if t, ok := l.StartTime(task); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%w: %s", ErrNotStarted, task)
}

// Shown reports whether task's data may be shown: its clock has started (Start, or a submission).
func (l *Ledger) Shown(task string) bool {
	_, ok := l.StartTime(task)
	return ok
}

// StartTask is Start on the ledger at path, locked for the call (WithLedger).
func StartTask(path, task string) (start time.Time, err error) {
	err = WithLedger(path, func(l *Ledger) error {
		start, err = l.Start(task)
		return err
	})
	return start, err
}

// Status returns task's standing against budget b now, with tokensUsed declared (nil: none). A task not yet
// opened has used no time.
func (l *Ledger) Status(task string, b stargazer.Budget, tokensUsed *int) rvgate.BudgetStatus {
	var elapsed time.Duration
	if start, ok := l.StartTime(task); ok {
		elapsed = l.now().Sub(start)
	}
	return rvgate.StatusAt(b, elapsed, tokensUsed)
}

// Check returns ErrBudgetSpent (wrapped, with advice) when task has used its budget of submissions.
func (l *Ledger) Check(task string, budget int) error {
	if n := l.Used(task); n >= budget {
		return fmt.Errorf("%w: task %s has used all %d of its submissions; use --dry-run to check a fit without spending, or pick another task", ErrBudgetSpent, task, budget)
	}
	return nil
}

// Add records a graded submission of task with the cumulative tokens the caller declares (nil: none) and
// saves the ledger. It refuses when the submission count of budget b is spent. A task not opened before
// starts its clock now. The record says whether the submission was within b's time and token budgets; one
// that was not is kept all the same and never makes the task passed.
func (l *Ledger) Add(task string, b stargazer.Budget, r rvgate.Result, tokensUsed *int) (Record, error) {
	return l.add(task, b, r, nil, tokensUsed)
}

// add is Add recording the submission sub as well.
func (l *Ledger) add(task string, b stargazer.Budget, r rvgate.Result, sub *rvgate.Submission, tokensUsed *int) (Record, error) {
	if err := l.Check(task, b.Submissions); err != nil {
		return Record{}, err
	}
	if !l.locked {
		return Record{}, errReadOnly
	}
	now := l.now()
	_, started := l.StartTime(task)
	if !started {
		l.Started[task] = now
	}
	st := l.Status(task, b, tokensUsed)
	rec := Record{Time: now, Passed: r.Passed, PassedStrict: r.PassedStrict, PassedCalibrated: r.PassedCalibrated, OKRMS: r.OKRMS, OKDeltaBIC: r.OKDeltaBIC, OKMatch: r.OKMatch,
		OKCount: r.OKCount, RMSMS: r.RMSMS, DeltaBICPerPoint: r.DeltaBICPerPoint, NPlanets: r.NGuess, Submission: sub,
		ElapsedSeconds: st.ElapsedSeconds, TokensUsed: st.TokensUsed, WithinBudget: st.WithinBudget}
	l.Tasks[task] = append(l.Tasks[task], rec)
	if err := l.save(); err != nil {
		l.Tasks[task] = l.Tasks[task][:len(l.Tasks[task])-1]
		if !started {
			delete(l.Started, task)
		}
		return Record{}, err
	}
	return rec, nil
}

// Submit grades planets (with jitterMS) against task t's truth, records the submission with the cumulative
// tokens the caller declares (nil: none) and returns the contestant's feedback, which carries no truth. It
// refuses, recording nothing, when the task's submissions are spent (ErrBudgetSpent).
func (l *Ledger) Submit(t *stargazer.Task, planets []rv.Planet, jitterMS float64, tokensUsed *int) (rvgate.Feedback, error) {
	b := t.Budget()
	if err := l.Check(t.TaskID, b.Submissions); err != nil {
		return rvgate.Feedback{}, err
	}
	res := rvgate.Evaluate(t, planets, jitterMS)
	rec, err := l.add(t.TaskID, b, res, rvgate.FromPlanets(planets, jitterMS), tokensUsed)
	if err != nil {
		return rvgate.Feedback{}, err
	}
	used := l.Used(t.TaskID)
	return rvgate.FeedbackFor(t.TaskID, used, b.Submissions-used, res, rec.Status(b), l.Passed(t.TaskID)), nil
}

// save writes the ledger atomically.
func (l *Ledger) save() error {
	if !l.locked {
		return errReadOnly
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return fmt.Errorf("rv: cannot create the ledger directory: %w", err)
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(l.path), ".submissions-*.json")
	if err != nil {
		return fmt.Errorf("rv: cannot write the submission ledger: %w", err)
	}
	_, werr := f.Write(b)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("rv: cannot write the submission ledger: %w", err)
	}
	if err := os.Rename(f.Name(), l.path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("rv: cannot write the submission ledger: %w", err)
	}
	return nil
}
