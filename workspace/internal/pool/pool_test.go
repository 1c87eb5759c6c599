package pool

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestEachCallsEveryIndexOnce runs 1000 indices on 4 goroutines: every index is called once, after sees the
// counts 1…n each once, and no call overlaps another's after.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	const n = 1000
	calls := make([]int32, n)
	seen := make([]bool, n+1)
	var inAfter atomic.Int32
	Each(context.Background(), n, 4, func(i int) { atomic.AddInt32(&calls[i], 1) }, func(i, done int) {
		if inAfter.Add(1) != 1 {
			t.Error("two calls of after at once")
		}
		if calls[i] != 1 || done < 1 || done > n || seen[done] {
			t.Errorf("after(%d, %d): %d calls of the index, count seen before %v", i, done, calls[i], seen[done])
		}
		seen[done] = true
		inAfter.Add(-1)
	})
	for i, c := range calls {
		if c != 1 {
			t.Fatalf("index %d called %d times", i, c)
		}
	}
}

// TestEachStopsHandingOut cancels the context from the fifth of 1000 calls: Each returns with every call it
// started finished, having started only a few more (a select between handing out and the ended context picks
// at random while a goroutine waits, so each further call is a coin toss).
func TestEachStopsHandingOut(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started atomic.Int32
	Each(ctx, 1000, 2, func(i int) {
		if started.Add(1) == 5 {
			cancel()
		}
	}, nil)
	if s := started.Load(); s < 5 || s > 100 {
		t.Errorf("%d calls started after cancelling at the fifth, want 5 to 100", s)
	}
}
