package store

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/internal/testutil"
)

// shippedV1SHA256 is the SHA-256 of migrations[0] as the first release shipped it. TestShippedMigrationUnchanged
// pins it, so the old database the migration test builds from migrations[0] is the one that release wrote.
const shippedV1SHA256 = "6ee2e6e2ecc03c34ea3f9c447f8bc47e9fc1847a4894d47ee1d3020eecae2132"

// schemaV1 is the database the first release wrote: migrations[0] and the schema version 1.
var schemaV1 = migrations[0] + `
	CREATE TABLE schema_version (version INTEGER NOT NULL);
	INSERT INTO schema_version (version) VALUES (1);`

// TestShippedMigrationUnchanged checks the shipped first step is never edited (a change there would leave
// existing databases on a schema no code builds any more; append a step instead).
func TestShippedMigrationUnchanged(t *testing.T) {
	if got := fmt.Sprintf("%x", sha256.Sum256([]byte(migrations[0]))); got != shippedV1SHA256 {
		t.Fatalf("migrations[0] has SHA-256 %s, the shipped step %s: it was edited; restore it and append a new step", got, shippedV1SHA256)
	}
}

// dbBytes returns the database file and its write-ahead log, as a reader of the directory sees them.
func dbBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// TestMigrationDropsHiddenTruth builds a database with the first schema holding old-style rows (a dev run and
// two gradings, whose outcomes carry the truth, the rows and the solution's stderr), opens it, and checks that
// the hidden runs' outcomes are gone from the tables and from the file's bytes, the dev run's are kept, the
// runs are marked hidden and numbered by grading, and the file became private.
func TestMigrationDropsHiddenTruth(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The hidden stars' truth and output: periods as the grader stores them, and a marker in stderr.
	const hiddenPeriod, hiddenMarker = "17.2938416", "HIDDEN-STDERR-MARKER"
	const devPeriod, devMarker = "5.7184023", "DEV-STDERR-MARKER"
	stmts := []string{schemaV1,
		`INSERT INTO runs (id, kind, set_name, label, solution_hash, started, finished, status, stars, summary) VALUES
			(1, 'dev', 'dev', '/ws', 'h1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z', 'done', 1, '{"S":0.5}'),
			(2, 'grade', 'A', '/ws', 'h1', '2026-01-02T00:00:00.000Z', '2026-01-02T00:01:00.000Z', 'done', 2, '{"S":0.1}'),
			(3, 'grade', 'B', '/ws', 'h1', '2026-01-02T00:02:00.000Z', NULL, 'cancelled', 2, '{"S":0.4}'),
			(4, 'grade', 'A', '/ws', 'h2', '2026-01-03T00:00:00.000Z', '2026-01-03T00:01:00.000Z', 'done', 2, '{"S":0.2}'),
			(5, 'grade', 'dev', '/ws', 'h2', '2026-01-03T00:02:00.000Z', '2026-01-03T00:03:00.000Z', 'done', 1, '{"S":0.3}'),
			(6, 'grade', 'A', '/other', 'h3', '2026-01-04T00:00:00.000Z', NULL, 'running', 2, NULL)`,
		`INSERT INTO outcomes (run_id, star_id, status, credit, stderr_tail, rows, matches, updated) VALUES
			(1, 'dev-0001', 'hit', 1, '` + devMarker + `', '[{"period_days":` + devPeriod + `}]',
				'{"planets":[{"period_days":` + devPeriod + `}]}', '2026-01-01T00:00:30.000Z'),
			(2, 'A-0001', 'missed', 0, '` + hiddenMarker + `', '[]', '{"planets":[{"period_days":` + hiddenPeriod + `}]}', '2026-01-02T00:00:30.000Z'),
			(2, 'A-0002', 'quiet', 0, '` + hiddenMarker + `', '[]', '{"category":"untouched"}', '2026-01-02T00:00:31.000Z'),
			(3, 'B-0001', 'hit', 1, '` + hiddenMarker + `', '[{"period_days":` + hiddenPeriod + `}]', '{}', '2026-01-02T00:02:30.000Z'),
			(6, 'A-0001', 'missed', 0, '` + hiddenMarker + `', '[]', '{"planets":[{"period_days":` + hiddenPeriod + `}]}', '2026-01-04T00:00:30.000Z')`,
	}
	for _, q := range stmts {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("building the old database: %v", err)
		}
	}
	old.Close()
	if err := os.Chmod(path, 0o644); err != nil { // as the first release left it
		t.Fatal(err)
	}
	if b := dbBytes(t, path); !bytes.Contains(b, []byte(hiddenPeriod)) || !bytes.Contains(b, []byte(hiddenMarker)) {
		t.Fatal("the old database does not hold the hidden truth it was built with: the test would prove nothing")
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantSchemaVersion(t, s)
	for _, run := range []int64{2, 3, 6} {
		if outs, err := s.Outcomes(ctx, run); err != nil || len(outs) != 0 {
			t.Errorf("hidden run %d keeps %d outcomes (%v)", run, len(outs), err)
		}
	}
	if o, err := s.Outcome(ctx, 1, "dev-0001"); err != nil || o.StderrTail != devMarker {
		t.Errorf("dev outcome after migration: %+v, %v", o, err)
	}
	want := map[int64]struct {
		hidden  bool
		grading int
		summary string
	}{1: {false, 0, `{"S":0.5}`}, 2: {true, 1, `{"S":0.1}`}, 3: {true, 1, ""}, 4: {true, 2, `{"S":0.2}`},
		5: {false, 2, `{"S":0.3}`}, 6: {true, 1, ""}}
	for id, w := range want {
		r, err := s.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Hidden != w.hidden || r.Grading != w.grading || string(r.Summary) != w.summary {
			t.Errorf("run %d: hidden %v grading %d summary %q, want %+v", id, r.Hidden, r.Grading, r.Summary, w)
		}
	}
	b := dbBytes(t, path)
	for _, leak := range []string{hiddenPeriod, hiddenMarker} {
		if bytes.Contains(b, []byte(leak)) {
			t.Errorf("the migrated file still holds %q", leak)
		}
	}
	if !bytes.Contains(b, []byte(devPeriod)) || !bytes.Contains(b, []byte(devMarker)) {
		t.Error("the migrated file lost the dev run's outcome (the byte search would find nothing anyway)")
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != FileMode {
			t.Errorf("%s has mode %v, want %v", filepath.Base(p), fi.Mode().Perm(), FileMode)
		}
	}
	// The migrated hidden runs take no plain outcomes.
	if err := s.PutOutcome(ctx, outcomeFor(6, "A-0002", "hit", 1, 0)); !errors.Is(err, ErrHiddenRun) {
		t.Errorf("plain outcome for a hidden run: %v, want ErrHiddenRun", err)
	}
}

