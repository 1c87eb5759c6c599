package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema steps; migrations[i] takes the database from version i to version i+1. Append a
// step to change the schema; never edit one that has shipped.
var migrations = []string{
	// Version 1.
	`CREATE TABLE runs (
		id            INTEGER PRIMARY KEY AUTOINCREMENT,
		kind          TEXT NOT NULL CHECK (kind IN ('dev', 'grade', 'baseline', 'mini')),
		set_name      TEXT NOT NULL,
		label         TEXT NOT NULL DEFAULT '',
		solution_hash TEXT NOT NULL DEFAULT '',
		started       TEXT NOT NULL,
		finished      TEXT,
		status        TEXT NOT NULL CHECK (status IN ('running', 'done', 'cancelled', 'failed')),
		isolation     TEXT NOT NULL DEFAULT '',
		stars         INTEGER NOT NULL DEFAULT 0,
		summary       TEXT,
		flags         TEXT NOT NULL DEFAULT '[]'
	);
	CREATE INDEX runs_set_kind ON runs (set_name, kind);
	CREATE TABLE outcomes (
		run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		star_id     TEXT NOT NULL,
		status      TEXT NOT NULL DEFAULT '',
		credit      REAL NOT NULL DEFAULT 0,
		false_count INTEGER NOT NULL DEFAULT 0,
		runtime_ms  INTEGER NOT NULL DEFAULT 0,
		exit_reason TEXT NOT NULL DEFAULT '',
		stderr_tail TEXT NOT NULL DEFAULT '',
		isolation   TEXT NOT NULL DEFAULT '',
		rows        TEXT,
		matches     TEXT,
		updated     TEXT NOT NULL,
		PRIMARY KEY (run_id, star_id)
	);
	CREATE INDEX outcomes_star ON outcomes (star_id);
	CREATE TABLE snapshots (
		hash    TEXT PRIMARY KEY,
		created TEXT NOT NULL,
		files   TEXT NOT NULL
	);
	CREATE TABLE gradings (
		id       INTEGER PRIMARY KEY AUTOINCREMENT,
		hash     TEXT NOT NULL REFERENCES snapshots (hash) ON DELETE CASCADE,
		set_name TEXT NOT NULL,
		run_id   INTEGER REFERENCES runs (id) ON DELETE SET NULL,
		at       TEXT NOT NULL
	);
	CREATE INDEX gradings_hash ON gradings (hash, set_name);`,
}

// SchemaVersion is the schema version this program writes.
var SchemaVersion = len(migrations)

// migrate creates the version table when missing and applies the steps the database lacks, all in one
// transaction with the version bump, so a database is never left between two versions.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var v int
		err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
		switch {
		case err == sql.ErrNoRows:
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if v > len(migrations) {
			return fmt.Errorf("%w: %s has schema version %d, this program knows up to %d; use a newer transitbench",
				ErrNewerSchema, s.path, v, len(migrations))
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("schema step %d: %w", v+1, err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, v+1); err != nil {
				return err
			}
		}
		return nil
	})
}
