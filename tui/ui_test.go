package tui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func TestOpensOnTheBrowser(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 100, 30)
	if d.m.state != stateBrowser {
		t.Fatalf("state = %v, want browser", d.m.state)
	}
	if got := len(d.m.browser.shown); got != 3 {
		t.Fatalf("%d stars shown, want 3", got)
	}
	if v := d.m.View(); !strings.Contains(v, "dev-0002") || !strings.Contains(v, "3/3 stars") {
		t.Errorf("browser view lacks the stars:\n%s", v)
	}
}

func TestBrowserNavigationFilterSortSearch(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 100, 30)
	d.key("j")
	if got := d.m.browser.selected(); got != "dev-0001" {
		t.Errorf("after j the cursor is on %q, want dev-0001", got)
	}
	d.key("down")
	if got := d.m.browser.selected(); got != "dev-0002" {
		t.Errorf("after down the cursor is on %q, want dev-0002", got)
	}
	d.key("c") // category: injected
	if d.m.browser.filter.Category != "injected" || len(d.m.browser.shown) != 1 || d.m.browser.shown[0].ID != "dev-0000" {
		t.Errorf("category filter: %+v shows %v", d.m.browser.filter, d.m.browser.shown)
	}
	d.key("esc") // clears the filters
	if len(d.m.browser.shown) != 3 {
		t.Errorf("esc left %d stars", len(d.m.browser.shown))
	}
	d.keys("m", "m", "m") // MES bin 10-20: none (the planet host has MES 25)
	if d.m.browser.filter.MES != "10-20" || len(d.m.browser.shown) != 0 {
		t.Errorf("MES filter %q shows %v", d.m.browser.filter.MES, d.m.browser.shown)
	}
	d.key("m") // MES bin 20+: the planet host with MES 25
	if d.m.browser.filter.MES != "20+" || len(d.m.browser.shown) != 1 || d.m.browser.shown[0].ID != "dev-0000" {
		t.Errorf("MES filter %q shows %v", d.m.browser.filter.MES, d.m.browser.shown)
	}
	d.key("esc")
	d.keys("p", "p") // population: false_alarm
	if len(d.m.browser.shown) != 1 || d.m.browser.shown[0].ID != "dev-0001" {
		t.Errorf("population filter false_alarm shows %v", d.m.browser.shown)
	}
	d.key("esc")
	d.key("s") // sort by MES
	if d.m.browser.sortBy != "mes" || d.m.browser.shown[2].ID != "dev-0000" {
		t.Errorf("sort by %s: last is %s, want dev-0000 (MES 25)", d.m.browser.sortBy, d.m.browser.shown[2].ID)
	}
	d.key("r")
	if d.m.browser.shown[0].ID != "dev-0000" {
		t.Errorf("reversed sort: first is %s", d.m.browser.shown[0].ID)
	}
	d.keys("/", "e", "b") // search "eb": q and other keys are text while searching
	if !d.m.browser.searching || len(d.m.browser.shown) != 1 || d.m.browser.shown[0].ID != "dev-0002" {
		t.Errorf("search 'eb' shows %v (searching %v)", d.m.browser.shown, d.m.browser.searching)
	}
	d.key("q")
	if d.quit {
		t.Fatal("q quit while typing a search")
	}
	d.key("enter")
	if d.m.browser.searching || d.m.browser.filter.Text != "ebq" {
		t.Errorf("after enter: searching %v, text %q", d.m.browser.searching, d.m.browser.filter.Text)
	}
}

