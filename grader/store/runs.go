package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Run kinds.
const (
	KindDev      = "dev"      // the dev loop on the dev set
	KindGrade    = "grade"    // a frozen solution graded on a hidden set
	KindBaseline = "baseline" // a reference pipeline (Label names it)
	KindMini     = "mini"     // a mini task
)

// Run statuses.
const (
	StatusRunning   = "running"
	StatusDone      = "done"
	StatusCancelled = "cancelled"
	StatusFailed    = "failed"
)

// FlagAgain marks a grade run of a snapshot that had already been graded on the set (SPEC A8: `--again`).
const FlagAgain = "again"

// Run is one run of a solution over a set. Started and Finished are UTC at millisecond precision; Finished
// is zero while the run is running (or was interrupted). Summary is the grader's summary as JSON, set when
// the run finishes. Stars is the number of stars the run was started on; Isolation the sandbox's isolation
// level; Flags free words such as FlagAgain.
type Run struct {
	ID           int64           `json:"id"`
	Kind         string          `json:"kind"`
	Set          string          `json:"set"`
	Label        string          `json:"label,omitempty"`
	SolutionHash string          `json:"solution_hash,omitempty"`
	Started      time.Time       `json:"started"`
	Finished     time.Time       `json:"finished,omitzero"`
	Status       string          `json:"status"`
	Isolation    string          `json:"isolation,omitempty"`
	Stars        int             `json:"stars"`
	Summary      json.RawMessage `json:"summary,omitempty"`
	Flags        []string        `json:"flags,omitempty"`
}

// HasFlag reports whether the run carries flag.
func (r *Run) HasFlag(flag string) bool { return slices.Contains(r.Flags, flag) }

// CreateRun records a new run with status running and returns its ID. Kind, Set are required; Started
// defaults to now; ID, Finished, Status and Summary are ignored.
func (s *Store) CreateRun(ctx context.Context, r Run) (int64, error) {
	switch r.Kind {
	case KindDev, KindGrade, KindBaseline, KindMini:
	default:
		return 0, fmt.Errorf("store: run kind %q is not one of dev, grade, baseline, mini", r.Kind)
	}
	if r.Set == "" {
		return 0, errors.New("store: a run needs the name of its set")
	}
	if r.Started.IsZero() {
		r.Started = time.Now()
	}
	flags, err := json.Marshal(nonNil(r.Flags))
	if err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO runs
		(kind, set_name, label, solution_hash, started, status, isolation, stars, flags)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Kind, r.Set, r.Label, r.SolutionHash, formatTime(r.Started), StatusRunning, r.Isolation, r.Stars, string(flags))
	if err != nil {
		return 0, fmt.Errorf("store: recording a run: %w", err)
	}
	return res.LastInsertId()
}

func nonNil(f []string) []string {
	if f == nil {
		return []string{}
	}
	return f
}

// FinishRun ends a run: status becomes done, cancelled or failed, Finished becomes now and summary (the
// grader's summary as JSON, may be empty) is stored. Finishing a run twice replaces the first ending.
func (s *Store) FinishRun(ctx context.Context, id int64, status string, summary json.RawMessage) error {
	switch status {
	case StatusDone, StatusCancelled, StatusFailed:
	default:
		return fmt.Errorf("store: a run ends as done, cancelled or failed, not %q", status)
	}
	sum, err := jsonText("run summary", summary)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, finished = ?, summary = ? WHERE id = ?`,
		status, formatTime(time.Now()), sum, id)
	if err != nil {
		return fmt.Errorf("store: finishing run %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: finishing run %d: %w", id, ErrNotFound)
	}
	return nil
}

// ResumeRun puts an interrupted, cancelled or failed run back to running, so that PutOutcome accepts its
// remaining stars (find them with DoneStars). Resuming a run that is done fails with ErrRunFinished.
func (s *Store) ResumeRun(ctx context.Context, id int64) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		status, err := runStatus(ctx, tx, id)
		if err != nil {
			return err
		}
		if status == StatusDone {
			return fmt.Errorf("store: resuming run %d: %w; start a new run", id, ErrRunFinished)
		}
		_, err = tx.ExecContext(ctx, `UPDATE runs SET status = ?, finished = NULL WHERE id = ?`, StatusRunning, id)
		return err
	})
}

func runStatus(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id int64) (string, error) {
	var status string
	err := q.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, id).Scan(&status)
	if err == sql.ErrNoRows {
		return "", fmt.Errorf("store: run %d: %w", id, ErrNotFound)
	}
	return status, err
}

// RunFilter selects runs; empty fields match everything. Limit 0 means no limit.
type RunFilter struct {
	Kind, Set, SolutionHash, Status, Label string
	Limit                                  int
}

const runColumns = `id, kind, set_name, label, solution_hash, started, finished, status, isolation, stars, summary, flags`

// Runs returns the runs matching f, newest first.
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	var where []string
	var args []any
	for _, c := range []struct{ col, v string }{
		{"kind", f.Kind}, {"set_name", f.Set}, {"solution_hash", f.SolutionHash}, {"status", f.Status}, {"label", f.Label},
	} {
		if c.v != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY id DESC`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: listing runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Run returns the run with the given ID, or an error wrapping ErrNotFound.
func (s *Store) Run(ctx context.Context, id int64) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if err == sql.ErrNoRows {
		return Run{}, fmt.Errorf("store: run %d: %w", id, ErrNotFound)
	}
	return r, err
}

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var started, finished, summary sql.NullString
	var flags string
	if err := sc.Scan(&r.ID, &r.Kind, &r.Set, &r.Label, &r.SolutionHash, &started, &finished, &r.Status,
		&r.Isolation, &r.Stars, &summary, &flags); err != nil {
		return Run{}, err
	}
	r.Started, r.Finished, r.Summary = parseTime(started), parseTime(finished), rawJSON(summary)
	if err := json.Unmarshal([]byte(flags), &r.Flags); err != nil {
		return Run{}, fmt.Errorf("store: run %d has unreadable flags %q: %w", r.ID, flags, err)
	}
	if len(r.Flags) == 0 {
		r.Flags = nil
	}
	return r, nil
}
