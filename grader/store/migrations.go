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

	// Version 2: hidden sets stay hidden (SPEC A8). A run records whether its set is hidden and, for a
	// grade run, the ordinal of its grading among the workspace's gradings. Hidden runs keep no per-star
	// outcomes: their resume state is sealed in hidden_outcomes (see hidden.go) and dropped when the run is
	// done. Runs on A and B recorded before are marked hidden and their outcomes (truth, rows, stderr)
	// deleted; the summary of an unfinished one (a partial score) is dropped too. Ordinals of old gradings
	// count the workspace's grade runs on A up to each run.
	`ALTER TABLE runs ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE runs ADD COLUMN grading INTEGER NOT NULL DEFAULT 0;
	CREATE TABLE hidden_outcomes (
		run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		star_key TEXT NOT NULL,
		sealed   BLOB NOT NULL,
		PRIMARY KEY (run_id, star_key)
	) WITHOUT ROWID;
	UPDATE runs SET hidden = 1 WHERE set_name IN ('A', 'B');
	DELETE FROM outcomes WHERE run_id IN (SELECT id FROM runs WHERE hidden = 1);
	UPDATE runs SET summary = NULL WHERE hidden = 1 AND status != 'done';
	UPDATE runs SET grading = (SELECT COUNT(*) FROM runs a
		WHERE a.kind = 'grade' AND a.set_name = 'A' AND a.label = runs.label AND a.id <= runs.id)
		WHERE kind = 'grade';`,

	// Version 3: agent sessions of the MCP server (agents.go): one row per session with its budget, one per
	// tool call with its time, estimated tokens and status (ok, error, refused).
	`CREATE TABLE agent_sessions (
		id            TEXT PRIMARY KEY,
		client        TEXT NOT NULL DEFAULT '',
		preset        TEXT NOT NULL DEFAULT '',
		budget_turns  INTEGER NOT NULL DEFAULT 0,
		budget_tokens INTEGER NOT NULL DEFAULT 0,
		budget_hours  REAL NOT NULL DEFAULT 0,
		started       TEXT NOT NULL
	);
	CREATE TABLE agent_calls (
		session_id TEXT NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
		seq        INTEGER NOT NULL,
		tool       TEXT NOT NULL,
		started    TEXT NOT NULL,
		millis     INTEGER NOT NULL DEFAULT 0,
		tokens     INTEGER NOT NULL DEFAULT 0,
		status     TEXT NOT NULL CHECK (status IN ('ok', 'error', 'refused')),
		PRIMARY KEY (session_id, seq)
	);`,

	// Version 4: gradings count per lineage (the workspace's id, carried when it is copied, or a contestant's
	// label on the contest grader), not per workspace path. Runs recorded before keep lineage '' and count
	// toward the workspace at their label (NextGrading).
	`ALTER TABLE runs ADD COLUMN lineage TEXT NOT NULL DEFAULT '';
	CREATE INDEX runs_lineage ON runs (lineage, kind);`,

	// Version 5: an agent's budget outlives its sessions. Each session names the agent whose budget it spends
	// (the workspace's, or an id the operator gave); sessions recorded before have agent '' and count alone.
	`ALTER TABLE agent_sessions ADD COLUMN agent TEXT NOT NULL DEFAULT '';
	CREATE INDEX agent_sessions_agent ON agent_sessions (agent);`,

	// Version 6: results belong to a workspace. A run records the workspace it ran in (its path) and its
	// solution's kind (python, go, executable). Dev and grade runs recorded before were labelled with their
	// workspace's path, which becomes their workspace; mini and baseline runs before had none.
	`ALTER TABLE runs ADD COLUMN workspace TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN solution_kind TEXT NOT NULL DEFAULT '';
	UPDATE runs SET workspace = label WHERE kind IN ('dev', 'grade');
	CREATE INDEX runs_workspace ON runs (workspace, set_name);`,

	// Version 7: a failed or refused tool call keeps its arguments and the error it answered, so that the
	// terminal UI can show why it failed.
	`ALTER TABLE agent_calls ADD COLUMN args TEXT NOT NULL DEFAULT '';
	ALTER TABLE agent_calls ADD COLUMN error TEXT NOT NULL DEFAULT '';`,
}

// SchemaVersion is the schema version this program writes.
var SchemaVersion = len(migrations)

// purgeVersion is the schema step that deletes hidden truth from older databases: after it has run on a
// database that had data, the file is rewritten (VACUUM) so that the deleted records leave no bytes behind.
const purgeVersion = 2

// migrate creates the version table when missing and applies the steps the database lacks, all in one
// transaction with the version bump, so a database is never left between two versions. A database that
// crossed purgeVersion is then checkpointed and vacuumed, so no deleted record survives in a free page or in
// the write-ahead log.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var from int
	err := s.inTx(ctx, func(tx *sql.Tx) error {
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
		from = v
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
	if err != nil || from == 0 || from >= purgeVersion {
		return err
	}
	return s.scrub(ctx)
}

// scrub rewrites the database file without its free pages (VACUUM) and empties the write-ahead log into it,
// so that records deleted earlier leave no bytes in either file.
func (s *Store) scrub(ctx context.Context) error {
	for _, q := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
