package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// FileName is the database's usual name inside the data directory.
const FileName = "results.db"

// Errors of the store; test for them with errors.Is.
var (
	ErrNotFound    = errors.New("store: not found")
	ErrRunFinished = errors.New("store: run is finished")
	ErrNewerSchema = errors.New("store: database written by a newer transitbench")
	ErrHiddenRun   = errors.New("store: the run is on a hidden set, whose per-star outcomes are not kept")
)

// busyTimeoutMS is how long a connection waits for another writer (another goroutine or process) before
// giving up with "database is locked".
const busyTimeoutMS = 10000

// timeLayout is how timestamps are stored: UTC, millisecond precision, sorting as text in time order.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Store is an open results database. It is safe for concurrent use by several goroutines, and several
// processes may open the same file: SQLite's write-ahead log lets readers run beside one writer, and writers
// wait up to 10 s for each other.
type Store struct {
	db   *sql.DB
	path string

	keysMu sync.Mutex
	keys   map[int64]*hiddenKeys // the keys of hidden runs, derived once per run (runKeys)
}

// Open opens the results database at path, creating it (and its directory) when missing, and brings its
// schema up to date. Connections use the write-ahead log (journal_mode=WAL, synchronous=NORMAL: a commit is
// durable against a crash of the program, and against power loss up to the last checkpoint), enforce foreign
// keys, wait 10 s on a busy database and take the write lock when a transaction begins, so concurrent writers
// queue instead of failing. A file that is not a SQLite database gives an error saying so.
func Open(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("store: cannot create the directory of the results database: %w", err)
	}
	if err := restrict(abs); err != nil {
		return nil, err
	}
	u := url.URL{Scheme: "file", Path: abs}
	dsn := u.String() + fmt.Sprintf("?_busy_timeout=%d&_journal_mode=WAL&_synchronous=NORMAL&_foreign_keys=1&_txlock=immediate"+
		"&_pragma=secure_delete(1)", busyTimeoutMS)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", abs, err)
	}
	s := &Store{db: db, path: abs}
	if err := s.migrate(context.Background()); err != nil {
		db.Close()
		if errors.Is(err, ErrNewerSchema) {
			return nil, err
		}
		return nil, fmt.Errorf("store: %s is not a usable results database (%v); move it aside to start a new one "+
			"(the runs recorded in it are lost) or restore it from a backup", abs, err)
	}
	return s, nil
}

// FileMode is the mode of the database file and of its write-ahead log and shared-memory index: private to
// the owner, since the file records every run of the data directory.
const FileMode os.FileMode = 0o600

// restrict creates the database file when missing with FileMode, and takes an existing file, its -wal and its
// -shm to FileMode (SQLite gives the log and index the mode of the database file when it creates them). A
// file the program may read but not change the mode of (another user's) is left as it is.
func restrict(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("store: cannot create the results database: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, FileMode); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("store: cannot make %s private: %w", p, err)
		}
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path returns the database file's absolute path.
func (s *Store) Path() string { return s.path }

// DB returns the underlying database handle, for ad-hoc read-only queries (the schema is in migrations.go).
func (s *Store) DB() *sql.DB { return s.db }

// Check runs SQLite's quick_check over the whole file and returns an error describing the first problems
// found. It reads every page, so it takes time in proportion to the file size.
func (s *Store) Check(ctx context.Context) error {
	msgs, err := queryAll(ctx, s.db, scanString, "PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("store: checking %s: %w", s.path, err)
	}
	var problems []string
	for _, msg := range msgs {
		for _, line := range strings.Split(msg, "\n") {
			if line = strings.TrimSpace(line); line != "" && line != "ok" && !strings.HasPrefix(line, "***") {
				problems = append(problems, line)
			}
		}
	}
	if len(problems) > 0 {
		const show = 3
		more := ""
		if len(problems) > show {
			more = fmt.Sprintf(" and %d more problems", len(problems)-show)
			problems = problems[:show]
		}
		return fmt.Errorf("store: %s is damaged: %s%s; restore it from a backup or move it aside",
			s.path, strings.Join(problems, "; "), more)
	}
	return nil
}

// inTx runs f in a transaction (BEGIN IMMEDIATE: the write lock is taken at the start), committing when f
// returns nil and rolling back otherwise.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// scanner is a row to read: *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// queryAll runs query and reads each row of its answer with scan, in order (nil for none). Errors are returned
// as they come; the caller says what it was reading.
func queryAll[T any](ctx context.Context, db *sql.DB, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// scanString reads a row of one text column.
func scanString(sc scanner) (string, error) {
	var v string
	err := sc.Scan(&v)
	return v, err
}

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s sql.NullString) time.Time {
	if !s.Valid || s.String == "" {
		return time.Time{}
	}
	t, err := time.Parse(timeLayout, s.String)
	if err != nil {
		return time.Time{}
	}
	return t
}

// jsonText turns a JSON payload into the value stored: NULL for an empty payload, the text otherwise. It
// rejects text that is not JSON, so every stored payload parses.
func jsonText(what string, b json.RawMessage) (any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("store: %s is not valid JSON", what)
	}
	return string(b), nil
}

func rawJSON(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}
