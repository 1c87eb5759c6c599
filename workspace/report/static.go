package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"transitbench/grader/store"
)

// BuildResult says what Build wrote.
type BuildResult struct {
	Dir     string  `json:"dir"`
	Pages   int     `json:"pages"`
	Stars   int     `json:"star_pages"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
}

// Build writes the whole site into dir (created if needed; pages already there are replaced): index.html (the
// leaderboard and the runs), run-N.html per run, compare-A-B.html per run beside the one before it on the same
// public set, star-ID.html per dev star of a public run, rv.html and rv-NAME.html per RV run. The star pages,
// most of the work (a star's search and folds, about 0.3 CPU-seconds when the cache does not hold them), are
// drawn by Options.Workers goroutines while the other pages are written. progress, when set, is told of each
// star page written.
func (s *Site) Build(ctx context.Context, dir string, progress func(done, total int)) (*BuildResult, error) {
	start := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	res := &BuildResult{Dir: dir}
	var mu sync.Mutex // guards res
	write := func(name string, fill func(*bytes.Buffer) error) error {
		var b bytes.Buffer
		if err := fill(&b); err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return err
		}
		mu.Lock()
		res.Pages++
		res.Bytes += int64(b.Len())
		mu.Unlock()
		return nil
	}
	runs, err := s.runs(ctx)
	if err != nil {
		return nil, err
	}
	stars := map[string]bool{}
	for _, r := range runs {
		if err := s.pagedStars(ctx, r, stars); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	starsDone := make(chan error, 1)
	go func() { starsDone <- s.buildStars(ctx, sortedKeys(stars), write, progress) }()
	err = s.writePages(ctx, runs, write)
	if err != nil {
		cancel()
	}
	if serr := <-starsDone; err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	res.Stars = len(stars)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// writePages writes every page but the star pages.
func (s *Site) writePages(ctx context.Context, runs []store.Run, write func(string, func(*bytes.Buffer) error) error) error {
	if err := write("index.html", func(b *bytes.Buffer) error { return s.writeBoard(ctx, b, false) }); err != nil {
		return err
	}
	if err := write("rv.html", func(b *bytes.Buffer) error { return s.writeRV(ctx, b, false) }); err != nil {
		return err
	}
	rvRuns, err := s.rvRuns()
	if err != nil {
		return err
	}
	for _, r := range rvRuns {
		if err := write(r.Href(), func(b *bytes.Buffer) error { return s.writeRVRun(ctx, b, r.Name, false) }); err != nil {
			return err
		}
	}
	for _, r := range runs {
		if err := write(runHref(r.ID), func(b *bytes.Buffer) error { return s.writeRun(ctx, b, r.ID, false) }); err != nil {
			return err
		}
	}
	for _, c := range comparePairs(runs) {
		if err := write(compareHref(c.a, c.b), func(b *bytes.Buffer) error { return s.writeCompare(ctx, b, c.a, c.b, false) }); err != nil {
			return err
		}
	}
	return nil
}

// pagedStars adds the stars of run r that get a page.
func (s *Site) pagedStars(ctx context.Context, r store.Run, stars map[string]bool) error {
	if !public(r) || r.Set != "dev" {
		return nil
	}
	done, err := s.st.DoneStars(ctx, r.ID)
	if err != nil {
		return err
	}
	for id := range done {
		if starPaged(r, id) {
			stars[id] = true
		}
	}
	return nil
}

// buildStars writes the star pages with s.opt.Workers at once; progress is told of each page in turn.
func (s *Site) buildStars(ctx context.Context, ids []string, write func(string, func(*bytes.Buffer) error) error,
	progress func(done, total int)) error {
	var mu sync.Mutex
	var firstErr error
	done := 0
	work := make(chan string)
	var wg sync.WaitGroup
	for range s.opt.Workers {
		wg.Go(func() {
			for id := range work {
				err := write(starHref(id), func(b *bytes.Buffer) error { return s.writeStar(ctx, b, id, false) })
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done++
				if progress != nil {
					progress(done, len(ids))
				}
				mu.Unlock()
			}
		})
	}
	for _, id := range ids {
		if ctx.Err() != nil {
			break
		}
		work <- id
	}
	close(work)
	wg.Wait()
	return errors.Join(firstErr, ctx.Err())
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
