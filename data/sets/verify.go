package sets

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// Verify regenerates (or, for an imported set, re-reads) every star, bypassing the cache, of the set and checks it against the
// digest recorded at build time, on workers goroutines (0 means GOMAXPROCS). It returns the ids of the stars
// that differ, in id order; a non-nil error means the check could not finish (ctx cancelled, a star failed to
// generate). An empty list proves that this machine and program reproduce the set, and so its fingerprint.
func (s *Set) Verify(ctx context.Context, workers int, progress func(Progress)) (differ []string, err error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	type result struct {
		i   int
		err error
	}
	jobs := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range min(workers, len(s.IDs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, err := s.fresh(s.IDs[i])
				if err == nil {
					_, _, err = s.checkedBytes(s.IDs[i], r)
				}
				results <- result{i, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range s.IDs {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	bad := make([]bool, len(s.IDs))
	done := 0
	for r := range results {
		done++
		switch {
		case errors.Is(r.err, ErrMismatch):
			bad[r.i] = true
		case r.err != nil && err == nil:
			err = r.err
		}
		if progress != nil {
			progress(Progress{Set: s.Name, Done: done, Total: len(s.IDs)})
		}
	}
	for i, b := range bad {
		if b {
			differ = append(differ, s.IDs[i])
		}
	}
	if err == nil && done < len(s.IDs) {
		err = ctx.Err()
	}
	return differ, err
}
