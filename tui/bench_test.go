package tui

import (
	"context"
	"math"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"transitbench/data/sets"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/workspace/quicklook"
)

// The benchmarks use the real dev set. They build it in a temporary data directory (tens of seconds), or use
// the one in $TRANSITBENCH_HOME when that is set.
var (
	benchSetOnce sync.Once
	benchSet     *sets.Set
	benchSetErr  error
)

func devSet(b *testing.B) *sets.Set {
	benchSetOnce.Do(func() {
		home := os.Getenv("TRANSITBENCH_HOME")
		if home == "" {
			dir, err := os.MkdirTemp("", "transitbench-bench")
			if err != nil {
				benchSetErr = err
				return
			}
			home = dir
		}
		benchSet, benchSetErr = sets.Open(home, sets.Dev, sets.Options{})
	})
	if benchSetErr != nil {
		b.Fatal(benchSetErr)
	}
	return benchSet
}

// benchStars are dev stars of each kind: injected, untouched, EB.
func benchStars(set *sets.Set) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range set.IDs {
		c := set.Answers[id].Category
		if !seen[c] {
			seen[c] = true
			out = append(out, id)
		}
	}
	return out
}

// processCPU returns the CPU time this process has used (user + system), in nanoseconds. The benchmarks report
// it per operation beside the wall time, because on a shared machine the wall time also measures the others.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkOpenStar measures what opening a star costs: materialising its light curve (the set regenerates it
// from its seed), then AnalyseStar (detrending and the star view's BLS search) with GOMAXPROCS workers; the
// sub-benchmarks time the three steps apart.
func BenchmarkOpenStar(b *testing.B) {
	set := devSet(b)
	ids := benchStars(set)
	workers := runtime.GOMAXPROCS(0)
	run := func(b *testing.B, step func(id string)) {
		start := processCPU()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			step(ids[i%len(ids)])
		}
		b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
	// Every iteration of "all" and "load" takes another star of the set, so the set's cache of recently made
	// stars never serves one (the set holds 196; more iterations than that wrap around).
	next := 0
	other := func() string { next++; return set.IDs[next%len(set.IDs)] }
	b.Run("all", func(b *testing.B) {
		run(b, func(string) {
			id := other()
			c, star, err := set.Star(id)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := AnalyseStar(c, star, workers); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("load", func(b *testing.B) {
		run(b, func(string) {
			id := other()
			if _, _, err := set.Star(id); err != nil {
				b.Fatal(err)
			}
		})
	})
	curves := map[string]*lc.LightCurve{}
	for _, id := range ids {
		c, _, err := set.Star(id)
		if err != nil {
			b.Fatal(err)
		}
		curves[id] = c
	}
	b.Run("detrend", func(b *testing.B) {
		run(b, func(id string) { detrend.Flatten(curves[id].Time, curves[id].Flux, detrend.Options{}) })
	})
	b.Run("bls", func(b *testing.B) {
		run(b, func(id string) {
			c := curves[id]
			flat, _ := detrend.Flatten(c.Time, c.Flux, detrend.Options{})
			var t, y []float64
			for i := range flat {
				if c.Quality[i]&lc.DefaultQualityMask == 0 && !math.IsNaN(flat[i]) {
					t, y = append(t, c.Time[i]), append(y, flat[i])
				}
			}
			b.StartTimer()
			if _, _, _, err := quicklook.Search(t, y, nil, nil, workers); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// setBackend is a Backend over a set without a workspace, for the render benchmark.
type setBackend struct {
	fakeBackend
	set *sets.Set
}

func (s *setBackend) LoadStar(ctx context.Context, id string) (*StarData, error) {
	c, star, err := s.set.Star(id)
	if err != nil {
		return nil, err
	}
	d, err := AnalyseStar(c, star, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	a := s.set.Answers[id]
	d.Answer, d.Meta = &a, StarMeta{ID: id, Category: a.Category, Population: a.Population, Scored: a.Scored}
	return d, nil
}

// BenchmarkStarViewRender measures one frame of the star view of a real dev star (an injected planet, folded at
// its truth) at 200×60 and at 80×24: the whole View, panels, plots and help bar.
func BenchmarkStarViewRender(b *testing.B) {
	set := devSet(b)
	id := benchStars(set)[0]
	for _, size := range []struct {
		name string
		w, h int
	}{{"200x60", 200, 60}, {"80x24", 80, 24}} {
		b.Run(size.name, func(b *testing.B) {
			d := newDriver(b, &setBackend{fakeBackend: *newFakeBackend(), set: set}, size.w, size.h)
			d.send(openStarMsg{ids: []string{id}, index: 0})
			if d.m.star.data == nil || d.m.star.fold == nil {
				b.Fatalf("star %s not loaded: %v", id, d.m.star.loadErr)
			}
			d.send(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			start := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = d.m.View()
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
