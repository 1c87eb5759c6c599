package tui

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"transitbench/workspace"
)

// typeText types s into the screen, one key press per rune.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// statusLineOf is the star view's status line: the line above the help bar.
func statusLineOf(d *driver) string {
	lines := strings.Split(d.m.View(), "\n")
	return lines[len(lines)-2]
}

// TestStarViewTypedFold folds at a typed period and t0: a bad entry says what is wrong and keeps the line open
// (q is text there, not quit), esc gives up, and a good one folds there and lists it with the candidates.
func TestStarViewTypedFold(t *testing.T) {
	d := driverOn(t, newFakeBackend(), "enter", stateStar)
	d.key("f")
	if !d.m.star.typing || !d.m.star.Capturing() {
		t.Fatal("f does not open the ephemeris line")
	}
	if got := d.m.star.input.Value(); got != "5.30000 102.1000 3.60" {
		t.Errorf("the line starts with %q, want the fold target's ephemeris", got)
	}
	d.send(tea.KeyMsg{Type: tea.KeyCtrlU}) // clear the line
	d.typeText("5.3 q")
	d.key("enter")
	if d.quit || !d.m.star.typing || !strings.Contains(statusLineOf(d), `"q" is not a number`) {
		t.Fatalf("a bad ephemeris: quit %v, typing %v, status %q", d.quit, d.m.star.typing, statusLineOf(d))
	}
	d.send(tea.KeyMsg{Type: tea.KeyBackspace})
	if strings.Contains(statusLineOf(d), "not a number") {
		t.Error("editing the line does not clear the error")
	}
	d.key("esc")
	if d.m.star.typing || d.m.state != stateStar || d.m.star.target.Kind != targetTruth {
		t.Fatalf("esc: typing %v, state %v, target %+v", d.m.star.typing, d.m.state, d.m.star.target)
	}
	d.key("f")
	d.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	d.typeText(fmt.Sprintf("%g %g %g", fakePeriod, fakeT0+3*fakePeriod, fakeDuration*24))
	d.key("enter")
	sv := d.m.star
	if sv.typing || sv.target.Kind != targetTyped || sv.fold == nil || sv.fold.Eph.Label != "typed" {
		t.Fatalf("enter: typing %v, target %+v, fold %+v", sv.typing, sv.target, sv.fold)
	}
	// A t0 three periods on folds the same transits: the injected 0.4 % box within 20 %.
	if dep := sv.fold.Vet.Depth; dep < 0.8*fakeDepth || dep > 1.2*fakeDepth {
		t.Errorf("folded depth at the typed ephemeris = %g, want ≈ %g", dep, fakeDepth)
	}
	checkViewHas(t, "the typed fold", d.m.View(), "typed    5.3000    118.00  3.6h", "at typed")
	// The typed ephemeris is a candidate like the others: up leaves it, down comes back.
	d.key("up")
	d.key("down")
	if d.m.star.target.Kind != targetTyped {
		t.Errorf("down does not come back to the typed ephemeris: %+v", d.m.star.target)
	}
}

