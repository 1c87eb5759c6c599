package report

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"transitbench/workspace/baselines"
)

// browser starts headless Chromium (Debian's chromium; .ci/run installs it) for one test, with a time limit,
// and collects every console error and uncaught exception of its pages.
func browser(t *testing.T) (ctx context.Context, consoleErrors func() []string) {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("the browser tests need Debian's chromium: apt-get install chromium (.ci/run installs it): %v", err)
	}
	parent, cancelTimeout := context.WithTimeout(context.Background(), 3*time.Minute)
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Headless, chromedp.DisableGPU, chromedp.WindowSize(1200, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s:%d %s", m.URL, m.Line+1, m))
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(errs)
	}
}

// boardRow is a leaderboard row as the browser shows it.
type boardRow struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// shownFigure is a figure of a page as the browser lays it out.
type shownFigure struct {
	ID    string   `json:"id"`
	Marks int      `json:"marks"`
	Width float64  `json:"width"`
	Texts []string `json:"texts"`
}

// checkSite opens the site at base (a file:// or http:// URL ending in /) in the browser: the leaderboard's rows,
// sorting it by S on A, the dev run's page, a star's page and its figures, and full-page screenshots in shots.
func checkSite(t *testing.T, ctx context.Context, base, shots string, f *fixture) {
	t.Helper()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	do("open the leaderboard", chromedp.Navigate(base+"index.html"), chromedp.WaitVisible(chromedp.CSS("#leaderboard")))
	rows := eval[[]boardRow](t, ctx, `Array.from(document.querySelectorAll("#leaderboard tbody tr")).map(r => ({kind: r.dataset.kind, name: r.cells[1].textContent.trim()}))`)
	kinds := map[string][]string{}
	for _, r := range rows {
		kinds[r.Kind] = append(kinds[r.Kind], r.Name)
	}
	ladder, err := baselines.ReadTable(filepath.Join("..", "..", "results", "baselines.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ladder.Rows); len(kinds[KindGrading]) != 1 || len(kinds[KindLadder]) != n || len(kinds[KindPublished]) != 5 ||
		!slices.Equal(kinds[KindBaselineRun], []string{"empty"}) || len(rows) != 7+n {
		t.Errorf("leaderboard rows by kind: %v; want one grading, the empty baseline run, the %d rows of the ladder, 5 published", kinds, n)
	}
	checkSort(t, ctx)
	screenshot(t, ctx, filepath.Join(shots, "index.png"))

	run := f.devRuns[1]
	do("follow the dev run's link", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#runs-table a[href="run-%d.html"]`, run))),
		chromedp.WaitVisible(chromedp.CSS("#stars-table")))
	star := eval[string](t, ctx, `document.querySelector("#stars-table tbody a").textContent`)
	do("follow a star's link", chromedp.Click(chromedp.CSS("#stars-table tbody a")), chromedp.WaitVisible(chromedp.CSS("figure#fold-1-vet svg")))
	if loc := eval[string](t, ctx, `location.href`); !strings.HasSuffix(loc, "star-"+star+".html") || !strings.HasPrefix(star, "dev-") {
		t.Errorf("the star link of %s led to %s", star, loc)
	}
	checkFigures(t, ctx, star)
	screenshot(t, ctx, filepath.Join(shots, "star.png"))
	do("dark theme", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	}))
	if bg := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(22, 24, 27)" {
		t.Errorf("under prefers-color-scheme: dark the page's background is %s, want the dark theme's rgb(22, 24, 27)", bg)
	}
	screenshot(t, ctx, filepath.Join(shots, "star-dark.png"))
}