func TestStarViewOpensFoldsAndSwitches(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "enter", stateStar)
	sv := d.m.star
	if sv.data == nil || sv.data.Meta.ID != "dev-0000" {
		t.Fatalf("star view shows %v", sv.currentID())
	}
	// No run yet: the default fold is at the truth, and the fold has been computed.
	if sv.target.Kind != targetTruth || sv.fold == nil || sv.fold.Eph.Label != "truth" {
		t.Fatalf("default target %+v, fold %v", sv.target, sv.fold)
	}
	// The injected 0.4 % box transit is recovered by the fold: vet's depth within 20 % of it.
	if dep := sv.fold.Vet.Depth; dep < 0.8*fakeDepth || dep > 1.2*fakeDepth {
		t.Errorf("folded depth at the truth = %g, want ≈ %g", dep, fakeDepth)
	}
	// The BLS search found the planet as its strongest peak.
	if p := sv.data.Peaks[0].PeriodDays; p < fakePeriod*0.99 || p > fakePeriod*1.01 {
		t.Errorf("strongest peak at %g d, want %g", p, fakePeriod)
	}
	v := d.m.View()
	for _, title := range []string{titleLightCurve, titlePeriodogram, titleFolded, titleCandidates} {
		if !strings.Contains(v, title) {
			t.Errorf("view lacks the %q panel", title)
		}
	}
	d.key("p")
	if d.m.star.target != (foldTarget{Kind: targetPeak, Index: 0}) || d.m.star.fold.Eph.Label != "peak 1" {
		t.Errorf("p: target %+v fold %q", d.m.star.target, d.m.star.fold.Eph.Label)
	}
	d.key("p")
	if d.m.star.target.Index != 1 {
		t.Errorf("second p: peak %d, want 2", d.m.star.target.Index+1)
	}
	d.key("t")
	if d.m.star.target.Kind != targetTruth {
		t.Errorf("t: target %+v", d.m.star.target)
	}
	d.key("1") // no run yet: there is no row 1, the target stays
	if d.m.star.target.Kind != targetTruth {
		t.Errorf("1 without rows changed the target to %+v", d.m.star.target)
	}
	d.key("o")
	if d.m.star.mode != foldOddEven || !strings.Contains(d.m.View(), "odd ") {
		t.Errorf("o: mode %v", d.m.star.mode)
	}
	d.key("s")
	if d.m.star.mode != foldSecondary || !strings.Contains(d.m.View(), "secondary at phase") {
		t.Errorf("s: mode %v", d.m.star.mode)
	}
	d.key("s")
	if d.m.star.mode != foldPrimary {
		t.Errorf("second s: mode %v, want the transit", d.m.star.mode)
	}
	d.key("x")
	if !d.m.star.raw || !strings.Contains(d.m.View(), "▸raw") {
		t.Error("x did not switch to the raw flux")
	}
	d.key("tab")
	if d.m.star.focus != panelCandidates {
		t.Errorf("tab: focus %d", d.m.star.focus)
	}
	d.key("right")
	if d.m.star.currentID() != "dev-0001" || d.m.star.data == nil || d.m.star.data.Meta.ID != "dev-0001" {
		t.Fatalf("right: showing %s", d.m.star.currentID())
	}
	// An untouched star has no truth to fold at: the strongest peak is used.
	if d.m.star.target.Kind != targetPeak {
		t.Errorf("untouched star folded at %+v", d.m.star.target)
	}
	d.key("left")
	d.key("left") // already at the first star: stays
	if d.m.star.currentID() != "dev-0000" {
		t.Errorf("left twice: %s", d.m.star.currentID())
	}
	if got := strings.Join(fb.loadCalls, " "); got != "dev-0000 dev-0001 dev-0000" {
		t.Errorf("loads: %s", got)
	}
	// Each loaded star prefetches the one after it.
	if got := strings.Join(fb.prefetched, " "); got != "dev-0001 dev-0002 dev-0001" {
		t.Errorf("prefetches: %s", got)
	}
	d.key("esc")
	if d.m.state != stateBrowser {
		t.Errorf("esc: state %v", d.m.state)
	}
	d.key("q")
	if !d.quit {
		t.Error("q did not quit")
	}
}

func TestStaleStarLoadIgnored(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 120, 40)
	d.key("enter")
	// A late answer for a star the user has left must not replace the one shown.
	other, _ := newFakeBackend().LoadStar(context.Background(), "dev-0002")
	d.send(starLoadedMsg{id: "dev-0002", data: other})
	if d.m.star.data.Meta.ID != "dev-0000" {
		t.Errorf("stale load replaced the star: %s", d.m.star.data.Meta.ID)
	}
}

func TestDevRunStreamsAndUpdatesOutcomes(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "d", stateDev)
	dv := d.m.dev
	if dv.running || dv.final == nil || dv.done != 3 || dv.total != 3 || len(dv.events) != 3 {
		t.Fatalf("after the run: running %v, final %v, %d/%d, %d events", dv.running, dv.final, dv.done, dv.total, len(dv.events))
	}
	// dev-0000: one hit and one false row; dev-0001: one false row; dev-0002: nothing. Credit 1, false 2, and
	// one planet: S = (1 − 2)/1 = −1, F = 100·2/3.
	if dv.final.Credit != 1 || dv.final.False != 2 || dv.final.S != -1 {
		t.Errorf("summary %+v", dv.final.Totals)
	}
	if v := d.m.View(); !strings.Contains(v, "S -1.000") || !strings.Contains(v, "dev-0001") {
		t.Errorf("dev view lacks the score or the stars:\n%s", v)
	}
	d.key("esc")
	if d.m.state != stateBrowser {
		t.Fatalf("esc: state %v", d.m.state)
	}
	// Outcome words: a hit wins over a false row; an EB given no rows has nothing to miss.
	want := map[string]string{"dev-0000": "hit", "dev-0001": "false", "dev-0002": "quiet"}
	for _, s := range d.m.browser.all {
		if s.Outcome != want[s.ID] {
			t.Errorf("%s outcome %q, want %q", s.ID, s.Outcome, want[s.ID])
		}
	}
	// The star view now lists the rows and folds at the first by default.
	d.key("enter")
	sv := d.m.star
	if sv.data.Result == nil || len(sv.data.Result.Rows) != 2 || sv.target.Kind != targetRow {
		t.Fatalf("star view after a run: result %v target %+v", sv.data.Result, sv.target)
	}
	if !strings.Contains(d.m.View(), "hit") {
		t.Error("candidates panel does not show the hit")
	}
	d.key("2")
	if d.m.star.target != (foldTarget{Kind: targetRow, Index: 1}) || d.m.star.fold.Eph.Label != "row 2" {
		t.Errorf("2: target %+v", d.m.star.target)
	}
	d.key("tab")
	d.key("down") // from row 2 to the truth
	if d.m.star.target.Kind != targetTruth {
		t.Errorf("down from row 2: %+v", d.m.star.target)
	}
}

