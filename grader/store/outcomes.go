package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Outcome is one star's result in a run. Status is the grader's one-word outcome (hit, half, false, missed,
// quiet, ignored; the store treats it as text, but FailingStars counts "missed"); Credit and False the star's
// credit and false candidates; RuntimeMS the solution's wall-clock time in milliseconds; ExitReason why the
// process ended (as the sandbox names it); StderrTail the last part of its stderr; Isolation the sandbox's
// isolation level. Rows and Matches are JSON the grader defines (the parsed rows and their match results).
// Updated is set by PutOutcome.
type Outcome struct {
	RunID      int64           `json:"run_id"`
	StarID     string          `json:"star_id"`
	Status     string          `json:"status"`
	Credit     float64         `json:"credit"`
	False      int             `json:"false"`
	RuntimeMS  int64           `json:"runtime_ms"`
	ExitReason string          `json:"exit_reason,omitempty"`
	StderrTail string          `json:"stderr_tail,omitempty"`
	Isolation  string          `json:"isolation,omitempty"`
	Rows       json.RawMessage `json:"rows,omitempty"`
	Matches    json.RawMessage `json:"matches,omitempty"`
	Updated    time.Time       `json:"updated"`
}

// StatusMissed is the outcome word FailingStars counts as a miss.
const StatusMissed = "missed"

// PutOutcome stores one star's outcome, replacing an earlier one for the same (run, star): writing the same
// outcome twice leaves one record. It runs in its own transaction, which checks that the run exists and is
// running (ErrNotFound, ErrRunFinished otherwise), so every stored outcome belongs to a live run and a crash
// never leaves half a record. A hidden run takes no outcomes (ErrHiddenRun): see PutHiddenOutcome.
func (s *Store) PutOutcome(ctx context.Context, o Outcome) error {
	if o.StarID == "" {
		return errors.New("store: an outcome needs a star ID")
	}
	rows, err := jsonText("outcome rows", o.Rows)
	if err != nil {
		return err
	}
	matches, err := jsonText("outcome matches", o.Matches)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		status, hidden, err := runState(ctx, tx, o.RunID)
		if err != nil {
			return err
		}
		if hidden {
			return fmt.Errorf("store: outcome of %s for run %d: %w", o.StarID, o.RunID, ErrHiddenRun)
		}
		if status != StatusRunning {
			return fmt.Errorf("store: outcome of %s for run %d: %w (%s); resume the run first", o.StarID, o.RunID, ErrRunFinished, status)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO outcomes
			(run_id, star_id, status, credit, false_count, runtime_ms, exit_reason, stderr_tail, isolation, rows, matches, updated)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (run_id, star_id) DO UPDATE SET
				status = excluded.status, credit = excluded.credit, false_count = excluded.false_count,
				runtime_ms = excluded.runtime_ms, exit_reason = excluded.exit_reason, stderr_tail = excluded.stderr_tail,
				isolation = excluded.isolation, rows = excluded.rows, matches = excluded.matches, updated = excluded.updated`,
			o.RunID, o.StarID, o.Status, o.Credit, o.False, o.RuntimeMS, o.ExitReason, o.StderrTail, o.Isolation,
			rows, matches, formatTime(time.Now()))
		if err != nil {
			return fmt.Errorf("store: outcome of %s for run %d: %w", o.StarID, o.RunID, err)
		}
		return nil
	})
}

const outcomeColumns = `run_id, star_id, status, credit, false_count, runtime_ms, exit_reason, stderr_tail, isolation, rows, matches, updated`

func scanOutcome(sc scanner) (Outcome, error) {
	var o Outcome
	var rows, matches, updated sql.NullString
	err := sc.Scan(&o.RunID, &o.StarID, &o.Status, &o.Credit, &o.False, &o.RuntimeMS, &o.ExitReason, &o.StderrTail,
		&o.Isolation, &rows, &matches, &updated)
	o.Rows, o.Matches, o.Updated = rawJSON(rows), rawJSON(matches), parseTime(updated)
	return o, err
}

// Outcomes returns every outcome stored for a run, ordered by star ID.
func (s *Store) Outcomes(ctx context.Context, runID int64) ([]Outcome, error) {
	out, err := queryAll(ctx, s.db, scanOutcome, `SELECT `+outcomeColumns+` FROM outcomes WHERE run_id = ? ORDER BY star_id`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: outcomes of run %d: %w", runID, err)
	}
	return out, nil
}

// Outcome returns one star's outcome in a run, or an error wrapping ErrNotFound.
func (s *Store) Outcome(ctx context.Context, runID int64, starID string) (Outcome, error) {
	o, err := scanOutcome(s.db.QueryRowContext(ctx,
		`SELECT `+outcomeColumns+` FROM outcomes WHERE run_id = ? AND star_id = ?`, runID, starID))
	if err == sql.ErrNoRows {
		return Outcome{}, fmt.Errorf("store: outcome of %s in run %d: %w", starID, runID, ErrNotFound)
	}
	return o, err
}

// DoneStars returns the IDs of the stars that have an outcome in a run: the stars a resumed run skips.
func (s *Store) DoneStars(ctx context.Context, runID int64) (map[string]bool, error) {
	ids, err := queryAll(ctx, s.db, scanString, `SELECT star_id FROM outcomes WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("store: stars done in run %d: %w", runID, err)
	}
	done := map[string]bool{}
	for _, id := range ids {
		done[id] = true
	}
	return done, nil
}

// FailingStar counts how a star fared over the runs of a set: in how many runs it had an outcome, in how
// many it was missed (status "missed") or had false candidates, and its latest run and status.
type FailingStar struct {
	StarID     string `json:"star_id"`
	Runs       int    `json:"runs"`
	Missed     int    `json:"missed"`
	False      int    `json:"false"` // runs with at least one false candidate
	LastRunID  int64  `json:"last_run_id"`
	LastStatus string `json:"last_status"`
}

// FailingStars returns the stars of a set that fail most often across runs: those missed or with false
// candidates in at least one run, ordered by the number of failing runs (missed + false), then by the share
// of their runs that failed, then by star ID; at most limit of them (all when limit ≤ 0). Only runs of the
// given kinds count; by default dev and grade runs (the contestant's solutions), so that the empty and naive
// baselines do not drown the list. Hidden runs have no per-star outcomes and never count.
func (s *Store) FailingStars(ctx context.Context, set string, limit int, kinds ...string) ([]FailingStar, error) {
	return s.FailingStarsIn(ctx, "", set, limit, kinds...)
}

// FailingStarsIn is FailingStars over the runs of one workspace (its path; "" for every run).
func (s *Store) FailingStarsIn(ctx context.Context, workspace, set string, limit int, kinds ...string) ([]FailingStar, error) {
	if len(kinds) == 0 {
		kinds = []string{KindDev, KindGrade}
	}
	kindJSON, err := json.Marshal(kinds)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	out, err := queryAll(ctx, s.db, func(sc scanner) (FailingStar, error) {
		var f FailingStar
		err := sc.Scan(&f.StarID, &f.Runs, &f.Missed, &f.False, &f.LastRunID, &f.LastStatus)
		return f, err
	}, `
		WITH picked AS (
			SELECT o.star_id, o.run_id, o.status, o.false_count
			FROM outcomes o JOIN runs r ON r.id = o.run_id
			WHERE r.set_name = ? AND r.hidden = 0 AND r.kind IN (SELECT value FROM json_each(?))
				AND (? = '' OR r.workspace = ?)
		), counted AS (
			SELECT star_id, COUNT(*) AS runs,
				SUM(status = ?) AS missed, SUM(false_count > 0) AS falsed, MAX(run_id) AS last_run
			FROM picked GROUP BY star_id
		)
		SELECT c.star_id, c.runs, c.missed, c.falsed, c.last_run, p.status
		FROM counted c JOIN picked p ON p.star_id = c.star_id AND p.run_id = c.last_run
		WHERE c.missed + c.falsed > 0
		ORDER BY c.missed + c.falsed DESC, CAST(c.missed + c.falsed AS REAL) / c.runs DESC, c.star_id
		LIMIT ?`, set, string(kindJSON), workspace, workspace, StatusMissed, limit)
	if err != nil {
		return nil, fmt.Errorf("store: failing stars of %s: %w", set, err)
	}
	return out, nil
}
