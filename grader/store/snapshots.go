package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Snapshot is a frozen solution: its content hash, when it was first frozen, its file listing (JSON the
// workspace defines, e.g. paths, sizes and hashes) and the gradings done with it, oldest first.
type Snapshot struct {
	Hash    string          `json:"hash"`
	Created time.Time       `json:"created"`
	Files   json.RawMessage `json:"files"`
	Graded  []Grading       `json:"graded,omitempty"`
}

// Grading records that a snapshot was graded on a set, by which run (0 when the run is unknown or was
// deleted) and when.
type Grading struct {
	Set   string    `json:"set"`
	RunID int64     `json:"run_id,omitempty"`
	At    time.Time `json:"at"`
}

// GradedOn reports whether the snapshot was graded on set at least once.
func (s *Snapshot) GradedOn(set string) bool {
	for _, g := range s.Graded {
		if g.Set == set {
			return true
		}
	}
	return false
}

// PutSnapshot records a frozen snapshot. Freezing the same content again (same hash) keeps the first record:
// its creation time and gradings stay. Created defaults to now.
func (s *Store) PutSnapshot(ctx context.Context, snap Snapshot) error {
	if snap.Hash == "" {
		return errors.New("store: a snapshot needs its content hash")
	}
	files, err := jsonText("snapshot file listing", snap.Files)
	if err != nil {
		return err
	}
	if files == nil {
		files = "[]"
	}
	if snap.Created.IsZero() {
		snap.Created = time.Now()
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO snapshots (hash, created, files) VALUES (?, ?, ?)
		ON CONFLICT (hash) DO NOTHING`, snap.Hash, formatTime(snap.Created), files)
	if err != nil {
		return fmt.Errorf("store: recording snapshot %s: %w", snap.Hash, err)
	}
	return nil
}

// Snapshot returns the snapshot with the given hash and its gradings, or an error wrapping ErrNotFound.
func (s *Store) Snapshot(ctx context.Context, hash string) (Snapshot, error) {
	var snap Snapshot
	var created sql.NullString
	var files string
	err := s.db.QueryRowContext(ctx, `SELECT hash, created, files FROM snapshots WHERE hash = ?`, hash).
		Scan(&snap.Hash, &created, &files)
	if err == sql.ErrNoRows {
		return Snapshot{}, fmt.Errorf("store: snapshot %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("store: snapshot %s: %w", hash, err)
	}
	snap.Created, snap.Files = parseTime(created), json.RawMessage(files)
	snap.Graded, err = queryAll(ctx, s.db, func(sc scanner) (Grading, error) {
		var g Grading
		var run sql.NullInt64
		var at sql.NullString
		err := sc.Scan(&g.Set, &run, &at)
		g.RunID, g.At = run.Int64, parseTime(at)
		return g, err
	}, `SELECT set_name, run_id, at FROM gradings WHERE hash = ? ORDER BY id`, hash)
	if err != nil {
		return Snapshot{}, fmt.Errorf("store: gradings of snapshot %s: %w", hash, err)
	}
	return snap, nil
}

// MarkGraded records that the snapshot hash was graded on set by run runID (0 if none). Every call adds a
// record, so a re-grade (SPEC A8's --again) shows as a second grading; the snapshot must have been recorded
// with PutSnapshot first (ErrNotFound otherwise).
func (s *Store) MarkGraded(ctx context.Context, hash, set string, runID int64) error {
	if set == "" {
		return errors.New("store: MarkGraded needs the name of the set")
	}
	var run any
	if runID != 0 {
		run = runID
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM snapshots WHERE hash = ?`, hash).Scan(&one)
		if err == sql.ErrNoRows {
			return fmt.Errorf("store: marking snapshot %s graded: %w; record it with PutSnapshot first", hash, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO gradings (hash, set_name, run_id, at) VALUES (?, ?, ?, ?)`,
			hash, set, run, formatTime(time.Now())); err != nil {
			return fmt.Errorf("store: marking snapshot %s graded on %s: %w", hash, set, err)
		}
		return nil
	})
}
