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
// level; Flags free words such as FlagAgain. Hidden marks a run on a hidden set (SPEC A8): it keeps no per-star
// outcomes, only its summary and, while unfinished, the sealed resume state of hidden.go. Grading is the
// ordinal of a grade run's grading among its workspace's (Label's) gradings: 1 for the first, counting every
// grading of any solution, re-gradings included; 0 for other kinds.
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
	Hidden       bool            `json:"hidden"`
	Grading      int             `json:"grading,omitempty"`
	// Lineage is what a grade run's ordinal counts within: "ws:" and the workspace's id, or "contestant:" and the
	// label a contest grader gave (grade --frozen --label). "" for other runs and for runs recorded before.
	Lineage string `json:"lineage,omitempty"`
	// Workspace is the path of the workspace the run ran in ("" for a baseline, and for a mini run recorded
	// before runs named their workspace); the commands that read runs show the current workspace's by default.
	Workspace string `json:"workspace,omitempty"`
	// SolutionKind is the run's solution's kind: python, go or executable ("" for runs recorded before).
	SolutionKind string `json:"solution_kind,omitempty"`
}

// HasFlag reports whether the run carries flag.
func (r *Run) HasFlag(flag string) bool { return slices.Contains(r.Flags, flag) }

// CreateRun records a new run with status running and returns its ID. Kind, Set are required; Started
// defaults to now; ID, Finished, Status and Summary are ignored. A grade run takes its Grading ordinal from
// NextGrading (the workspace package always gives one).
func (s *Store) CreateRun(ctx context.Context, r Run) (int64, error) {
	switch r.Kind {
	case KindDev, KindGrade, KindBaseline, KindMini:
	default:
		return 0, fmt.Errorf("store: run kind %q is not one of dev, grade, baseline, mini", r.Kind)
	}
	if r.Set == "" {
		return 0, errors.New("store: a run needs the name of its set")
	}
	if r.Grading < 0 || r.Kind != KindGrade && r.Grading != 0 {
		return 0, fmt.Errorf("store: grading ordinal %d for a %s run: only grade runs have one, from NextGrading", r.Grading, r.Kind)
	}
	if r.Started.IsZero() {
		r.Started = time.Now()
	}
	flags, err := json.Marshal(nonNil(r.Flags))
	if err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO runs
		(kind, set_name, label, solution_hash, started, status, isolation, stars, flags, hidden, grading, lineage,
		workspace, solution_kind)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Kind, r.Set, r.Label, r.SolutionHash, formatTime(r.Started), StatusRunning, r.Isolation, r.Stars, string(flags),
		r.Hidden, r.Grading, r.Lineage, r.Workspace, r.SolutionKind)
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
// grader's summary as JSON, may be empty) is stored. Finishing a run twice replaces the first ending. A hidden
// run that is done loses its sealed per-star resume state in the same transaction: only its summary stays.
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
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?, finished = ?, summary = ? WHERE id = ?`,
			status, formatTime(time.Now()), sum, id)
		if err != nil {
			return fmt.Errorf("store: finishing run %d: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("store: finishing run %d: %w", id, ErrNotFound)
		}
		if status == StatusDone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM hidden_outcomes WHERE run_id = ?`, id); err != nil {
				return fmt.Errorf("store: finishing run %d: %w", id, err)
			}
		}
		return nil
	})
}

// NextGrading returns the ordinal the next grading of lineage gets: one more than the highest recorded among
// the grade runs of lineage and, when label is not "", the grade runs recorded before lineages (an empty lineage) of
// the workspace at label. Two processes grading one lineage at once must agree on who goes first (the
// workspace package holds a lock per lineage around its gradings).
func (s *Store) NextGrading(ctx context.Context, lineage, label string) (int, error) {
	n, err := s.Gradings(ctx, lineage, label)
	return n + 1, err
}

// Gradings returns the number of gradings of lineage (with the legacy runs of label, as NextGrading counts them):
// the highest ordinal recorded, 0 when there is none.
func (s *Store) Gradings(ctx context.Context, lineage, label string) (int, error) {
	if lineage == "" {
		return 0, errors.New("store: counting gradings needs a lineage")
	}
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(grading), 0) FROM runs WHERE kind = ?
		AND (lineage = ? OR lineage = '' AND ? != '' AND label = ?)`,
		KindGrade, lineage, label, label).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: gradings of %s: %w", lineage, err)
	}
	return n, nil
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

func runStatus(ctx context.Context, q queryRower, id int64) (string, error) {
	status, _, err := runState(ctx, q, id)
	return status, err
}

type queryRower interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// runState returns a run's status and whether it is hidden.
func runState(ctx context.Context, q queryRower, id int64) (status string, hidden bool, err error) {
	err = q.QueryRowContext(ctx, `SELECT status, hidden FROM runs WHERE id = ?`, id).Scan(&status, &hidden)
	if err == sql.ErrNoRows {
		return "", false, fmt.Errorf("store: run %d: %w", id, ErrNotFound)
	}
	return status, hidden, err
}

// RunFilter selects runs; empty fields match everything. Grading, when positive, selects the grade runs of
// that grading ordinal. Workspace selects the runs of one workspace (its path). Limit 0 means no limit.
type RunFilter struct {
	Kind, Set, SolutionHash, Status, Label, Lineage, Workspace string
	Grading                                                    int
	Limit                                                      int
}

const runColumns = `id, kind, set_name, label, solution_hash, started, finished, status, isolation, stars, summary, flags, hidden, grading, lineage, workspace, solution_kind`

// Runs returns the runs matching f, newest first.
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	var where []string
	var args []any
	for _, c := range []struct{ col, v string }{
		{"kind", f.Kind}, {"set_name", f.Set}, {"solution_hash", f.SolutionHash}, {"status", f.Status}, {"label", f.Label},
		{"lineage", f.Lineage}, {"workspace", f.Workspace},
	} {
		if c.v != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	if f.Grading > 0 {
		where = append(where, "grading = ?")
		args = append(args, f.Grading)
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
	out, err := queryAll(ctx, s.db, scanRun, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: listing runs: %w", err)
	}
	return out, nil
}

// Run returns the run with the given ID, or an error wrapping ErrNotFound.
func (s *Store) Run(ctx context.Context, id int64) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if err == sql.ErrNoRows {
		return Run{}, fmt.Errorf("store: run %d: %w", id, ErrNotFound)
	}
	return r, err
}

func scanRun(sc scanner) (Run, error) {
	var r Run
	var started, finished, summary sql.NullString
	var flags string
	if err := sc.Scan(&r.ID, &r.Kind, &r.Set, &r.Label, &r.SolutionHash, &started, &finished, &r.Status,
		&r.Isolation, &r.Stars, &summary, &flags, &r.Hidden, &r.Grading, &r.Lineage, &r.Workspace, &r.SolutionKind); err != nil {
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