func TestNewDatabaseIsPrivate(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fi.Mode().Perm() != FileMode {
			t.Errorf("%s has mode %v, want %v", filepath.Base(p), fi.Mode().Perm(), FileMode)
		}
	}
}

// TestHiddenOutcomesSealed stores resume state for a hidden run and checks that it reads back by star, that
// neither the star IDs nor the state appear in the file, that a finished run drops it, and that public runs
// and finished runs refuse it.
func TestHiddenOutcomesSealed(t *testing.T) {
	s, path := openTemp(t)
	run := createRun(t, s, Run{Kind: KindGrade, Set: "A", Hidden: true, Grading: 1, Stars: 3})
	states := map[string]string{
		"A-0007": `{"population":"false_alarm","category":"injected","credit":1,"exit":"ok"}`,
		"A-0042": `{"population":"random","category":"untouched","false":1,"exit":"ok"}`,
	}
	for id, st := range states {
		if err := s.PutHiddenOutcome(ctx, run, id, []byte(st)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.HiddenOutcomes(ctx, run, []string{"A-0007", "A-0042", "A-0099"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["A-0007"]) != states["A-0007"] || string(got["A-0042"]) != states["A-0042"] {
		t.Errorf("hidden outcomes read back as %q", got)
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(path), KeyFileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v", fi, err)
	}
	if _, err := s.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	b := dbBytes(t, path)
	for _, leak := range []string{"A-0007", "A-0042", "false_alarm", "untouched", "injected"} {
		if bytes.Contains(b, []byte(leak)) {
			t.Errorf("the file holds %q", leak)
		}
	}
	// Another run's keys do not open this run's states.
	other, _ := s.CreateRun(ctx, Run{Kind: KindGrade, Set: "B", Hidden: true, Grading: 1})
	if _, err := s.DB().Exec(`INSERT INTO hidden_outcomes (run_id, star_key, sealed) SELECT ?, star_key, sealed FROM hidden_outcomes WHERE run_id = ?`, other, run); err != nil {
		t.Fatal(err)
	}
	if got, err := s.HiddenOutcomes(ctx, other, []string{"A-0007", "A-0042"}); err != nil || len(got) != 0 {
		t.Errorf("states copied to another run open there: %q, %v", got, err)
	}

	pub, _ := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev"})
	if err := s.PutHiddenOutcome(ctx, pub, "dev-0001", []byte("{}")); err == nil || !strings.Contains(err.Error(), "PutOutcome") {
		t.Errorf("hidden outcome for a public run: %v", err)
	}
	if err := s.FinishRun(ctx, run, StatusCancelled, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.PutHiddenOutcome(ctx, run, "A-0001", []byte("{}")); !errors.Is(err, ErrRunFinished) {
		t.Errorf("hidden outcome for a cancelled run: %v", err)
	}
	if got, _ := s.HiddenOutcomes(ctx, run, []string{"A-0007"}); len(got) != 1 {
		t.Errorf("a cancelled run lost its resume state: %q", got)
	}
	if err := s.ResumeRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, run, StatusDone, []byte(`{"S":1}`)); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM hidden_outcomes WHERE run_id = ?`, run).Scan(&n); err != nil || n != 0 {
		t.Errorf("a done hidden run keeps %d sealed states (%v)", n, err)
	}
}

func TestNextGrading(t *testing.T) {
	s, _ := openTemp(t)
	for want := 1; want <= 3; want++ {
		n, err := s.NextGrading(ctx, "ws:1", "/ws")
		if err != nil || n != want {
			t.Fatalf("next grading %d (%v), want %d", n, err, want)
		}
		for _, set := range []string{"A", "B", "dev"} {
			if _, err := s.CreateRun(ctx, Run{Kind: KindGrade, Set: set, Label: "/ws", Grading: n, Lineage: "ws:1"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A copy of the workspace (same lineage, another path) carries on; another lineage at the same path
	// starts at #1.
	if n, _ := s.NextGrading(ctx, "ws:1", "/copy"); n != 4 {
		t.Errorf("the copied workspace's next grading is #%d, want #4", n)
	}
	if n, _ := s.NextGrading(ctx, "ws:2", "/elsewhere"); n != 1 {
		t.Errorf("another lineage's first grading is #%d", n)
	}
	// Grade runs recorded before lineages (lineage '') count toward the workspace at their label.
	if _, err := s.CreateRun(ctx, Run{Kind: KindGrade, Set: "A", Label: "/old", Grading: 5}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.NextGrading(ctx, "ws:3", "/old"); n != 6 {
		t.Errorf("a workspace with five gradings recorded before lineages gets #%d, want #6", n)
	}
	if rs, _ := s.Runs(ctx, RunFilter{Lineage: "ws:1", Grading: 2}); len(rs) != 3 || rs[0].Grading != 2 || rs[0].Lineage != "ws:1" {
		t.Errorf("runs of grading 2: %+v", rs)
	}
	if _, err := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev", Grading: 1}); err == nil {
		t.Error("a dev run with a grading ordinal accepted")
	}
}

// BenchmarkPutHiddenOutcome seals and stores one hidden star's resume state (≈ 250 bytes of JSON, as the
// workspace writes) per iteration, each in its own transaction, as a hidden run does when a star finishes.
func BenchmarkPutHiddenOutcome(b *testing.B) {
	s, _ := openTemp(b)
	run := createRun(b, s, Run{Kind: KindGrade, Set: "A", Hidden: true, Grading: 1})
	state := []byte(`{"scored":true,"category":"injected","population":"false_alarm","rows":2,"credit":1,"false":1,` +
		`"planets":[{"bin":1,"credit":1}],"exit":"ok","runtime_ms":41234}`)
	i := 0
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		if err := s.PutHiddenOutcome(ctx, run, fmt.Sprintf("A-%04d", i), state); err != nil {
			b.Fatal(err)
		}
		i++
	}
	testutil.ReportCPU(b, start)
}
