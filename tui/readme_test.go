package tui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// readmeStarView is the README's sample of the star view at 120×40 (the block after "The star view at 120×40").
func readmeStarView(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "The star view at\n120×40")
	if i < 0 {
		t.Fatal("README.md has no sample of the star view at 120×40")
	}
	s = s[i:]
	start := strings.Index(s, "```\n") + len("```\n")
	end := start + strings.Index(s[start:], "```\n")
	return strings.Split(strings.TrimSuffix(s[start:end], "\n"), "\n")
}

// TestReadmeStarViewIsCurrent checks the README's sample screen against the star view as it renders now: 40
// lines of at most 120 columns, the header's fields in the order header() writes them, the four panels' titles,
// the status line's fields and the help line of the fake star's view, so that a change of the screen's layout
// shows here until the sample is drawn again (a real star at 120×40, the view's text without colours).
func TestReadmeStarViewIsCurrent(t *testing.T) {
	lines := readmeStarView(t)
	if len(lines) != 40 {
		t.Fatalf("the sample has %d lines, want 40", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 120 {
			t.Errorf("sample line %d is %d columns wide", i+1, w)
		}
	}
	header := regexp.MustCompile(`^ TransitBench · dev  star dev-\d{4}  \([a-z, -]+\)  ((last run: )?[A-Z]+|not run yet)  \[\d+/\d+\]  Kp \d+\.\d  CDPP6h \d+ ppm  R \d\.\d\d R☉`)
	if !header.MatchString(lines[0]) {
		t.Errorf("the sample's header %q is not laid out as the star view's header", lines[0])
	}
	d := driverOn(t, newFakeBackend(), "enter", stateStar)
	view := strings.Split(ansi.Strip(d.m.View()), "\n")
	if !header.MatchString(view[0]) {
		t.Fatalf("the star view's header %q no longer matches the pattern the sample is checked with: update both", view[0])
	}
	sample := strings.Join(lines, "\n")
	for _, part := range []string{"┌─ Light curve ── raw ▸detrended  flux relative to 1", "┌─ Candidates ── rows ── truth ── peaks",
		"┌─ Periodogram ── BLS SNR vs period d", "┌─ Folded ── at row 1  ▸transit odd/even secondary", " detrend window ", " (the star's)  time BKJD ",
		view[len(view)-1]} {
		if !strings.Contains(sample, part) {
			t.Errorf("the sample lacks %q", part)
		}
	}
}
