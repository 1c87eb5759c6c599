package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"transitbench/grader"
)

// streamStars sends n finished stars dev-1000… to the dev run screen, as a run streams them.
func streamStars(d *driver, from, n int) {
	ch := make(chan tea.Msg)
	close(ch)
	for i := from; i < from+n; i++ {
		d.send(runEventMsg{ch: ch, event: RunEvent{Set: "dev", Done: i + 1, Total: from + n,
			Star: &grader.StarResult{StarID: fmt.Sprintf("dev-%04d", 1000+i), Category: "untouched"}, Exit: "ok"}})
	}
}

// TestDevRunListScrolls streams more finished stars than the dev run screen shows: the list follows the newest
// until scrolled back, stays where it was scrolled while more stream in, and follows again at its end.
func TestDevRunListScrolls(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 80, 24)
	d.key("d") // the fake's run of three stars, then ours
	streamStars(d, 0, 60)
	v := d.m.View()
	if !strings.Contains(v, "dev-1059") || strings.Contains(v, "dev-1000") {
		t.Fatalf("the list does not show the newest stars:\n%s", v)
	}
	if !strings.Contains(v, "of 63") {
		t.Errorf("the list does not say which rows it shows:\n%s", v)
	}
	for i := 0; i < 80; i++ {
		d.key("up")
	}
	if v := d.m.View(); !strings.Contains(v, "dev-0000") || strings.Contains(v, "dev-1059") {
		t.Fatalf("scrolled to the top, the list shows:\n%s", v)
	}
	streamStars(d, 60, 1)
	if v := d.m.View(); !strings.Contains(v, "dev-0000") || strings.Contains(v, "dev-1060") {
		t.Errorf("a new star moved the list scrolled back:\n%s", v)
	}
	for i := 0; i < 10; i++ {
		d.send(tea.KeyMsg{Type: tea.KeyPgDown})
	}
	streamStars(d, 61, 1)
	if v := d.m.View(); !strings.Contains(v, "dev-1061") {
		t.Errorf("at the end of the list, the newest star is not shown:\n%s", v)
	}
	if d.m.state != stateDev {
		t.Errorf("scrolling left the dev run screen for %v", d.m.state)
	}
}

// TestGlobalKeysOnEveryScreen checks the one global key handling: on every screen ? toggles the full help and
// q quits, except while a screen takes every key as text; the run keys d and g do nothing on the RV screens
// and the agent sessions.
func TestGlobalKeysOnEveryScreen(t *testing.T) {
	for _, path := range [][]string{{}, {"enter"}, {"d"}, {"g"}, {"R"}, {"R", "enter", "y"}, {"a"}} {
		d := newDriver(t, newFakeBackend(), 120, 40)
		d.keys(path...)
		where := d.m.state
		d.key("?")
		if !d.m.help.ShowAll {
			t.Errorf("%v: ? did not open the full help", where)
		}
		d.key("?")
		if where == stateRVBrowser || where == stateRVTask || where == stateAgents {
			d.key("d")
			d.key("g")
			if d.m.state != where {
				t.Errorf("%v: a run key switched to %v", where, d.m.state)
			}
		}
		d.key("q")
		if !d.quit {
			t.Errorf("%v: q did not quit", where)
		}
	}
	d := newDriver(t, newFakeBackend(), 120, 40)
	d.keys("/", "q", "?")
	if d.quit || d.m.help.ShowAll || d.m.browser.filter.Text != "q?" {
		t.Errorf("typing a search: quit %v, help %v, text %q", d.quit, d.m.help.ShowAll, d.m.browser.filter.Text)
	}
	d.key("ctrl+c")
	if !d.quit {
		t.Error("ctrl+c did not quit while typing")
	}
}
