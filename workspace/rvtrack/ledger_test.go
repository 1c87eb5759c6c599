package rvtrack

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/internal/testutil"
)

// easy is the Easy tier's budget: 200k tokens, 600 s, 3 submissions (SPEC B1).
var easy = stargazer.BudgetFor(stargazer.TierEasy)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func newClock() *fakeClock          { return &fakeClock{time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }
func (c *fakeClock) now() time.Time { return c.t }
func (c *fakeClock) advance(seconds float64) {
	c.t = c.t.Add(time.Duration(seconds * float64(time.Second)))
}

// withClock is WithLedger with the ledger's clock replaced by c.
func withClock(path string, c *fakeClock, fn func(*Ledger) error) error {
	return WithLedger(path, func(l *Ledger) error { l.Clock = c.now; return fn(l) })
}

func intPtr(n int) *int            { return &n }
func ledgerIn(t *testing.T) string { return filepath.Join(t.TempDir(), "rv", "submissions.json") }

// passing is a gate result that passes all four criteria.
func passing() rvgate.Result {
	r := rvgate.Result{Passed: true, OKMatch: true, OKCount: true}
	r.OKRMS, r.OKDeltaBIC = true, true
	return r
}

func TestLedgerBudget(t *testing.T) {
	path := ledgerIn(t)
	err := WithLedger(path, func(l *Ledger) error {
		for i := range 3 {
			if _, err := l.Add("seedX", easy, rvgate.Result{Passed: i == 1}, nil); err != nil {
				return err
			}
		}
		if _, err := l.Add("seedX", easy, rvgate.Result{}, nil); !errors.Is(err, ErrBudgetSpent) {
			t.Errorf("fourth submission on a budget of 3: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	if l2.Used("seedX") != 3 || !l2.Passed("seedX") || l2.Used("other") != 0 {
		t.Errorf("reopened ledger: used %d passed %v", l2.Used("seedX"), l2.Passed("seedX"))
	}
}

// TestLedgerReadOnly: a ledger from OpenLedger is a snapshot; changing it fails and writes nothing.
func TestLedgerReadOnly(t *testing.T) {
	path := ledgerIn(t)
	l, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add("seedX", easy, rvgate.Result{}, nil); err == nil {
		t.Error("Add on a snapshot succeeded")
	}
	if _, err := l.Start("seedX"); err == nil {
		t.Error("Start on a snapshot succeeded")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a snapshot wrote the ledger: %v", err)
	}
}

// TestLedgerClock opens a task, submits inside and after its time budget, and declares tokens: late or
// over-token submissions are recorded but never make the task passed.
func TestLedgerClock(t *testing.T) {
	path := ledgerIn(t)
	c := newClock()
	opened := c.t
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(withClock(path, c, func(l *Ledger) error {
		_, err := l.Start("task")
		return err
	}))
	c.advance(100)
	// Starting again does not restart the clock.
	must(withClock(path, c, func(l *Ledger) error {
		start, err := l.Start("task")
		if !start.Equal(opened) {
			t.Errorf("second Start moved the clock to %v", start)
		}
		return err
	}))
	c.advance(150.25)
	must(withClock(path, c, func(l *Ledger) error {
		rec, err := l.Add("task", easy, rvgate.Result{}, intPtr(50_000))
		if rec.ElapsedSeconds != 250.25 || !rec.WithinBudget || *rec.TokensUsed != 50_000 {
			t.Errorf("first submission: %+v", rec)
		}
		return err
	}))
	// A passing submission declaring more tokens than the tier allows.
	must(withClock(path, c, func(l *Ledger) error {
		rec, err := l.Add("task", easy, passing(), intPtr(200_001))
		if rec.WithinBudget || !rec.Passed {
			t.Errorf("over-token submission: %+v", rec)
		}
		if l.Passed("task") {
			t.Error("an over-token pass made the task passed")
		}
		if st := rec.Status(easy); !slices.Equal(st.OverBudget, []string{"tokens"}) {
			t.Errorf("over-token status: %+v", st)
		}
		return err
	}))
	// 700 s after opening: past the Easy tier's 600 s.
	c.advance(700 - 250.25)
	must(withClock(path, c, func(l *Ledger) error {
		if st := l.Status("task", easy, nil); st.WithinBudget || st.SecondsLeft != 0 || st.ElapsedSeconds != 700 {
			t.Errorf("status at 700 s: %+v", st)
		}
		rec, err := l.Add("task", easy, passing(), nil)
		if rec.WithinBudget || rec.ElapsedSeconds != 700 || !rec.Passed {
			t.Errorf("late submission: %+v", rec)
		}
		return err
	}))
	l, err := OpenLedger(path)
	must(err)
	if l.Used("task") != 3 || l.Passed("task") {
		t.Errorf("used %d, passed %v; want 3 submissions and not passed", l.Used("task"), l.Passed("task"))
	}
	if start, ok := l.StartTime("task"); !ok || !start.Equal(opened) {
		t.Errorf("start %v %v, want %v", start, ok, opened)
	}
}

// TestLedgerClockStartsAtFirstSubmission: a task never opened starts its clock at its first submission.
func TestLedgerClockStartsAtFirstSubmission(t *testing.T) {
	path := ledgerIn(t)
	c := newClock()
	first := c.t
	err := withClock(path, c, func(l *Ledger) error {
		if st := l.Status("task", easy, nil); st.ElapsedSeconds != 0 || st.SecondsLeft != 600 {
			t.Errorf("status of an unopened task: %+v", st)
		}
		rec, err := l.Add("task", easy, passing(), nil)
		if rec.ElapsedSeconds != 0 || !rec.WithinBudget {
			t.Errorf("first submission: %+v", rec)
		}
		c.advance(599)
		rec2, err2 := l.Add("task", easy, rvgate.Result{}, nil)
		if rec2.ElapsedSeconds != 599 || !rec2.WithinBudget {
			t.Errorf("second submission: %+v", rec2)
		}
		return errors.Join(err, err2)
	})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := OpenLedger(path)
	if start, ok := l.StartTime("task"); !ok || !start.Equal(first) || !l.Passed("task") {
		t.Errorf("start %v %v, passed %v", start, ok, l.Passed("task"))
	}
}

// TestLedgerOldFormat reads a ledger written before the clock: no "started", no "within_budget".
func TestLedgerOldFormat(t *testing.T) {
	path := ledgerIn(t)
	old := `{
  "tasks": {
    "seed1108_diff2": [
      {"time": "2026-03-01T12:00:00Z", "passed": false, "ok_rms": true, "ok_delta_bic": true, "ok_match": false,
       "ok_count": true, "rms_ms": 3.1, "delta_bic_per_point": 0.4, "match_score": 0.2, "n_planets": 1},
      {"time": "2026-03-01T12:05:00Z", "passed": true, "ok_rms": true, "ok_delta_bic": true, "ok_match": true,
       "ok_count": true, "rms_ms": 2.9, "delta_bic_per_point": 0.5, "match_score": 0.9, "n_planets": 1}
    ]
  }
}`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if start, ok := l.StartTime("seed1108_diff2"); !ok || !start.Equal(first) {
		t.Errorf("start of an old task %v %v, want its first submission %v", start, ok, first)
	}
	if !l.Passed("seed1108_diff2") || l.Used("seed1108_diff2") != 2 || !l.Tasks["seed1108_diff2"][1].WithinBudget {
		t.Errorf("old records: %+v", l.Tasks["seed1108_diff2"])
	}
	// The third submission, 650 s after the first, is over the Easy time budget; the earlier pass stands.
	c := &fakeClock{first.Add(650 * time.Second)}
	err = withClock(path, c, func(l *Ledger) error {
		rec, err := l.Add("seed1108_diff2", easy, rvgate.Result{}, nil)
		if rec.WithinBudget || rec.ElapsedSeconds != 650 {
			t.Errorf("third submission: %+v", rec)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err = OpenLedger(path)
	if err != nil || l.Used("seed1108_diff2") != 3 || !l.Passed("seed1108_diff2") {
		t.Errorf("after the third submission: %v, %+v", err, l)
	}
}

// submitOnce is what a concurrent submitter does: check, grade (here: a result that fails), record.
func submitOnce(path, task string, b stargazer.Budget) error {
	return WithLedger(path, func(l *Ledger) error {
		if err := l.Check(task, b.Submissions); err != nil {
			return err
		}
		_, err := l.Add(task, b, rvgate.Result{}, nil)
		return err
	})
}

// checkLedgerFile reads the ledger file as plain JSON and returns the number of records of task.
func checkLedgerFile(t *testing.T, path, task string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Tasks map[string][]json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("the ledger is not valid JSON: %v\n%s", err, b)
	}
	return len(v.Tasks[task])
}

// TestLedgerConcurrentGoroutines: 24 goroutines submit at once to a task with 10 submissions (the Hard
// budget); exactly 10 are recorded and the other 14 are refused.
func TestLedgerConcurrentGoroutines(t *testing.T) {
	path := ledgerIn(t)
	hard := stargazer.BudgetFor(stargazer.TierHard)
	var wg sync.WaitGroup
	errs := make([]error, 24)
	for i := range errs {
		wg.Go(func() { errs[i] = submitOnce(path, "task", hard) })
	}
	wg.Wait()
	ok, spent := testutil.CountErrors(t, errs, ErrBudgetSpent)
	if ok != hard.Submissions || spent != len(errs)-hard.Submissions {
		t.Errorf("%d recorded, %d refused; want %d and %d", ok, spent, hard.Submissions, len(errs)-hard.Submissions)
	}
	if n := checkLedgerFile(t, path, "task"); n != hard.Submissions {
		t.Errorf("the ledger holds %d submissions, want %d", n, hard.Submissions)
	}
}

// TestLedgerConcurrentProcesses runs 6 processes (this test binary, re-executed as the helper below), each
// submitting 4 times as fast as it can to one task with a budget of 10: exactly 10 submissions are recorded,
// the other 14 refused with ErrBudgetSpent, and the file stays valid JSON.
func TestLedgerConcurrentProcesses(t *testing.T) {
	path := ledgerIn(t)
	const procs, each = 6, 4
	var wg sync.WaitGroup
	outs := make([]string, procs)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLedgerSubmitter$")
		cmd.Env = append(os.Environ(), "RV_LEDGER_HELPER="+path, "RV_LEDGER_HELPER_N="+strconv.Itoa(each))
		wg.Go(func() {
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("submitter %d: %v", i, err)
			}
			outs[i] = string(out)
		})
	}
	wg.Wait()
	counts := map[string]int{}
	for _, out := range outs {
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "submit" {
				counts[f[1]]++
			}
		}
	}
	if counts["ok"] != 10 || counts["spent"] != procs*each-10 || len(counts) != 2 {
		t.Errorf("outcomes %v; want 10 ok and %d spent", counts, procs*each-10)
	}
	if n := checkLedgerFile(t, path, "task"); n != 10 {
		t.Errorf("the ledger holds %d submissions, want 10", n)
	}
}

// TestHelperLedgerSubmitter is the child of TestLedgerConcurrentProcesses; it does nothing in a normal run.
func TestHelperLedgerSubmitter(t *testing.T) {
	path := os.Getenv("RV_LEDGER_HELPER")
	if path == "" {
		t.Skip("helper process of TestLedgerConcurrentProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("RV_LEDGER_HELPER_N"))
	b := stargazer.Budget{Tokens: 1, Seconds: 3600, Submissions: 10}
	for range n {
		switch err := submitOnce(path, "task", b); {
		case err == nil:
			fmt.Println("submit ok")
		case errors.Is(err, ErrBudgetSpent):
			fmt.Println("submit spent")
		default:
			fmt.Println("submit error:", err)
		}
	}
}