// TestStarViewZoomAndPan zooms the light curve in time and pans it: the status line and the panel's x axis
// show the time range, and the ends of the light curve say why a key does nothing.
func TestStarViewZoomAndPan(t *testing.T) {
	d := driverOn(t, newFakeBackend(), "enter", stateStar)
	full := timeExtent(d.m.star.data)
	if !strings.Contains(statusLineOf(d), fmt.Sprintf("BKJD %.1f–%.1f d (all)", full[0], full[1])) {
		t.Errorf("the status line does not show the whole time range: %q", statusLineOf(d))
	}
	d.key("+")
	z := d.m.star.zoom
	if span := z[1] - z[0]; math.Abs(span-(full[1]-full[0])/2) > 1e-9 || math.Abs((z[0]+z[1])/2-(full[0]+full[1])/2) > 1e-9 {
		t.Fatalf("+: range %v, want the middle half of %v", z, full)
	}
	shown := fmt.Sprintf("BKJD %.1f–%.1f d", z[0], z[1])
	v := d.m.View()
	if !strings.Contains(statusLineOf(d), shown) || strings.Contains(statusLineOf(d), "(all)") || !strings.Contains(v, "Light curve ── raw ▸detrended  "+shown) {
		t.Errorf("zoomed in, the view does not show %q:\n%s", shown, v)
	}
	// The x axis labels lie inside the range: no tick at 100 or 160 d.
	if strings.Contains(v, " 100 ") || !strings.Contains(v, " 130 ") {
		t.Errorf("the zoomed light curve's axis:\n%s", v)
	}
	d.key("<")
	if d.m.star.zoom[0] != full[0] {
		t.Errorf("< from the middle half: %v, want it to start at %g", d.m.star.zoom, full[0])
	}
	d.key("<")
	if !strings.Contains(statusLineOf(d), "at the start of the light curve") {
		t.Errorf("< at the start: %q", statusLineOf(d))
	}
	d.key(">")
	d.key(">")
	if d.m.star.zoom[1] != full[1] {
		t.Errorf("> twice: %v, want it to end at %g", d.m.star.zoom, full[1])
	}
	d.key("-")
	if d.m.star.zoom != [2]float64{} || !strings.Contains(statusLineOf(d), "(all)") {
		t.Errorf("- back to the whole light curve: %v, %q", d.m.star.zoom, statusLineOf(d))
	}
	d.key("-")
	if !strings.Contains(statusLineOf(d), "the whole light curve is shown") {
		t.Errorf("- on the whole light curve: %q", statusLineOf(d))
	}
	d.keys("+", "right") // another star shows all of its light curve
	if d.m.star.zoom != [2]float64{} {
		t.Errorf("the next star kept the zoom %v", d.m.star.zoom)
	}
}

// TestStarViewDetrendWindow steps the detrending window: the star is analysed again (a new detrended flux,
// periodogram and fold) and the status line says which window shows; past the longest it says why not.
func TestStarViewDetrendWindow(t *testing.T) {
	d := driverOn(t, newFakeBackend(), "enter", stateStar)
	before := d.m.star.data
	auto := before.WindowDays
	if !strings.Contains(statusLineOf(d), fmt.Sprintf("window %.3g d (the star's)", auto)) {
		t.Errorf("the status line does not show the star's window %g d: %q", auto, statusLineOf(d))
	}
	want, ok, _ := stepWindow(auto, 1)
	if !ok {
		t.Fatalf("no window longer than the star's %g d", auto)
	}
	d.key("]")
	after := d.m.star.data
	if after == before || after.WindowDays != want || d.m.star.detrending != 0 {
		t.Fatalf("]: window %g (detrending %g), want %g", after.WindowDays, d.m.star.detrending, want)
	}
	differ := 0
	for i := range after.Flat {
		if after.Flat[i] != before.Flat[i] && !math.IsNaN(after.Flat[i]) {
			differ++
		}
	}
	if differ == 0 || &after.Power[0] == &before.Power[0] {
		t.Error("the star was not detrended and searched again")
	}
	if after.Meta != before.Meta || after.Answer != before.Answer {
		t.Error("the analysis again lost the star's list entry or truth")
	}
	if f := d.m.star.fold; f == nil || f.Eph.Label != "truth" || d.m.star.target.Kind != targetTruth {
		t.Errorf("no fold at the truth after the new detrending: %+v", f)
	}
	if s := statusLineOf(d); !strings.Contains(s, fmt.Sprintf("window %.3g d", want)) || strings.Contains(s, "(the star's)") {
		t.Errorf("the status line after ]: %q", s)
	}
	for range windowSteps {
		d.key("]")
	}
	if d.m.star.data.WindowDays != windowSteps[len(windowSteps)-1] || !strings.Contains(statusLineOf(d), "the longest detrending window is 3 d") {
		t.Errorf("] past the longest: window %g, status %q", d.m.star.data.WindowDays, statusLineOf(d))
	}
	// A star's own window (detrend.WindowFor of its longest duration) has all the digits of a float64: shown
	// to three significant digits, as the other numbers of the line.
	d.m.star.data.WindowDays, d.m.star.autoWindow, d.m.star.msg = 1.6881608328110396, 1.6881608328110396, ""
	if s := statusLineOf(d); !strings.Contains(s, "window 1.69 d (the star's)") {
		t.Errorf("a window of 1.6881608328110396 d shows as %q, want 1.69 d", s)
	}
}