// checkSort clicks the leaderboard's "S on A" header and checks the rows come in ascending order of S on A,
// then descending after a second click.
func checkSort(t *testing.T, ctx context.Context) {
	t.Helper()
	const names = `Array.from(document.querySelectorAll("#leaderboard tbody tr")).map(r => r.cells[1].textContent.trim() + " " + r.dataset.kind)`
	const values = `Array.from(document.querySelectorAll("#leaderboard tbody tr")).map(r => parseFloat(r.cells[4].dataset.v))`
	before := eval[[]string](t, ctx, names)
	for _, asc := range []bool{true, false} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#leaderboard thead th:nth-child(5)"))); err != nil {
			t.Fatal(err)
		}
		after := eval[[]string](t, ctx, names)
		v := eval[[]float64](t, ctx, values)
		sorted := slices.IsSorted(v)
		if !asc {
			sorted = slices.IsSortedFunc(v, func(a, b float64) int { return -cmpFloat(a, b) })
		}
		if slices.Equal(before, after) || !sorted {
			t.Errorf("after clicking 'S on A' (ascending %v) the order is %v with S on A %v", asc, after, v)
		}
		before = after
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkFigures checks the star page's figures are drawn: the light curve, the periodogram, and the fold and the
// odd/even and secondary folds at the first ephemeris, each an SVG of many marks (subpaths: a path draws a run
// of dots or an axis's ticks), laid out wide, with its axis labels.
func checkFigures(t *testing.T, ctx context.Context, star string) {
	t.Helper()
	figs := eval[[]shownFigure](t, ctx, `Array.from(document.querySelectorAll("figure.plot")).map(f => {
		const s = f.querySelector("svg");
		// A mark is a subpath (a dot, a tick, a line) or a circle: the compact SVG draws many marks with one path.
		const marks = s ? Array.from(s.querySelectorAll("path")).reduce((n, p) => n + ((p.getAttribute("d") || "").match(/[Mm]/g) || []).length, 0) + s.querySelectorAll("circle").length : 0;
		return {id: f.id, marks: marks, width: s ? s.getBoundingClientRect().width : 0,
			texts: s ? Array.from(s.querySelectorAll("text")).map(x => x.textContent) : []};
	})`)
	want := map[string][]string{
		"lightcurve":  {"time (BKJD)", "relative flux"},
		"periodogram": {"period (days)", "SNR"},
		"fold-1":      {"hours from mid-transit", "detrended flux − 1 (ppm)"},
		"fold-1-vet":  {"hours from mid-transit", "hours from the secondary's phase"},
	}
	seen := 0
	for _, fg := range figs {
		labels, ok := want[fg.ID]
		if !ok {
			continue
		}
		seen++
		if fg.Marks < 20 || fg.Width < 300 { // ticks, axes and the data: a periodogram is one line and its peaks
			t.Errorf("%s: figure %s has %d marks and is %.0f px wide", star, fg.ID, fg.Marks, fg.Width)
		}
		for _, l := range labels {
			if !slices.Contains(fg.Texts, l) {
				t.Errorf("%s: figure %s lacks the axis label %q (its texts: %.200q)", star, fg.ID, l, fg.Texts)
			}
		}
	}
	if seen != len(want) || len(figs) < 4 {
		t.Errorf("%s: %d figures (%d of the four wanted)", star, len(figs), seen)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %.60s…: %v", expr, err)
	}
	return v
}

// screenshot saves a full-page screenshot of the page as PNG.
func screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10_000 {
		t.Errorf("the screenshot %s has only %d bytes", path, len(b))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// shotsDir is where the screenshots go: $TRANSITBENCH_SITE_SHOTS when set (to look at them), else the test's
// temporary directory.
func shotsDir(t *testing.T, name string) string {
	dir := filepath.Join(t.TempDir(), name)
	if d := os.Getenv("TRANSITBENCH_SITE_SHOTS"); d != "" {
		dir = filepath.Join(d, name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStaticSiteInBrowser opens the static site from the file system in Chromium.
func TestStaticSiteInBrowser(t *testing.T) {
	f := sharedFixture(t)
	ctx, consoleErrors := browser(t)
	checkSite(t, ctx, "file://"+f.out+"/", shotsDir(t, "static"), f)
	checkConsole(t, ctx, consoleErrors)
}

// TestServedSiteInBrowser opens the site served live from the store in Chromium.
func TestServedSiteInBrowser(t *testing.T) {
	f := sharedFixture(t)
	site, err := f.open()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	ctx, consoleErrors := browser(t)
	checkSite(t, ctx, srv.URL+"/", shotsDir(t, "served"), f)
	checkConsole(t, ctx, consoleErrors)
}

// checkConsole fails the test on any console error or uncaught exception the pages gave, after a control: an
// error the test writes to the console itself must be seen, or the listener would see nothing.
func checkConsole(t *testing.T, ctx context.Context, consoleErrors func() []string) {
	t.Helper()
	const control = "transitbench-console-control"
	eval[bool](t, ctx, `console.error("`+control+`"), true`)
	var errs []string
	for range 50 {
		if errs = consoleErrors(); slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, control) }) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	var pages []string
	seen := false
	for _, e := range errs {
		if strings.Contains(e, control) {
			seen = true
		} else {
			pages = append(pages, e)
		}
	}
	if !seen {
		t.Error("the control failed: the console listener did not see an error written to the console")
	}
	if len(pages) > 0 {
		t.Errorf("console errors: %q", pages)
	}
}
