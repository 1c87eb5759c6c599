package tui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// numbersOf returns the first group of every match of re in v, in order.
func numbersOf(re *regexp.Regexp, v string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(v, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestSmallTerminalsKeepNumbers renders the same star at 80×24 and at 120×40: the fold's MES and depth and the
// strongest peak's SNR are the same numbers in both, whole (a cut number would read as another), and every
// such number the small render shows is one the large render shows. The dev screen's S is the same at both
// sizes and at 60 columns.
func TestSmallTerminalsKeepNumbers(t *testing.T) {
	mes := regexp.MustCompile(`MES (\d+\.\d)\b`)
	depth := regexp.MustCompile(`(\d+±\d+) ppm`)
	snr := regexp.MustCompile(`snr +(\d+\.\d)\b`)
	views := map[int]string{}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		d := newDriver(t, newFakeBackend(), size[0], size[1])
		d.key("enter")
		f := d.m.star.fold
		if f == nil {
			t.Fatalf("%v: no fold", size)
		}
		v := d.m.View()
		views[size[0]] = v
		got := map[string]string{"MES": "", "depth": "", "snr": ""}
		if ms := numbersOf(mes, v); len(ms) > 0 {
			got["MES"] = strings.Join(ms, " ")
		}
		if ds := numbersOf(depth, v); len(ds) > 0 {
			got["depth"] = ds[0]
		}
		if ss := numbersOf(snr, v); len(ss) > 0 {
			got["snr"] = ss[0]
		}
		// The numbers the model holds, as the views write them.
		for what, w := range map[string]string{
			"MES":   trim1(f.Vet.MES),
			"depth": trim0(f.Vet.Depth*1e6) + "±" + trim0(f.Vet.DepthErr*1e6),
			"snr":   trim1(d.m.star.data.Peaks[0].SNR),
		} {
			if !slices.Contains(strings.Fields(got[what]), w) && got[what] != w {
				t.Errorf("%v: the view shows %s %q, want %q:\n%s", size, what, got[what], w, v)
			}
		}
	}
	for _, re := range []*regexp.Regexp{mes, depth, snr} {
		small, large := numbersOf(re, views[80]), numbersOf(re, views[120])
		for _, n := range small {
			if !slices.Contains(large, n) {
				t.Errorf("%s: 80×24 shows %s, which 120×40 does not (%v): a cut number", re, n, large)
			}
		}
		if len(small) == 0 {
			t.Errorf("%s: nothing at 80×24", re)
		}
	}

	score := regexp.MustCompile(`S (-?\d+\.\d{3})\b`)
	var scores []string
	for _, w := range []int{60, 80, 120} {
		d := newDriver(t, newFakeBackend(), w, 24)
		d.key("d")
		scores = append(scores, strings.Join(numbersOf(score, d.m.View()), " "))
	}
	if scores[0] != "-1.000" || scores[1] != scores[0] || scores[2] != scores[0] {
		t.Errorf("the dev screen's S at 60, 80 and 120 columns: %q, want -1.000 at each", scores)
	}
}

func trim0(v float64) string { return fmt.Sprintf("%.0f", v) }
func trim1(v float64) string { return fmt.Sprintf("%.1f", v) }

// plotRows counts the lines of v holding an asciigraph curve's corners: a flat line has one.
func plotRows(v string) int {
	n := 0
	for _, l := range strings.Split(v, "\n") {
		if strings.ContainsAny(l, "╭╮╯╰") {
			n++
		}
	}
	return n
}

// TestSmallTerminalShowsOnePanelOrAsks renders the star view at 60×16, where four panels would leave the
// periodogram a flat line: it shows one panel at a time (tab steps through them), the periodogram a curve
// over several rows; below 40×12 it asks for a larger terminal instead of drawing useless panels.
func TestSmallTerminalShowsOnePanelOrAsks(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 60, 16)
	d.key("enter")
	v := d.m.View()
	if !strings.Contains(v, titleLightCurve) || strings.Contains(v, titlePeriodogram) || !strings.Contains(v, "panel 1/4") {
		t.Errorf("60×16 should show the light curve alone, saying which panel it is:\n%s", v)
	}
	d.keys("tab", "tab")
	v = d.m.View()
	if !strings.Contains(v, titlePeriodogram) || strings.Contains(v, enlargeText()) {
		t.Fatalf("tab tab should show the periodogram:\n%s", v)
	}
	if n := plotRows(v); n < 4 {
		t.Errorf("the periodogram at 60×16 draws its curve over %d rows, a flat line:\n%s", n, v)
	}
	checkViewFits(t, d, 60, 16, "one panel")

	for _, size := range [][2]int{{39, 30}, {100, 11}} {
		d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		v := strings.Join(strings.Fields(d.m.View()), " ")
		if !strings.Contains(v, "enlarge the terminal (need 40×12)") || strings.Contains(v, titlePeriodogram) {
			t.Errorf("%v: the star view does not ask for a larger terminal:\n%s", size, d.m.View())
		}
		checkViewFits(t, d, size[0], size[1], "too small")
	}
	d.send(tea.WindowSizeMsg{Width: 40, Height: 12})
	if v := d.m.View(); strings.Contains(v, "enlarge") || !strings.Contains(v, titlePeriodogram) {
		t.Errorf("40×12 is large enough for one panel:\n%s", v)
	}
}
