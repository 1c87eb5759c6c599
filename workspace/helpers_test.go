package workspace

import (
	"context"
	"testing"

	"transitbench/data/sets"
	"transitbench/grader/store"
)

// devInterrupted makes a dev run of ws with opt, cancelling it once an event reports n stars done, and returns
// what Dev returned.
func devInterrupted(ws *Workspace, opt RunOptions, n int) (*Report, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, stop := watchEvents(func(ev Event) {
		if ev.Done == n {
			cancel()
		}
	})
	rep, err := ws.Dev(ctx, opt, events)
	stop()
	return rep, err
}

// oracleWorkspace makes a test workspace whose solution prints the answers of the small dev set, and returns
// it, its home and that set.
func oracleWorkspace(t *testing.T) (*Workspace, string, *sets.Set) {
	t.Helper()
	ws, home := newTestWorkspace(t)
	set, err := openSmall(home, sets.Dev)
	if err != nil {
		t.Fatal(err)
	}
	oracleSolution(t, ws.SolutionDir(), set.Answers)
	return ws, home, set
}

// openTestStore opens the store of home, failing the test when it cannot; the caller closes it.
func openTestStore(t *testing.T, home string) *store.Store {
	t.Helper()
	st, err := OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// watchEvents starts a reader that hands each event to see, in order. stop closes the channel and waits until
// the reader has seen every event sent on it.
func watchEvents(see func(Event)) (events chan Event, stop func()) {
	events = make(chan Event)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			see(ev)
		}
	}()
	return events, func() {
		close(events)
		<-done
	}
}