func TestDevRunCancel(t *testing.T) {
	fb := newFakeBackend()
	fb.block = true
	d := newDriver(t, fb, 100, 30)
	// Start the run by hand so the blocking backend is not driven to its end synchronously.
	m, cmd := d.m.Update(keyMsg("d"))
	d.m = m.(Model)
	for range 2 { // the solution's build, then the first star
		msg := cmd()
		m, cmd = d.m.Update(msg)
		d.m = m.(Model)
	}
	if !d.m.dev.running || d.m.dev.done != 1 {
		t.Fatalf("running %v done %d", d.m.dev.running, d.m.dev.done)
	}
	m, _ = d.m.Update(keyMsg("esc")) // cancels: the run is still on, so esc does not leave
	d.m = m.(Model)
	if d.m.state != stateDev {
		t.Errorf("esc during a run left the screen")
	}
	d.run(cmd) // the backend returns on cancellation: the done message arrives
	if d.m.dev.running || d.m.dev.err == nil || !strings.Contains(d.m.View(), "cancelled") {
		t.Errorf("after cancel: running %v err %v", d.m.dev.running, d.m.dev.err)
	}
}

func TestGradeOnceThenAgain(t *testing.T) {
	fb := newFakeBackend()
	d := newDriver(t, fb, 120, 40)
	d.key("g")
	if d.m.state != stateGrade || d.m.grade.step != gradeConfirm {
		t.Fatalf("g: state %v step %v", d.m.state, d.m.grade.step)
	}
	if v := d.m.View(); !strings.Contains(v, "0123456789abcdef0123") || !strings.Contains(v, "Press y") {
		t.Errorf("confirmation lacks the hash or the prompt:\n%s", v)
	}
	d.key("A") // not graded yet: A does nothing
	if d.m.grade.step != gradeConfirm {
		t.Errorf("A before any grading started one")
	}
	d.key("y")
	g := d.m.grade
	if g.step != gradeDone || g.result == nil || g.err != nil {
		t.Fatalf("after y: step %v result %v err %v", g.step, g.result, g.err)
	}
	for _, s := range gradeSets {
		if p := g.progress[s]; p != [2]int{3, 3} {
			t.Errorf("progress on %s = %v", s, p)
		}
	}
	v := d.m.View()
	if !strings.Contains(v, "Baseline ladder") || !strings.Contains(v, "yours 0123456789ab") || !strings.Contains(v, "reference_detector") {
		t.Errorf("result lacks the ladder:\n%s", v)
	}
	d.key("esc")
	d.key("g")
	if !d.m.grade.alreadyGraded() || !strings.Contains(d.m.View(), "already graded") {
		t.Fatalf("second visit does not say the hash was graded")
	}
	d.key("y") // once only
	if d.m.grade.step != gradeConfirm {
		t.Errorf("y regraded a graded hash")
	}
	d.key("A")
	if d.m.grade.step != gradeDone || d.m.grade.result == nil || !d.m.grade.result.Again {
		t.Errorf("A: step %v result %+v", d.m.grade.step, d.m.grade.result)
	}
}

func TestViewFitsTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}, {60, 20}} {
		w, h := size[0], size[1]
		d := newDriver(t, newFakeBackend(), w, h)
		check := func(where string) { checkViewFits(t, d, w, h, where) }
		check("browser")
		d.key("enter")
		check("star view")
		d.keys("o")
		check("odd/even")
		d.send(tea.WindowSizeMsg{Width: w + 17, Height: h + 5}) // resize while showing a star
		w, h = w+17, h+5
		check("star view after a resize")
		d.key("d")
		check("dev run")
		d.key("esc")
		d.key("g")
		check("grade")
	}
}

