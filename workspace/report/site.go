package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/workspace"
	"transitbench/workspace/baselines"
)

// Options say where a site's data comes from.
type Options struct {
	// Home is the data directory: its results.db, its dev set and its RV ledger and grade journals.
	Home string
	// Baselines is a ladder table to show beside the gradings ('transitbench baselines --out'); "" shows
	// baselines.Ladder(Home): the data directory's own table, else the one compiled into the program.
	Baselines string
	// Workers is how many star pages are drawn at once (0: GOMAXPROCS, one per core).
	Workers int
	// RVTasks is the folder of the Stargazer tasks ("": stargazer.LocateDir's search), for the RV fit plots.
	RVTasks string
	// Columns is how many columns of time the light curves and folds are thinned to (0: DefaultColumns).
	Columns int
	// Workspace, when set, is the path of the workspace whose runs the site shows (store.Run.Workspace); ""
	// shows every run of the data directory. A run of another workspace has no page.
	Workspace string
	// CacheDir is the folder where what the site drew of each dev star is kept for the next build (cache.go);
	// "": DefaultCacheDir(Home). NoCache draws every star afresh and keeps nothing.
	CacheDir string
	NoCache  bool
	// Scope is the line every page's header shows of whose runs these are (the workspace's path and solution
	// kind, or every workspace).
	Scope string
}

// DefaultColumns is the number of columns a light curve's points are thinned to (folds: half as many): each
// column keeps its lowest and highest points and a few between (figure.ThinXY), so a figure of a year of Kepler
// cadences draws a few thousand points, not 17,000.
const DefaultColumns = 400

// DefaultCacheDir is where the site of the data directory home keeps its drawn stars: home/cache/site.
func DefaultCacheDir(home string) string { return filepath.Join(home, "cache", "site") }

// Site reads what the pages show: the results store, the dev set and the baseline table.
type Site struct {
	opt          Options
	st           *store.Store
	ladder       *baselines.Table
	ladderSource string // where the ladder came from: the file given, or baselines.Ladder's source

	devOnce sync.Once
	dev     *sets.Set
	devErr  error

	rvState

	// searched and prepared count the stars whose light curve was searched, and read and detrended without a
	// search, for a fold the cache did not hold (cache.go).
	searched, prepared atomic.Int64
}

// Open opens the results store of opt.Home (it must exist: a site of a data directory with no runs has nothing
// to show) and reads the baseline table: the file opt.Baselines names, else the data directory's or the
// program's own (baselines.Ladder), never one found in the working directory.
func Open(opt Options) (*Site, error) {
	if opt.Home == "" {
		return nil, errors.New("report: no data directory given")
	}
	if opt.Columns <= 0 {
		opt.Columns = DefaultColumns
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case opt.NoCache:
		opt.CacheDir = ""
	case opt.CacheDir == "":
		opt.CacheDir = DefaultCacheDir(opt.Home)
	}
	db := filepath.Join(opt.Home, store.FileName)
	if _, err := os.Stat(db); err != nil {
		return nil, fmt.Errorf("report: no results database in %s (%w): run 'transitbench dev' or 'grade' first", opt.Home, err)
	}
	st, err := workspace.OpenStore(opt.Home)
	if err != nil {
		return nil, err
	}
	s := &Site{opt: opt, st: st}
	if opt.Baselines != "" {
		s.ladder, err = baselines.ReadTable(opt.Baselines)
		s.ladderSource = opt.Baselines
	} else {
		s.ladder, s.ladderSource, err = baselines.Ladder(opt.Home)
	}
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("report: the baseline ladder: %w", err)
	}
	return s, nil
}

// Close closes the results store.
func (s *Site) Close() error { return s.st.Close() }

// devSet opens the dev set as it was built, once; it builds nothing.
func (s *Site) devSet() (*sets.Set, error) {
	s.devOnce.Do(func() {
		s.dev, s.devErr = sets.Open(s.opt.Home, sets.Dev, sets.Options{AsBuilt: true})
	})
	return s.dev, s.devErr
}

// runs lists the site's runs (Options.Workspace's, or all), newest first.
func (s *Site) runs(ctx context.Context) ([]store.Run, error) {
	return s.st.Runs(ctx, store.RunFilter{Workspace: s.opt.Workspace})
}

// run returns run id when it is one of the site's runs; a run of another workspace is not found.
func (s *Site) run(ctx context.Context, id int64) (store.Run, error) {
	r, err := s.st.Run(ctx, id)
	if err == nil && s.opt.Workspace != "" && r.Workspace != s.opt.Workspace {
		return store.Run{}, fmt.Errorf("run %d belongs to another workspace: %w", id, store.ErrNotFound)
	}
	return r, err
}
