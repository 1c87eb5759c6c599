package report

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/internal/testsets"
	"transitbench/sandbox"
	"transitbench/workspace"
	"transitbench/workspace/baselines"
)

// TestMain lets the test binary serve as the sandbox's child process, as cmd/transitbench's main does.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain()
	}
	code := m.Run()
	if fix.base != "" {
		os.RemoveAll(fix.base)
	}
	os.Exit(code)
}

// testSets are small compositions: a dev set of 20 stars and hidden sets of 8, so that a grading takes seconds.
var testSets = map[string]sets.Composition{
	sets.Dev: {Injected: 10, Untouched: 5, EB: 3, Confirmed: 2},
	sets.A:   {Injected: 3, Untouched: 2, EB: 2, Confirmed: 1},
	sets.B:   {Injected: 3, Untouched: 2, EB: 2, Confirmed: 1},
}

// stderrMark is what the test's solution writes to stderr on every star, before the star's id.
const stderrMark = "SITE-STDERR-MARK-"

// fixture is the data directory the tests share: two dev runs of 20 stars (the second finds fewer planets), a
// grading (A, B and dev) and the empty baseline on five dev stars; and the static site built from it.
type fixture struct {
	once    sync.Once
	err     error
	base    string
	home    string
	out     string
	answers map[string]map[string]data.Answer
	devRuns []int64
	grade   *workspace.GradeReport
	built   *BuildResult
}

var fix fixture

// sharedFixture makes the fixture once for every test of the package.
func sharedFixture(t *testing.T) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a solution on 20 dev stars, grades it and draws 20 star pages: not in -short mode")
	}
	fix.once.Do(func() { fix.err = fix.make() })
	if fix.err != nil {
		t.Fatal(fix.err)
	}
	return &fix
}

func (f *fixture) make() error {
	var err error
	if f.base, err = os.MkdirTemp("", "transitbench-site-"); err != nil {
		return err
	}
	f.home, f.out = filepath.Join(f.base, "home"), filepath.Join(f.base, "site")
	ws, err := workspace.Init(filepath.Join(f.base, "ws"), workspace.InitOptions{Home: f.home, Lang: "python", Compositions: testSets})
	if err != nil {
		return err
	}
	var all map[string]data.Answer
	if f.answers, all, err = testsets.Open(f.home, testSets); err != nil {
		return err
	}
	ctx := context.Background()
	opt := workspace.RunOptions{Home: f.home, Workers: 2, Compositions: testSets}
	for _, every := range []int{1, 2} { // the second run claims every other planet only: stars change outcome
		if err := oracle(ws.SolutionDir(), f.home, all, every); err != nil {
			return err
		}
		rep, err := ws.Dev(ctx, opt, nil)
		if err != nil {
			return err
		}
		f.devRuns = append(f.devRuns, rep.RunID)
	}
	if f.grade, err = ws.Grade(ctx, opt, nil); err != nil {
		return err
	}
	bopt := baselines.Options{RunOptions: opt, Sets: []string{sets.Dev}, Rows: []string{baselines.RowEmpty}}
	bopt.Limit = 5
	if _, err := baselines.Run(ctx, bopt); err != nil {
		return err
	}
	site, err := f.open()
	if err != nil {
		return err
	}
	defer site.Close()
	f.built, err = site.Build(ctx, f.out, nil)
	return err
}

// open opens the fixture's site.
func (f *fixture) open() (*Site, error) {
	return Open(Options{Home: f.home, Baselines: filepath.Join("..", "..", "results", "baselines.json")})
}

// oracle writes a solution (an executable `run`) that prints the true ephemeris of the planet of every
// every-th star that has one (in id order) and, when every > 1, a row at a period no star has on every star; and
// stderrMark and the star's id on stderr.
func oracle(dir, home string, answers map[string]data.Answer, every int) error {
	ids := make([]string, 0, len(answers))
	for id := range answers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rows := testsets.PlanetRows(answers)
	for i, id := range ids {
		if i%every != 0 {
			delete(rows, id)
		}
	}
	after := ""
	if every > 1 {
		after = "echo 1.2345678,170.5,1\n"
	}
	var curves map[string]string // home "": public stars only, known by their ids
	if home != "" {
		var err error
		if curves, err = testsets.CurveIDs(home, testSets); err != nil {
			return err
		}
	}
	script := testsets.OracleScriptByCurve(rows, curves, "echo \""+stderrMark+"$id\" >&2\n", after)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "run"), []byte(script), 0o755)
}