func TestHelpToggle(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 120, 40)
	short := d.m.View()
	d.key("?")
	if !d.m.help.ShowAll {
		t.Fatal("? did not open the full help")
	}
	full := d.m.View()
	// The browser's full help: its own keys (reverse is not in its short help) and the global ones, not
	// another screen's.
	if !strings.Contains(full, "reverse") || strings.Contains(short, "reverse") {
		t.Error("the browser's full help does not list its keys, or the short one lists them all")
	}
	if !strings.Contains(full, "dev run") || !strings.Contains(full, "quit") {
		t.Error("the browser's full help lacks the global keys")
	}
	if strings.Contains(full, "fold at truth") || strings.Contains(full, "submit") {
		t.Error("the browser's full help lists the star view's or the RV task view's keys")
	}
	if n := len(strings.Split(full, "\n")); n != 40 {
		t.Errorf("full help view has %d lines, want 40", n)
	}
	d.key("enter") // the star view: its own full help
	star := d.m.View()
	if !d.m.help.ShowAll || !strings.Contains(star, "fold at truth") || !strings.Contains(star, "next star") ||
		strings.Contains(star, "reverse") {
		t.Errorf("the star view's full help does not list its keys alone:\n%s", star)
	}
	if n := len(strings.Split(star, "\n")); n != 40 {
		t.Errorf("the star view with the full help has %d lines, want 40", n)
	}
	d.key("?")
	if d.m.help.ShowAll || strings.Contains(d.m.View(), "prev star") && !strings.Contains(d.m.View(), "←/h") {
		t.Error("a second ? did not close the full help")
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// degradedBackend is a fake whose sandbox cannot isolate fully.
type degradedBackend struct{ *fakeBackend }

func (d degradedBackend) GradeInfo(ctx context.Context) (GradeInfo, error) {
	info, err := d.fakeBackend.GradeInfo(ctx)
	info.Degraded = "no network namespace"
	return info, err
}

func TestGradeRefusedWhenDegraded(t *testing.T) {
	d := newDriver(t, degradedBackend{newFakeBackend()}, 120, 40)
	d.key("g")
	d.key("y")
	if d.m.grade.step != gradeConfirm {
		t.Errorf("y started a grading on a degraded sandbox (step %v)", d.m.grade.step)
	}
	if v := d.m.View(); !strings.Contains(v, "--allow-degraded") || !strings.Contains(v, "no network namespace") {
		t.Errorf("the grade screen does not explain the refusal:\n%s", v)
	}
}

// TestGradeLadderAtSmallSizes grades at 60×20, 80×24 and 60×16 and reads the done screen: every ladder row that
// shows is whole (its name and both scores), the graded solution's row always shows, and rows that do not fit
// are dropped with a line saying how many and to enlarge the terminal; at 120×40 and 80×24 all six show. The
// confirmation screen keeps its prompt and the ladder's rows whole too.
func TestGradeLadderAtSmallSizes(t *testing.T) {
	row := regexp.MustCompile(`(\S+(?: [0-9a-f]{12})?)\s+([+-]\d\.\d{3})  ([+-]\d\.\d{3})\s*$`)
	for _, c := range []struct {
		w, h    int
		allRows bool
	}{{120, 40, true}, {80, 24, true}, {60, 20, true}, {60, 16, false}} {
		d := newDriver(t, newFakeBackend(), c.w, c.h)
		d.key("g")
		confirm := ansi.Strip(d.m.View())
		if !strings.Contains(confirm, "Press y") {
			t.Errorf("%d×%d: the confirmation lost its prompt:\n%s", c.w, c.h, confirm)
		}
		d.key("y")
		if d.m.grade.step != gradeDone {
			t.Fatalf("%d×%d: grading did not finish", c.w, c.h)
		}
		v := ansi.Strip(d.m.View())
		if n := strings.Count(v, "\n") + 1; n > c.h {
			t.Errorf("%d×%d: the view has %d lines", c.w, c.h, n)
		}
		names := map[string]bool{}
		for _, l := range strings.Split(v, "\n") {
			if m := row.FindStringSubmatch(l); m != nil {
				names[m[1]] = true
			}
		}
		if !names["yours 0123456789ab"] {
			t.Errorf("%d×%d: the solution's ladder row does not show whole:\n%s", c.w, c.h, v)
		}
		shown := 0
		for _, r := range ReferenceLadder {
			if names[r.Name] {
				shown++
			}
		}
		note := regexp.MustCompile(`(\d) more rows: enlarge the terminal`).FindStringSubmatch(v)
		switch {
		case c.allRows && (shown != len(ReferenceLadder) || note != nil):
			t.Errorf("%d×%d: %d of %d reference rows show (note %v):\n%s", c.w, c.h, shown, len(ReferenceLadder), note, v)
		case !c.allRows && (note == nil || note[1] != fmt.Sprint(len(ReferenceLadder)-shown)):
			t.Errorf("%d×%d: %d reference rows show, the note says %v:\n%s", c.w, c.h, shown, note, v)
		}
	}
}
