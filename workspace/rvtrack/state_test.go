package rvtrack

import (
	"errors"
	"os"
	"testing"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
)

// easyTask is a task of the Easy tier (600 s, 3 submissions) as far as State reads it.
var easyTask = &stargazer.Task{TaskID: "task", TruthDifficulty: 1}

// TestLookingStartsNothing: Show and State on a task not started answer "not started" and write nothing; only
// Start starts the clock, and Show then answers the start.
func TestLookingStartsNothing(t *testing.T) {
	path := ledgerIn(t)
	c := newClock()
	err := withClock(path, c, func(l *Ledger) error {
		if _, err := l.Show("task"); !errors.Is(err, ErrNotStarted) {
			t.Errorf("Show of a task not started: %v, want ErrNotStarted", err)
		}
		if st := l.State(easyTask); st.State != StateNotStarted || st.SecondsLeft != 600 || !st.Deadline.IsZero() || st.SubmissionsLeft != 3 {
			t.Errorf("state of a task not started: %+v", st)
		}
		if _, err := l.DryRun(easyTask, nil, 0, nil); !errors.Is(err, ErrNotStarted) {
			t.Errorf("dry run of a task not started: %v, want ErrNotStarted", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("looking at a task wrote the ledger: %v", err)
	}
	var started = c.t
	if err := withClock(path, c, func(l *Ledger) error { _, err := l.Start("task"); return err }); err != nil {
		t.Fatal(err)
	}
	c.advance(60)
	l, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Clock = c.now
	if got, err := l.Show("task"); err != nil || !got.Equal(started) {
		t.Errorf("Show after Start: %v %v, want %v", got, err, started)
	}
	if st := l.State(easyTask); st.State != StateRunning || st.SecondsLeft != 540 || !st.Started.Equal(started) || st.Text() != "running: 9:00 left" {
		t.Errorf("state 60 s after the start: %+v (%s)", st, st.Text())
	}
}

// TestTaskStates walks a task through its states: expired once its 600 s are past, passed when a submission
// within budget passed (whatever the clock says after), out of submissions when all failed.
func TestTaskStates(t *testing.T) {
	path := ledgerIn(t)
	c := newClock()
	state := func() TaskState {
		t.Helper()
		l, err := OpenLedger(path)
		if err != nil {
			t.Fatal(err)
		}
		l.Clock = c.now
		return l.State(easyTask)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(withClock(path, c, func(l *Ledger) error { _, err := l.Start("task"); return err }))
	c.advance(601)
	if st := state(); st.State != StateExpired || st.SecondsLeft != 0 || st.Text() != "expired" {
		t.Errorf("601 s after the start: %+v (%s)", st, st.Text())
	}
	// A task that passed within budget stays passed after its time runs out.
	other := ledgerIn(t)
	must(withClock(other, c, func(l *Ledger) error { _, err := l.Add("task", easy, passing(), nil); return err }))
	c.advance(1000)
	l, err := OpenLedger(other)
	must(err)
	l.Clock = c.now
	if st := l.State(easyTask); st.State != StatePassed || st.SubmissionsLeft != 2 {
		t.Errorf("passed task: %+v", st)
	}
	// Three failing submissions spend the task.
	for range 3 {
		must(withClock(path, c, func(l *Ledger) error { _, err := l.Add("task", easy, rvgate.Result{}, nil); return err }))
	}
	if st := state(); st.State != StateSpent || st.SubmissionsLeft != 0 || st.Text() != "failed: no submissions left" {
		t.Errorf("after three failing submissions: %+v (%s)", st, st.Text())
	}
	if st := (&Ledger{}).State(&stargazer.Task{TaskID: "mine", Imported: true}); st.State != StateImported {
		t.Errorf("imported task: %+v", st)
	}
}

// TestClock checks the clock's formats: m:ss under an hour, h:mm:ss from an hour, a second left shown as
// 0:01 until it is spent, then "expired".
func TestClock(t *testing.T) {
	for _, c := range []struct {
		left float64
		want string
	}{{900, "15:00"}, {59.2, "1:00"}, {0.4, "0:01"}, {0, "expired"}, {-3, "expired"}, {3725, "1:02:05"}} {
		if got := Clock(c.left); got != c.want {
			t.Errorf("Clock(%g) = %q, want %q", c.left, got, c.want)
		}
	}
}
