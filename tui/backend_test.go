package tui

import (
	"context"
	"path/filepath"
	"testing"

	"transitbench/data/sets"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// sixStarDev is the dev set of sixStarWorkspace.
var sixStarDev = sets.Composition{Injected: 2, Untouched: 2, EB: 1, Confirmed: 1}

// sixStarWorkspace makes a workspace in a temporary folder with a six-star dev set (2 injected, 2 untouched, an
// eclipsing binary and a confirmed planet) in a temporary data directory, and returns both folders.
func sixStarWorkspace(t *testing.T) (home, dir string, ws *workspace.Workspace) {
	t.Helper()
	home = t.TempDir()
	dir = filepath.Join(t.TempDir(), "ws")
	ws, err := workspace.Init(dir, workspace.InitOptions{Home: home, Compositions: map[string]sets.Composition{sets.Dev: sixStarDev}})
	if err != nil {
		t.Fatal(err)
	}
	return home, dir, ws
}

// TestRealBackendOnASmallWorkspace opens the real backend on a workspace made with a six-star dev set and
// checks what the screens read from it: the browser's rows, a loaded star with its analysis, and the grade
// screen's hash.
func TestRealBackendOnASmallWorkspace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a small data set: not in -short mode")
	}
	home, dir, _ := sixStarWorkspace(t)
	var steps int
	r, err := OpenReal(context.Background(), OpenOptions{Home: home, Workspace: dir}, func(Progress) { steps++ })
	if err != nil {
		t.Fatal(err)
	}
	stars, err := r.Stars(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(stars) != sixStarDev.Total() {
		t.Fatalf("%d stars listed, want %d", len(stars), sixStarDev.Total())
	}
	counts := map[string]int{}
	for _, s := range stars {
		counts[s.Category]++
		if s.Outcome != "" {
			t.Errorf("%s has outcome %q before any run", s.ID, s.Outcome)
		}
		if s.CDPP6 <= 0 || s.Kepmag <= 0 {
			t.Errorf("%s lacks its CDPP or magnitude: %+v", s.ID, s)
		}
		if s.Category == "injected" && s.MES <= 0 {
			t.Errorf("injected star %s has no MES", s.ID)
		}
	}
	if counts["injected"] != 2 || counts["eb"] != 1 {
		t.Errorf("categories %v, want the composition %+v", counts, sixStarDev)
	}
	var injected string
	for _, s := range stars {
		if s.Category == "injected" {
			injected = s.ID
			break
		}
	}
	d, err := r.LoadStar(context.Background(), injected)
	if err != nil {
		t.Fatal(err)
	}
	if d.Answer == nil || d.Answer.Planet == nil || d.Result != nil {
		t.Fatalf("loaded star: answer %v, result %v", d.Answer, d.Result)
	}
	if len(d.Time) < 10000 || len(d.Flat) != len(d.Time) || len(d.Periods) == 0 || len(d.Peaks) == 0 {
		t.Fatalf("analysis incomplete: %d cadences, %d flat, %d periods, %d peaks", len(d.Time), len(d.Flat), len(d.Periods), len(d.Peaks))
	}
	// A prefetch fills the cache, and the load after it returns that analysis.
	other := stars[len(stars)-1].ID
	r.Prefetch(context.Background(), other)
	var cached *StarData
	for _, c := range r.cache {
		if c.Meta.ID == other {
			cached = c
		}
	}
	if cached == nil {
		t.Fatalf("prefetch of %s left nothing in the cache", other)
	}
	p1, err := r.LoadStar(context.Background(), other)
	if err != nil || &p1.Time[0] != &cached.Time[0] {
		t.Errorf("the load after a prefetch analysed the star again (err %v)", err)
	}
	again, err := r.LoadStar(context.Background(), injected)
	if err != nil || &again.Time[0] != &d.Time[0] {
		t.Errorf("the second load did not come from the cache (err %v)", err)
	}
	info, err := r.GradeInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hash, _, err := workspace.HashTree(r.WS.SolutionDir())
	if err != nil || info.Hash != hash || len(info.GradedOn) != 0 {
		t.Errorf("grade info %+v, want hash %s never graded", info, hash)
	}
}

// TestRealBackendDevRun runs a tiny solution (a shell script that reports one fixed row) through the real
// backend's dev run on a six-star workspace and checks the streamed events, the summary and that the
// browser's outcome column and the star view's rows then show the run.
func TestRealBackendDevRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sandbox on a small data set: not in -short mode")
	}
	home, dir, ws := sixStarWorkspace(t)
	testutil.WriteRunScript(t, ws.SolutionDir(), "#!/bin/sh\necho period_days,t0_days,score\necho 3.3,170.1,9\n")
	r, err := OpenReal(context.Background(), OpenOptions{Home: home, Workspace: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan RunEvent, sixStarDev.Total()+1)
	sum, err := r.Dev(context.Background(), events)
	close(events)
	if err != nil {
		t.Fatal(err)
	}
	// First the solution's build (the dev screen says so instead of showing 0/0), then a star per event.
	build := <-events
	if build.Phase != workspace.PhaseBuild || build.Star != nil || build.Done != 0 || build.Total != sixStarDev.Total() {
		t.Errorf("first event %+v, want the build phase of %d stars", build, sixStarDev.Total())
	}
	var got []RunEvent
	for e := range events {
		got = append(got, e)
	}
	if len(got) != sixStarDev.Total() || got[len(got)-1].Done != sixStarDev.Total() || got[0].Total != sixStarDev.Total() {
		t.Fatalf("%d events (last %+v), want %d", len(got), got[len(got)-1], sixStarDev.Total())
	}
	for _, e := range got {
		if e.Star == nil || e.Set != sets.Dev || e.Phase != "" {
			t.Fatalf("event without a star result: %+v", e)
		}
	}
	// One row per star: on a scored star it earns credit or is a false candidate, on the others it is ignored.
	credited := 0
	for _, e := range got {
		if e.Star.Scored && e.Star.Credit > 0 {
			credited++
		}
	}
	if sum == nil || sum.False+credited != sum.ScoredStars || sum.IgnoredRows != sum.IgnoredStars ||
		sum.ScoredStars+sum.IgnoredStars != sixStarDev.Total() {
		t.Errorf("summary %+v (%d stars credited): not one counted row per star", sum, credited)
	}
	stars, err := r.Stars(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stars {
		if s.Outcome == "" {
			t.Errorf("%s has no outcome after the run", s.ID)
		}
	}
	d, err := r.LoadStar(context.Background(), stars[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Result == nil || d.Result.RowsGiven != 1 {
		t.Errorf("star view of %s after the run: result %+v", stars[0].ID, d.Result)
	}
}
