package rv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Ledger records the graded submissions of every task, so that budgets hold across runs of the program. It
// lives in one JSON file (data.Home()/rv/submissions.json by default), rewritten atomically (a temporary file
// in the same directory, then rename) after each submission. It assumes one writer at a time.
type Ledger struct {
	path  string
	Tasks map[string][]Record `json:"tasks"`
}

// Record is one graded submission.
type Record struct {
	Time             time.Time `json:"time"`
	Passed           bool      `json:"passed"`
	OKRMS            bool      `json:"ok_rms"`
	OKDeltaBIC       bool      `json:"ok_delta_bic"`
	OKMatch          bool      `json:"ok_match"`
	OKCount          bool      `json:"ok_count"`
	RMSMS            float64   `json:"rms_ms"`
	DeltaBICPerPoint float64   `json:"delta_bic_per_point"`
	MatchScore       float64   `json:"match_score"`
	NPlanets         int       `json:"n_planets"`
}

// LedgerPath returns where the ledger lives under a data directory (data.Home()): home/rv/submissions.json.
func LedgerPath(home string) string { return filepath.Join(home, "rv", "submissions.json") }

// ErrBudgetSpent is returned when a task has no submissions left.
var ErrBudgetSpent = errors.New("rv: submission budget spent")

// OpenLedger reads the ledger at path, or starts an empty one when the file does not exist.
func OpenLedger(path string) (*Ledger, error) {
	l := &Ledger{path: path, Tasks: map[string][]Record{}}
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
	return l, nil
}

// Used returns how many submissions task has spent.
func (l *Ledger) Used(task string) int { return len(l.Tasks[task]) }

// Passed reports whether any recorded submission of task passed.
func (l *Ledger) Passed(task string) bool {
	for _, r := range l.Tasks[task] {
		if r.Passed {
			return true
		}
	}
	return false
}

// Check returns ErrBudgetSpent (wrapped, with advice) when task has used its budget of submissions.
func (l *Ledger) Check(task string, budget int) error {
	if n := l.Used(task); n >= budget {
		return fmt.Errorf("%w: task %s has used all %d of its submissions; use --dry-run to check a fit without spending, or pick another task", ErrBudgetSpent, task, budget)
	}
	return nil
}

// Add records a graded submission and saves the ledger. It refuses when the budget is spent.
func (l *Ledger) Add(task string, budget int, r Result) (Record, error) {
	if err := l.Check(task, budget); err != nil {
		return Record{}, err
	}
	rec := Record{Time: time.Now().UTC(), Passed: r.Passed, OKRMS: r.OKRMS, OKDeltaBIC: r.OKDeltaBIC, OKMatch: r.OKMatch,
		OKCount: r.OKCount, RMSMS: r.RMSMS, DeltaBICPerPoint: r.DeltaBICPerPoint, MatchScore: r.MatchScore, NPlanets: r.NGuess}
	l.Tasks[task] = append(l.Tasks[task], rec)
	if err := l.save(); err != nil {
		l.Tasks[task] = l.Tasks[task][:len(l.Tasks[task])-1]
		return Record{}, err
	}
	return rec, nil
}

// save writes the ledger atomically.
func (l *Ledger) save() error {
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
