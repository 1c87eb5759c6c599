//go:build linux

package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/sets"
	"transitbench/workspace"
)

// SiteBudgetBytes is what the site of a full dev run may weigh: 20 MB for the 196 dev stars' pages and every
// other page, so about 102 kB a star.
const SiteBudgetBytes = 20e6

// TestSiteSizeBudget checks the fixture's site (20 dev star pages with two dev runs, a grading and a
// baseline) against the budget per star: total bytes ≤ stars × 20 MB / 196.
func TestSiteSizeBudget(t *testing.T) {
	f := sharedFixture(t)
	budget := float64(f.built.Stars) * SiteBudgetBytes / 196
	if f.built.Stars == 0 || float64(f.built.Bytes) > budget {
		t.Errorf("the site of %d star pages weighs %d bytes, over the budget of %.0f (20 MB for 196 stars)",
			f.built.Stars, f.built.Bytes, budget)
	}
}

// devRunHome makes a data directory holding a dev set of n stars in the dev set's proportions (78 injected,
// 69 untouched, 29 eclipsing binaries, 20 confirmed hosts of 196) and one dev run of a solution that claims
// every planet at its truth and one false row on every star, as the site of a contestant's dev run has them:
// a star page folds at the row, the truth and the strongest peak.
func devRunHome(b *testing.B, n int) string {
	b.Helper()
	base := b.TempDir()
	home := filepath.Join(base, "home")
	scale := func(k int) int { return max(k*n/196, 1) }
	c := sets.Composition{Injected: scale(78), Untouched: scale(69), EB: scale(29), Confirmed: scale(20)}
	c.Untouched += n - (c.Injected + c.Untouched + c.EB + c.Confirmed)
	comp := map[string]sets.Composition{sets.Dev: c}
	ws, err := workspace.Init(filepath.Join(base, "ws"), workspace.InitOptions{Home: home, Lang: "python", Compositions: comp})
	if err != nil {
		b.Fatal(err)
	}
	dev, err := sets.Open(home, sets.Dev, sets.Options{Composition: &c})
	if err != nil {
		b.Fatal(err)
	}
	if err := oracle(ws.SolutionDir(), "", dev.Answers, 2); err != nil {
		b.Fatal(err)
	}
	if _, err := ws.Dev(context.Background(), workspace.RunOptions{Home: home, Workers: 2, Compositions: comp}, nil); err != nil {
		b.Fatal(err)
	}
	return home
}

// BenchmarkBuildDevRun writes the site of one dev run in size tiers of dev stars (196: a full dev run), with an
// empty star cache (cache=cold: every star searched and folded, as the first build of a data directory), with
// the cache a build before left but without the folds at the run's rows (cache=rows: a rebuild after a dev run
// that changed every star's rows; the stars are read and their rows folded, not searched), and with the whole
// cache (cache=warm: a rebuild after nothing changed). It reports the site's weight (MB/site, kB/star) and the
// CPU seconds per build, and fails over the size budget.
func BenchmarkBuildDevRun(b *testing.B) {
	for _, n := range []int{20, 196} {
		b.Run(fmt.Sprintf("stars=%d", n), func(b *testing.B) {
			home := devRunHome(b, n)
			for _, c := range []string{"cold", "rows", "warm"} {
				b.Run("cache="+c, func(b *testing.B) { benchmarkBuild(b, home, n, c) })
			}
		})
	}
}

// benchmarkBuild times the site's build of home, whose dev run ran n stars, with the star cache as
// BenchmarkBuildDevRun says of cache (cold, rows, warm). The full cache is drawn once per data directory and
// copied before each build.
func benchmarkBuild(b *testing.B, home string, n int, cache string) {
	dir := b.TempDir()
	site, err := Open(Options{Home: home, CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer site.Close()
	var res *BuildResult
	var cpu float64
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		site.opt.CacheDir = filepath.Join(dir, fmt.Sprint(i))
		if cache != "cold" {
			if err := os.CopyFS(site.opt.CacheDir, os.DirFS(filledCache(b, home))); err != nil {
				b.Fatal(err)
			}
		}
		if cache == "rows" {
			dropRowFolds(b, site)
		}
		cpu0 := cpuSeconds()
		b.StartTimer()
		if res, err = site.Build(context.Background(), filepath.Join(b.TempDir(), fmt.Sprint(i)), nil); err != nil {
			b.Fatal(err)
		}
		cpu += cpuSeconds() - cpu0
	}
	if res.Stars != n {
		b.Fatalf("%d star pages, want %d", res.Stars, n)
	}
	b.ReportMetric(float64(res.Bytes)/1e6, "MB/site")
	b.ReportMetric(float64(res.Bytes)/1e3/float64(n), "kB/star")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	if float64(res.Bytes) > float64(n)*SiteBudgetBytes/196 {
		b.Fatalf("the site of %d stars weighs %.1f MB, over %.1f MB", n, float64(res.Bytes)/1e6, float64(n)*SiteBudgetBytes/196/1e6)
	}
}

// filled are the full star caches drawn by filledCache, by data directory.
var filled = map[string]string{}

// filledCache returns a folder holding the full star cache of home's site, drawing it the first time.
func filledCache(b *testing.B, home string) string {
	b.Helper()
	if dir, ok := filled[home]; ok {
		return dir
	}
	dir := filepath.Join(filepath.Dir(home), "filled-cache")
	site, err := Open(Options{Home: home, CacheDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer site.Close()
	if _, err := site.Build(context.Background(), b.TempDir(), nil); err != nil {
		b.Fatal(err)
	}
	filled[home] = dir
	return dir
}

// dropRowFolds removes from every star's cache entry the folds at the rows of a run ("row 1", "row 1 = truth"):
// what a dev run that changed every star's rows leaves the next build to draw.
func dropRowFolds(b *testing.B, site *Site) {
	b.Helper()
	entries, err := filepath.Glob(filepath.Join(site.opt.CacheDir, "*.gob"))
	if err != nil || len(entries) == 0 {
		b.Fatalf("no cache entries in %s (%v)", site.opt.CacheDir, err)
	}
	for _, e := range entries {
		id := strings.TrimSuffix(filepath.Base(e), ".gob")
		c := site.loadCache(id, site.cacheKeyOf(id))
		kept := c.Folds[:0]
		for _, f := range c.Folds {
			if !strings.HasPrefix(f.Eph, "row ") {
				kept = append(kept, f)
			}
		}
		c.Folds, c.changed = kept, true
		site.saveCache(id, c)
	}
}
