package tui

import (
	"fmt"
	"strings"
	"testing"

	"transitbench/workspace/quicklook"
)

// helpBar is the last line of the view: the short help generated from the screen's key bindings.
func helpBar(d *driver) string {
	lines := strings.Split(d.m.View(), "\n")
	return lines[len(lines)-1]
}

// TestStarViewSaysWhyKeysDoNothing presses the star view's keys where they cannot act: each says why on the
// status line, until the next key.
func TestStarViewSaysWhyKeysDoNothing(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "enter", stateStar)
	says := func(k, want string) {
		t.Helper()
		d.key(k)
		if v := d.m.View(); !strings.Contains(v, want) {
			t.Errorf("%s on %s: the view does not say %q:\n%s", k, d.m.star.currentID(), want, v)
		}
	}
	says("1", "no row 1: the solution has not run on this star yet")
	d.key("x")
	if strings.Contains(d.m.View(), "no row 1") {
		t.Error("the message stayed after the next key")
	}
	says("left", "this is the first star of the list")

	// The search after masking found nothing more: n says so, now and when pressed again.
	d.send(nextPlanetMsg{id: "dev-0000", planets: []quicklook.Planet{{}}})
	nothing := fmt.Sprintf("no further planet: nothing at MES %.1f or more", quicklook.DefaultMinMES)
	if !strings.Contains(d.m.View(), nothing) {
		t.Errorf("an empty search after masking is not reported:\n%s", d.m.View())
	}
	says("n", nothing)

	d.key("right") // the untouched star of the false-alarm population
	says("t", "no truth to fold at: a untouched star has no planet")
	d.keys("right")
	says("right", "this is the last star of the list")

	// After a run the planet host has two rows.
	d.key("esc")
	d.key("d")
	d.key("esc")
	d.key("enter")
	says("3", "no row 3: the last run counted 2 rows on this star")
	if d.m.star.target.Kind != targetRow || d.m.star.target.Index != 0 {
		t.Errorf("3 changed the fold target to %+v", d.m.star.target)
	}
}

// TestFalseAlarmShownWithTheTruth opens the untouched false-alarm star: the candidates list its planted false
// alarm with the truth (dev stars only have one to show), the periodogram marks it, and the fold goes to it.
func TestFalseAlarmShownWithTheTruth(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "j", stateBrowser)
	d.key("enter")
	if d.m.star.currentID() != "dev-0001" {
		t.Fatalf("opened %s", d.m.star.currentID())
	}
	v := d.m.View()
	checkViewHas(t, "the false-alarm star", v, "F.A.", "7.7000", "spot dips", "▾F")
	for i := 0; i < 10 && d.m.star.target.Kind != targetFalseAlarm; i++ {
		d.key("up")
	}
	if d.m.star.target.Kind != targetFalseAlarm || d.m.star.fold == nil || d.m.star.fold.Eph.Label != "false alarm" ||
		d.m.star.fold.Eph.PeriodDays != 7.7 {
		t.Errorf("up does not reach the false alarm: target %+v", d.m.star.target)
	}
	// A star without a false alarm lists none.
	d.key("left")
	if v := d.m.View(); strings.Contains(v, "F.A.") || strings.Contains(v, "spot dips") {
		t.Errorf("the planet host shows a false alarm:\n%s", v)
	}
}

// TestDevScreenBuildPhaseAndLiveKeys starts a dev run: while the solution builds the screen says so instead of
// 0/0; while it runs the help offers esc as cancel and d says a run is going; once it has ended, esc is back.
func TestDevScreenBuildPhaseAndLiveKeys(t *testing.T) {
	fb := newFakeBackend()
	d := newDriver(t, fb, 100, 30)
	m, cmd := d.m.Update(keyMsg("d"))
	d.m = m.(Model)
	m, cmd2 := d.m.Update(cmd()) // the build phase
	d.m = m.(Model)
	v := d.m.View()
	if !strings.Contains(v, "building the solution…") || strings.Contains(v, "0/0") || strings.Contains(v, "0/3") {
		t.Errorf("during the build the dev screen shows:\n%s", v)
	}
	if bar := helpBar(d); !strings.Contains(bar, "esc cancel") || strings.Contains(bar, "esc back") || strings.Contains(bar, "d dev run") {
		t.Errorf("the help bar while running: %q", bar)
	}
	m, _ = d.m.Update(keyMsg("d"))
	d.m = m.(Model)
	if !strings.Contains(d.m.View(), "a run is going: esc cancels it") {
		t.Errorf("d during a run does not say why it does nothing:\n%s", d.m.View())
	}
	d.run(cmd2) // the stars, then the end
	if d.m.dev.running {
		t.Fatal("the run did not end")
	}
	v = d.m.View()
	if bar := helpBar(d); strings.Contains(bar, "cancel") || !strings.Contains(bar, "esc back") || !strings.Contains(bar, "d dev run") {
		t.Errorf("the help bar after the run: %q", bar)
	}
	if strings.Contains(v, "building") || !strings.Contains(v, "3/3") {
		t.Errorf("after the run:\n%s", v)
	}
}

// TestGradeScreenSaysWhyKeysDoNothing presses A before the hash was graded and y after: each says why, and
// the help offers only the key that confirms.
func TestGradeScreenSaysWhyKeysDoNothing(t *testing.T) {
	fb := newFakeBackend()
	d := newDriver(t, fb, 120, 40)
	d.key("g")
	if bar := helpBar(d); !strings.Contains(bar, "y confirm") || strings.Contains(bar, "grade again") || strings.Contains(bar, "cancel") {
		t.Errorf("the help bar before grading: %q", bar)
	}
	d.key("A")
	checkViewHas(t, "A on a hash never graded", d.m.View(), "A grades again a hash graded before; this one was not: y grades it")
	d.key("y")
	if bar := helpBar(d); strings.Contains(bar, "confirm") || strings.Contains(bar, "cancel") || !strings.Contains(bar, "esc back") {
		t.Errorf("the help bar after grading: %q", bar)
	}
	d.key("esc")
	d.key("g")
	d.key("y")
	checkViewHas(t, "y on a graded hash", d.m.View(), "this hash was graded already: A grades it again")
	if bar := helpBar(d); strings.Contains(bar, "y confirm") || !strings.Contains(bar, "A grade again") {
		t.Errorf("the help bar on a graded hash: %q", bar)
	}
}

// TestBrowserSaysWhyEnterDoesNothing filters the browser down to no star: enter says why.
func TestBrowserSaysWhyEnterDoesNothing(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 100, 30)
	d.keys("m", "m", "m") // MES 10-20: no star
	d.key("enter")
	if d.m.state != stateBrowser || !strings.Contains(d.m.View(), "no star to open: no star matches the filters (esc clears them)") {
		t.Errorf("enter on an empty list:\n%s", d.m.View())
	}
}
