package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"transitbench/internal/testutil"
)

var ctx = context.Background()

// createRun creates the run r in s, failing the test when the store refuses, and returns its ID.
func createRun(t testing.TB, s *Store, r Run) int64 {
	t.Helper()
	id, err := s.CreateRun(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", FileName)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// reopen closes s and opens the database at path again; the new store is closed when the test ends.
func reopen(t testing.TB, s *Store, path string) *Store {
	t.Helper()
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

// wantSchemaVersion fails the test unless the database of s records the schema version SchemaVersion.
func wantSchemaVersion(t testing.TB, s *Store) {
	t.Helper()
	var v int
	if err := s.DB().QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d (%v), want %d", v, err, SchemaVersion)
	}
}

// outcomeFor builds an outcome shaped like the grader's: the rows a solution printed and what they matched.
func outcomeFor(runID int64, star, status string, credit float64, falses int) Outcome {
	rows := fmt.Sprintf(`[{"period_days":12.3461,"t0_days":173.21,"score":14.2,"rank":1,"status":%q}]`, status)
	matches := fmt.Sprintf(`{"star_id":%q,"credit":%g,"false":%d,"planets":[{"period_days":6.173,"status":%q}]}`, star, credit, falses, status)
	return Outcome{RunID: runID, StarID: star, Status: status, Credit: credit, False: falses, RuntimeMS: 1234,
		ExitReason: "exit 0", StderrTail: "BLS: 2000 periods\n", Isolation: "full",
		Rows: json.RawMessage(rows), Matches: json.RawMessage(matches)}
}

func TestRunRoundTrip(t *testing.T) {
	s, _ := openTemp(t)
	before := time.Now().Add(-time.Second)
	id, err := s.CreateRun(ctx, Run{Kind: KindGrade, Set: "A", SolutionHash: "sha256:ab12", Isolation: "degraded",
		Stars: 1000, Flags: []string{FlagAgain}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != KindGrade || r.Set != "A" || r.SolutionHash != "sha256:ab12" || r.Status != StatusRunning ||
		r.Isolation != "degraded" || r.Stars != 1000 || !r.HasFlag(FlagAgain) || !r.Finished.IsZero() ||
		r.Started.Before(before) || r.Started.After(time.Now()) {
		t.Errorf("run read back as %+v", r)
	}
	summary := json.RawMessage(`{"S":0.412,"C":0.55,"F":12.1,"planets":400}`)
	if err := s.FinishRun(ctx, id, StatusDone, summary); err != nil {
		t.Fatal(err)
	}
	r, _ = s.Run(ctx, id)
	if r.Status != StatusDone || string(r.Summary) != string(summary) || r.Finished.Before(r.Started) {
		t.Errorf("finished run read back as %+v", r)
	}

	if _, err := s.CreateRun(ctx, Run{Kind: "exam", Set: "A"}); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := s.CreateRun(ctx, Run{Kind: KindDev}); err == nil {
		t.Error("run without a set accepted")
	}
	if err := s.FinishRun(ctx, id, "exploded", nil); err == nil {
		t.Error("unknown final status accepted")
	}
	if err := s.FinishRun(ctx, 999, StatusDone, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("finishing a missing run: %v", err)
	}
	if err := s.FinishRun(ctx, id, StatusDone, json.RawMessage(`{"S":`)); err == nil {
		t.Error("broken summary JSON accepted")
	}
	if _, err := s.Run(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing run: %v", err)
	}
}

func TestRunsFilter(t *testing.T) {
	s, _ := openTemp(t)
	mk := func(kind, set, label string) int64 {
		id := createRun(t, s, Run{Kind: kind, Set: set, Label: label})
		return id
	}
	d1 := mk(KindDev, "dev", "")
	b1 := mk(KindBaseline, "A", "starter")
	d2 := mk(KindDev, "dev", "")
	mk(KindBaseline, "A", "naive_v0")
	if err := s.FinishRun(ctx, d1, StatusCancelled, nil); err != nil {
		t.Fatal(err)
	}
	ids := func(f RunFilter) []int64 {
		rs, err := s.Runs(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	check := func(name string, got []int64, want ...int64) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: runs %v, want %v", name, got, want)
		}
	}
	check("dev runs, newest first", ids(RunFilter{Kind: KindDev}), d2, d1)
	check("running dev runs", ids(RunFilter{Kind: KindDev, Status: StatusRunning}), d2)
	check("starter baseline", ids(RunFilter{Label: "starter"}), b1)
	check("latest on A", ids(RunFilter{Set: "A", Limit: 1}), d2+1)
	check("all", ids(RunFilter{}), d2+1, d2, b1, d1)
}

func TestOutcomeRoundTripAndUpsert(t *testing.T) {
	s, _ := openTemp(t)
	run := createRun(t, s, Run{Kind: KindDev, Set: "dev"})
	o := outcomeFor(run, "dev-0042", "half", 0.5, 1)
	o.StderrTail = "traceback…\x00 binary bytes \xff survive"
	if err := s.PutOutcome(ctx, o); err != nil {
		t.Fatal(err)
	}
	got, err := s.Outcome(ctx, run, "dev-0042")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "half" || got.Credit != 0.5 || got.False != 1 || got.RuntimeMS != 1234 || got.ExitReason != "exit 0" ||
		got.StderrTail != o.StderrTail || got.Isolation != "full" || string(got.Rows) != string(o.Rows) ||
		string(got.Matches) != string(o.Matches) || got.Updated.IsZero() {
		t.Errorf("outcome read back as %+v", got)
	}
	// The same star again replaces the record.
	o2 := outcomeFor(run, "dev-0042", "hit", 1, 0)
	o2.Rows, o2.Matches = nil, nil
	if err := s.PutOutcome(ctx, o2); err != nil {
		t.Fatal(err)
	}
	if err := s.PutOutcome(ctx, outcomeFor(run, "dev-0007", "quiet", 0, 0)); err != nil {
		t.Fatal(err)
	}
	all, err := s.Outcomes(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].StarID != "dev-0007" || all[1].StarID != "dev-0042" || all[1].Status != "hit" ||
		all[1].Credit != 1 || all[1].Rows != nil || all[1].Matches != nil {
		t.Errorf("outcomes after upsert: %+v", all)
	}

	if _, err := s.Outcome(ctx, run, "dev-9999"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing outcome: %v", err)
	}
	bad := outcomeFor(run, "dev-0001", "hit", 1, 0)
	bad.Rows = json.RawMessage(`[{"period_days":`)
	if err := s.PutOutcome(ctx, bad); err == nil {
		t.Error("broken rows JSON accepted")
	}
	if err := s.PutOutcome(ctx, outcomeFor(999, "dev-0001", "hit", 1, 0)); !errors.Is(err, ErrNotFound) {
		t.Errorf("outcome for a missing run: %v", err)
	}
	if err := s.PutOutcome(ctx, Outcome{RunID: run}); err == nil {
		t.Error("outcome without a star accepted")
	}
	if err := s.FinishRun(ctx, run, StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.PutOutcome(ctx, outcomeFor(run, "dev-0001", "hit", 1, 0)); !errors.Is(err, ErrRunFinished) {
		t.Errorf("outcome for a finished run: %v", err)
	}
	if err := s.ResumeRun(ctx, run); !errors.Is(err, ErrRunFinished) {
		t.Errorf("resuming a done run: %v", err)
	}
}

// TestResumeAfterKill writes outcomes from a child process that is killed (SIGKILL) without finishing the run
// or closing the database, then reopens the file and resumes the run.
func TestResumeAfterKill(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriteThenDie$")
	cmd.Env = append(os.Environ(), "STORE_HELPER_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child prints "ready" after its writes, then kills itself.
	line, _ := bufio.NewReader(out).ReadString('\n')
	err = cmd.Wait()
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper did not finish its writes: %q, %v", line, err)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper was not killed: %v", err)
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.Runs(ctx, RunFilter{Kind: KindDev, Set: "dev", Status: StatusRunning})
	if err != nil || len(runs) != 1 {
		t.Fatalf("unfinished runs after the kill: %v, %v", runs, err)
	}
	run := runs[0].ID
	done, err := s.DoneStars(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 5 || !done["dev-0000"] || !done["dev-0004"] || done["dev-0005"] {
		t.Fatalf("done stars after the kill: %v", done)
	}
	// Resume: the remaining stars, then finish.
	for i := 5; i < 8; i++ {
		if !done[fmt.Sprintf("dev-%04d", i)] {
			if err := s.PutOutcome(ctx, outcomeFor(run, fmt.Sprintf("dev-%04d", i), "quiet", 0, 0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.FinishRun(ctx, run, StatusDone, json.RawMessage(`{"S":0}`)); err != nil {
		t.Fatal(err)
	}
	all, _ := s.Outcomes(ctx, run)
	if len(all) != 8 {
		t.Errorf("%d outcomes after resuming, want 8", len(all))
	}
}

// TestHelperWriteThenDie is the child of TestResumeAfterKill; it does nothing in a normal test run.
func TestHelperWriteThenDie(t *testing.T) {
	path := os.Getenv("STORE_HELPER_DB")
	if path == "" {
		return
	}
	s, err := Open(path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	run, err := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev", Stars: 8})
	if err != nil {
		fmt.Println("create:", err)
		os.Exit(2)
	}
	for i := range 5 {
		if err := s.PutOutcome(ctx, outcomeFor(run, fmt.Sprintf("dev-%04d", i), "hit", 1, 0)); err != nil {
			fmt.Println("put:", err)
			os.Exit(2)
		}
	}
	fmt.Println("ready")
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

func TestResumeCancelledRunAcrossReopen(t *testing.T) {
	s, path := openTemp(t)
	run, _ := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev"})
	for i := range 3 {
		if err := s.PutOutcome(ctx, outcomeFor(run, fmt.Sprintf("dev-%04d", i), "hit", 1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishRun(ctx, run, StatusCancelled, nil); err != nil {
		t.Fatal(err)
	}
	s2 := reopen(t, s, path)
	if err := s2.PutOutcome(ctx, outcomeFor(run, "dev-0003", "hit", 1, 0)); !errors.Is(err, ErrRunFinished) {
		t.Errorf("outcome for a cancelled run: %v", err)
	}
	if err := s2.ResumeRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	r, _ := s2.Run(ctx, run)
	done, _ := s2.DoneStars(ctx, run)
	if r.Status != StatusRunning || !r.Finished.IsZero() || len(done) != 3 {
		t.Errorf("resumed run %+v with %d stars done", r, len(done))
	}
	if err := s2.PutOutcome(ctx, outcomeFor(run, "dev-0003", "hit", 1, 0)); err != nil {
		t.Error(err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	s, path := openTemp(t)
	// A second handle on the same file stands for another process (the TUI beside a command-line run).
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	runA, _ := s.CreateRun(ctx, Run{Kind: KindGrade, Set: "A"})
	runB, _ := other.CreateRun(ctx, Run{Kind: KindGrade, Set: "B"})
	const workers, perWorker = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, run := s, runA
			if w%2 == 1 {
				st, run = other, runB
			}
			for i := range perWorker {
				// Each star written twice: the upsert must leave one record.
				for range 2 {
					if err := st.PutOutcome(ctx, outcomeFor(run, fmt.Sprintf("s-%d-%03d", w, i), "hit", 1, 0)); err != nil {
						errs <- err
						return
					}
				}
				if i%10 == 0 { // readers interleave with the writers
					if _, err := st.DoneStars(ctx, run); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, run := range []int64{runA, runB} {
		done, err := s.DoneStars(ctx, run)
		if err != nil {
			t.Fatal(err)
		}
		if len(done) != workers/2*perWorker {
			t.Errorf("run %d: %d stars, want %d", run, len(done), workers/2*perWorker)
		}
	}
}

func TestCorruptDatabase(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("this is not a database ", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(garbage)
	if err == nil || !strings.Contains(err.Error(), garbage) || !strings.Contains(err.Error(), "not a usable results database") ||
		!strings.Contains(err.Error(), "move it aside") {
		t.Errorf("garbage file: %v", err)
	}

	// A real database whose later pages are overwritten: Open may still read the schema, but Check finds
	// the damage.
	s, path := openTemp(t)
	run, _ := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev"})
	for i := range 300 {
		o := outcomeFor(run, fmt.Sprintf("dev-%04d", i), "hit", 1, 0)
		o.StderrTail = strings.Repeat("x", 2000)
		if err := s.PutOutcome(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("healthy database fails its check: %v", err)
	}
	if _, err := s.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// SQLite's default page is 4096 bytes; damage pages 3…end-1, leaving the header page and schema intact.
	for i := 2 * 4096; i < len(raw)-4096; i += 97 {
		raw[i] ^= 0x5a
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatalf("damaged pages beyond the schema stop Open: %v", err)
	}
	defer s2.Close()
	err = s2.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), path) {
		t.Errorf("damaged database passes its check: %v", err)
	}
}

func TestSnapshots(t *testing.T) {
	s, _ := openTemp(t)
	files := json.RawMessage(`[{"path":"solution.py","size":2048,"sha256":"9f86d0"}]`)
	created := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := s.PutSnapshot(ctx, Snapshot{Hash: "h1", Created: created, Files: files}); err != nil {
		t.Fatal(err)
	}
	// Freezing the same content again keeps the first record.
	if err := s.PutSnapshot(ctx, Snapshot{Hash: "h1", Files: json.RawMessage(`[]`)}); err != nil {
		t.Fatal(err)
	}
	runA, _ := s.CreateRun(ctx, Run{Kind: KindGrade, Set: "A", SolutionHash: "h1"})
	if err := s.MarkGraded(ctx, "h1", "A", runA); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkGraded(ctx, "h1", "B", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkGraded(ctx, "h1", "A", runA); err != nil { // a re-grade with --again
		t.Fatal(err)
	}
	snap, err := s.Snapshot(ctx, "h1")
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Created.Equal(created) || string(snap.Files) != string(files) || len(snap.Graded) != 3 ||
		snap.Graded[0].Set != "A" || snap.Graded[0].RunID != runA || snap.Graded[1].RunID != 0 ||
		!snap.GradedOn("B") || snap.GradedOn("dev") || snap.Graded[0].At.IsZero() {
		t.Errorf("snapshot read back as %+v", snap)
	}
	if _, err := s.Snapshot(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing snapshot: %v", err)
	}
	if err := s.MarkGraded(ctx, "nope", "A", 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("grading a missing snapshot: %v", err)
	}
	if err := s.PutSnapshot(ctx, Snapshot{}); err == nil {
		t.Error("snapshot without a hash accepted")
	}
}

func TestFailingStars(t *testing.T) {
	s, _ := openTemp(t)
	// Three dev runs and one baseline run over four stars:
	//   dev-1: missed, missed, missed       → 3 failing runs of 3
	//   dev-2: false (half with a false row), hit, false → 2 of 3
	//   dev-3: hit, missed (only 2 runs)    → 1 of 2
	//   dev-4: hit, hit, hit                → never failing
	// and the baseline misses dev-4, which must not count by default.
	type o struct {
		status string
		credit float64
		falses int
	}
	runs := [][]o{
		{{"missed", 0, 0}, {"half", 0.5, 1}, {"hit", 1, 0}, {"hit", 1, 0}},
		{{"missed", 0, 0}, {"hit", 1, 0}, {"missed", 0, 0}, {"hit", 1, 0}},
		{{"missed", 0, 0}, {"false", 0, 2}, {"", 0, 0}, {"hit", 1, 0}},
	}
	var last int64
	for _, stars := range runs {
		id, _ := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev"})
		for i, x := range stars {
			if x.status == "" {
				continue // dev-3 did not run in this one
			}
			if err := s.PutOutcome(ctx, outcomeFor(id, fmt.Sprintf("dev-%d", i+1), x.status, x.credit, x.falses)); err != nil {
				t.Fatal(err)
			}
		}
		last = id
	}
	base, _ := s.CreateRun(ctx, Run{Kind: KindBaseline, Set: "dev", Label: "empty"})
	for i := 1; i <= 4; i++ {
		if err := s.PutOutcome(ctx, outcomeFor(base, fmt.Sprintf("dev-%d", i), "missed", 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	other, _ := s.CreateRun(ctx, Run{Kind: KindDev, Set: "train"})
	if err := s.PutOutcome(ctx, outcomeFor(other, "dev-4", "missed", 0, 0)); err != nil {
		t.Fatal(err)
	}

	got, err := s.FailingStars(ctx, "dev", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []FailingStar{
		{StarID: "dev-1", Runs: 3, Missed: 3, False: 0, LastRunID: last, LastStatus: "missed"},
		{StarID: "dev-2", Runs: 3, Missed: 0, False: 2, LastRunID: last, LastStatus: "false"},
		{StarID: "dev-3", Runs: 2, Missed: 1, False: 0, LastRunID: last - 1, LastStatus: "missed"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("failing stars:\n got %+v\nwant %+v", got, want)
	}
	top, _ := s.FailingStars(ctx, "dev", 1)
	if len(top) != 1 || top[0].StarID != "dev-1" {
		t.Errorf("top failing star: %+v", top)
	}
	withBase, _ := s.FailingStars(ctx, "dev", 0, KindBaseline)
	if len(withBase) != 4 {
		t.Errorf("baseline failures: %+v, want all 4 stars", withBase)
	}
}

// BenchmarkPutOutcome stores one star's outcome (≈ 2 KiB of stderr, rows and matches JSON) per iteration,
// each in its own transaction, as a run does when a star finishes.
func BenchmarkPutOutcome(b *testing.B) {
	s, _ := openTemp(b)
	run := createRun(b, s, Run{Kind: KindGrade, Set: "A"})
	o := outcomeFor(run, "", "hit", 1, 0)
	o.StderrTail = strings.Repeat("warning: something\n", 100)
	i := 0
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		o.StarID = fmt.Sprintf("a-%07d", i)
		i++
		if err := s.PutOutcome(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	testutil.ReportCPU(b, start)
}

func TestOpenOddPath(t *testing.T) {
	// The path goes into a SQLite URI: spaces, '?', '#' and '%' must be escaped, not taken as URI syntax.
	path := filepath.Join(t.TempDir(), "my data?x=1#frag%20", "results.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRun(ctx, Run{Kind: KindDev, Set: "dev"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the path given: %v", err)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
}
