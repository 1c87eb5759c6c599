package report

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// generated is the footer line that dates a written page: the one part of a page that differs between builds.
var generated = regexp.MustCompile(`Written from the results store [^.]*\.`)

// starPages reads the star pages of a written site, by file name, without their date.
func starPages(t *testing.T, dir string) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "star-*.html"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no star pages in %s (%v)", dir, err)
	}
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = generated.ReplaceAllString(string(b), "")
	}
	return out
}

// TestStarCache builds the fixture's site without the cache, then with an empty cache (every star searched once),
// again (nothing searched or read), and after a star's folds are dropped from its entry (that star read and
// detrended once, not searched): every build writes the same star pages, byte for byte but the date.
func TestStarCache(t *testing.T) {
	f := sharedFixture(t)
	ctx := context.Background()
	build := func(opt Options) (*Site, map[string]string) {
		t.Helper()
		opt.Home, opt.Baselines = f.home, filepath.Join("..", "..", "results", "baselines.json")
		site, err := Open(opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { site.Close() })
		out := t.TempDir()
		if _, err := site.Build(ctx, out, nil); err != nil {
			t.Fatal(err)
		}
		return site, starPages(t, out)
	}
	fresh, want := build(Options{NoCache: true})
	n := int64(len(want))
	if fresh.searched.Load() != n || fresh.prepared.Load() != 0 {
		t.Errorf("without the cache: %d stars searched, %d prepared; want %d, 0", fresh.searched.Load(), fresh.prepared.Load(), n)
	}
	cache := t.TempDir()
	same := func(what string, got map[string]string) {
		t.Helper()
		for name, page := range want {
			if got[name] != page {
				t.Errorf("%s: %s differs from the page drawn without the cache", what, name)
			}
		}
	}
	cold, got := build(Options{CacheDir: cache})
	same("empty cache", got)
	if cold.searched.Load() != n {
		t.Errorf("empty cache: %d stars searched, want %d", cold.searched.Load(), n)
	}
	warm, got := build(Options{CacheDir: cache})
	same("full cache", got)
	if warm.searched.Load() != 0 || warm.prepared.Load() != 0 {
		t.Errorf("full cache: %d stars searched, %d read; want none", warm.searched.Load(), warm.prepared.Load())
	}

	entries, _ := filepath.Glob(filepath.Join(cache, "dev-*.gob"))
	if int64(len(entries)) != n {
		t.Fatalf("%d cache entries, want one per star page (%d)", len(entries), n)
	}
	id := strings.TrimSuffix(filepath.Base(entries[0]), ".gob")
	edit := func(change func(*starCache)) { // rewrites star id's entry as saveCache writes it
		t.Helper()
		c := warm.loadCache(id, warm.cacheKeyOf(id))
		if len(c.Folds) == 0 || len(c.Overview) != 2 {
			t.Fatalf("the entry of %s holds %d overview figures and %d folds", id, len(c.Overview), len(c.Folds))
		}
		change(c)
		c.changed = true
		warm.saveCache(id, c)
	}
	edit(func(c *starCache) { c.Folds = nil }) // as if the latest run had brought new rows
	partial, got := build(Options{CacheDir: cache})
	same("folds dropped", got)
	if partial.searched.Load() != 0 || partial.prepared.Load() != 1 {
		t.Errorf("one star's folds dropped: %d stars searched, %d read; want 0, 1", partial.searched.Load(), partial.prepared.Load())
	}

	edit(func(c *starCache) { c.Key.Program = "another program" })
	stale, got := build(Options{CacheDir: cache})
	same("an entry of another program", got)
	if stale.searched.Load() != 1 {
		t.Errorf("an entry of another program: %d stars searched, want that one", stale.searched.Load())
	}
}