// readCSV reads a CSV file into its rows.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestStarViewExportCSV writes the fold shown and the periodogram into the workspace's exports folder and
// reads them back: the same points, bins and periodogram as the star view's, and the message says where.
func TestStarViewExportCSV(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "enter", stateStar)
	d.key("e")
	if !strings.Contains(statusLineOf(d), "export failed: no workspace") {
		t.Errorf("an export without a workspace: %q", statusLineOf(d))
	}
	fb.exportDir = t.TempDir()
	d.key("e")
	dir := filepath.Join(fb.exportDir, workspace.ExportsDir)
	if !strings.Contains(statusLineOf(d), "wrote dev-0000-fold.csv and dev-0000-periodogram.csv in "+dir) {
		t.Errorf("the export does not say where it went: %q", statusLineOf(d))
	}
	f, data := d.m.star.fold, d.m.star.data
	rows := readCSV(t, filepath.Join(dir, "dev-0000-fold.csv"))
	if strings.Join(rows[0], ",") != "curve,kind,time_from_mid_h,flux_ppm,flux_err_ppm" {
		t.Errorf("fold header %v", rows[0])
	}
	points, bins := 0, 0
	for _, r := range rows[1:] {
		x, _ := strconv.ParseFloat(r[2], 64)
		y, _ := strconv.ParseFloat(r[3], 64)
		switch {
		case r[0] != "transit":
			t.Fatalf("row %v: a curve other than the transit", r)
		case r[1] == "point":
			if x != f.All.X[points] || y != f.All.Y[points] || r[4] != "" {
				t.Fatalf("point %d: %v, want %g %g", points, r, f.All.X[points], f.All.Y[points])
			}
			points++
		case r[1] == "bin":
			bins++
		}
	}
	if points != len(f.All.X) || bins == 0 || bins > len(f.All.BX) {
		t.Errorf("%d points and %d bins, want %d points and up to %d bins", points, bins, len(f.All.X), len(f.All.BX))
	}
	pg := readCSV(t, filepath.Join(dir, "dev-0000-periodogram.csv"))
	if len(pg) != len(data.Periods)+1 || strings.Join(pg[0], ",") != "period_d,bls_snr" {
		t.Fatalf("periodogram: %d rows, header %v; want %d rows", len(pg), pg[0], len(data.Periods)+1)
	}
	if p, _ := strconv.ParseFloat(pg[1][0], 64); p != data.Periods[0] {
		t.Errorf("first period %v, want %g", pg[1], data.Periods[0])
	}
	// In the odd/even view the fold file holds the odd and the even transits.
	d.key("o")
	d.key("e")
	curves := map[string]bool{}
	for _, r := range readCSV(t, filepath.Join(dir, "dev-0000-fold.csv"))[1:] {
		curves[r[0]] = true
	}
	if !curves["odd"] || !curves["even"] || curves["transit"] {
		t.Errorf("the odd/even export holds the curves %v", curves)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left in the exports folder: %v", left)
	}
}

// TestStarViewUnitsAndMarks checks the star view names its units (days, BKJD, ppm, hours, solar radius and
// mass) and marks the solution's rows and the truth on the periodogram.
func TestStarViewUnitsAndMarks(t *testing.T) {
	fb := newFakeBackend()
	d := driverOn(t, fb, "d", stateDev)
	d.key("esc")
	d.key("enter")
	v := d.m.View()
	checkViewHas(t, "the star view", v, "BKJD d", "flux relative to 1", "BLS SNR vs period d", "period d", "t0 BKJD",
		"h · y ppm", "R 1.00 R☉", "M 1.00 M☉", "CDPP6h 80 ppm", "window 1.5 d")
	// Row 1, the strongest peak and the truth agree: one mark; row 2 (2.2 d) has its own.
	checkViewHas(t, "the periodogram", v, "▾1/r1/T", "▾r2")
}
