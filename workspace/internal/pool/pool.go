package pool

import (
	"context"
	"sync"
)

// Each calls do(i) for i = 0…n−1 from workers goroutines (at least one) and returns once every call started has
// returned. When ctx ends no further index is handed out; the calls already started finish. after, when not
// nil, is called after each call with its index and the number of calls done so far, from one goroutine at a
// time and by the goroutine that made the call.
func Each(ctx context.Context, n, workers int, do func(i int), after func(i, done int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				do(i)
				mu.Lock()
				done++
				if after != nil {
					after(i, done)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}
