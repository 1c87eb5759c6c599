package tui

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/rvtrack"
)

// openRVTask drives the interface from the star browser to the RV task view of the first task.
func openRVTask(t *testing.T, fb *fakeBackend, w, h int) *driver {
	t.Helper()
	d := newDriver(t, fb, w, h)
	d.key("R")
	d.key("enter")
	d.key("y") // start the task's clock
	if d.m.state != stateRVTask || d.m.rvTask.task == nil || d.m.rvTask.analysis == nil {
		t.Fatalf("state %v, task loaded %v, analysed %v", d.m.state, d.m.rvTask.task != nil, d.m.rvTask.analysis != nil)
	}
	return d
}

func TestRVBrowserByTierAndBack(t *testing.T) {
	d := newDriver(t, newFakeBackend(), 100, 30)
	if v := d.m.View(); !strings.Contains(v, "RV tasks") {
		t.Errorf("the star browser's help does not offer the RV tasks:\n%s", v)
	}
	d.key("R")
	if d.m.state != stateRVBrowser || len(d.m.rvBrowser.shown) != 2 {
		t.Fatalf("R: state %v with %d tasks, want the RV browser with 2", d.m.state, len(d.m.rvBrowser.shown))
	}
	v := d.m.View()
	checkViewHas(t, "RV browser", v, "rv-e-001", "rv-h-001", "easy", "3/3", "10/10")
	d.key("tab") // easy
	if d.m.rvBrowser.tier != "easy" || len(d.m.rvBrowser.shown) != 1 || d.m.rvBrowser.shown[0].ID != "rv-e-001" {
		t.Errorf("tier %q shows %v", d.m.rvBrowser.tier, d.m.rvBrowser.shown)
	}
	d.keys("tab", "tab") // medium, then hard
	if d.m.rvBrowser.tier != "hard" || len(d.m.rvBrowser.shown) != 1 || d.m.rvBrowser.shown[0].ID != "rv-h-001" {
		t.Errorf("tier %q shows %v", d.m.rvBrowser.tier, d.m.rvBrowser.shown)
	}
	d.key("d") // the dev run belongs to the transit screens
	if d.m.state != stateRVBrowser {
		t.Errorf("d on the RV browser switched to %v", d.m.state)
	}
	d.keys("enter", "y")
	if d.m.state != stateRVTask || d.m.rvTask.id != "rv-h-001" {
		t.Fatalf("enter opened %v %q", d.m.state, d.m.rvTask.id)
	}
	d.key("esc")
	if d.m.state != stateRVBrowser {
		t.Errorf("esc from the task view: %v", d.m.state)
	}
	d.key("esc")
	if d.m.state != stateBrowser {
		t.Errorf("esc from the RV browser: %v", d.m.state)
	}
}

func TestRVTaskAddFitEditRemove(t *testing.T) {
	fb := newFakeBackend()
	d := openRVTask(t, fb, 100, 30)
	v := &d.m.rvTask
	if len(v.planets) != 0 || v.analysis.Metrics.OKDeltaBIC {
		t.Fatalf("a new task has %d planets and ok_delta_bic %v", len(v.planets), v.analysis.Metrics.OKDeltaBIC)
	}
	nullRMS := v.analysis.Metrics.RMSMS
	d.key("r") // the periodogram of the data (no model yet: the same series)
	if v := d.m.rvTask; v.residuals || v.analysis.OfResiduals {
		t.Fatal("r did not switch the periodogram to the data")
	}
	if p := d.m.rvTask.analysis.Peaks[0].PeriodDays; math.Abs(p/fakeRVPlanet.PeriodDays-1) > 0.03 {
		t.Errorf("strongest GLS peak at %.3f d, want near %.1f", p, fakeRVPlanet.PeriodDays)
	}
	d.key("a")
	v = &d.m.rvTask
	if len(v.planets) != 1 || math.Abs(v.planets[0].PeriodDays/fakeRVPlanet.PeriodDays-1) > 0.03 {
		t.Fatalf("a added %+v", v.planets)
	}
	if m := v.analysis.Metrics; !(m.RMSMS < nullRMS/2) || !m.OKRMS || !m.OKDeltaBIC {
		t.Errorf("dry run after adding the peak's planet: %+v (null rms %.2f)", m, nullRMS)
	}
	d.key("f")
	v = &d.m.rvTask
	if got := fb.rv().fits; len(got) != 1 || got[0] != "fit:rv-e-001:1" {
		t.Errorf("f called %v", got)
	}
	if p := v.planets[0]; math.Abs(p.PeriodDays/fakeRVPlanet.PeriodDays-1) > 0.005 || math.Abs(p.KMS-fakeRVPlanet.KMS) > 1 {
		t.Errorf("fit gave %+v, truth %+v", p, fakeRVPlanet)
	}
	fitRMS := v.analysis.Metrics.RMSMS

	// Edit K: enter opens the cell editor, every key is text until enter.
	d.key("l")
	d.key("enter")
	if !d.m.rvTask.editing {
		t.Fatal("enter did not open the cell editor")
	}
	d.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	d.keys("3", "0", "q")
	if d.quit {
		t.Fatal("q quit while editing a cell")
	}
	d.send(tea.KeyMsg{Type: tea.KeyBackspace})
	d.key("enter")
	v = &d.m.rvTask
	if v.editing || v.planets[0].KMS != 30 {
		t.Fatalf("after editing K: editing %v, K %v", v.editing, v.planets[0].KMS)
	}
	if m := v.analysis.Metrics; !(m.RMSMS > 3*fitRMS) || m.OKRMS {
		t.Errorf("K = 30 should spoil the dry run: %+v (fit rms %.2f)", m, fitRMS)
	}
	// An eccentricity of 1.5 is refused and leaves the table as it was.
	d.key("l")
	d.key("enter")
	d.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	d.keys("1", ".", "5")
	d.key("enter")
	v = &d.m.rvTask
	if v.planets[0].E >= 1 || !v.statusErr || !strings.Contains(d.m.View(), "e must lie in [0, 1)") {
		t.Errorf("e = 1.5 accepted (e %v, status %q)", v.planets[0].E, v.status)
	}
	d.key("x")
	if len(d.m.rvTask.planets) != 0 || math.Abs(d.m.rvTask.analysis.Metrics.RMSMS-nullRMS) > 1e-9 {
		t.Errorf("x left %d planets, rms %v, want %v", len(d.m.rvTask.planets), d.m.rvTask.analysis.Metrics.RMSMS, nullRMS)
	}
	d.key("f") // with no planet, f searches
	if got := fb.rv().fits; len(got) != 2 || got[1] != "search:rv-e-001" || len(d.m.rvTask.planets) != 1 {
		t.Errorf("f on an empty table called %v and left %d planets", got, len(d.m.rvTask.planets))
	}
	d.key("F")
	if got := fb.rv().fits; len(got) != 3 || got[2] != "search:rv-e-001" {
		t.Errorf("F called %v", got)
	}
}

func TestRVSubmitConfirmAndBudget(t *testing.T) {
	fb := newFakeBackend()
	d := openRVTask(t, fb, 100, 30)
	d.keys("a", "f")
	d.key("S")
	if !d.m.rvTask.confirming || !strings.Contains(d.m.View(), "spends 1 of 3") {
		t.Fatalf("S did not ask for confirmation:\n%s", d.m.View())
	}
	d.key("n")
	if d.m.rvTask.confirming || len(fb.rv().submits) != 0 {
		t.Fatalf("n submitted: %v", fb.rv().submits)
	}
	d.keys("S", "y")
	fbk := d.m.rvTask.feedback
	if len(fb.rv().submits) != 1 || fbk == nil || fbk.Passed == nil || !*fbk.Passed {
		t.Fatalf("submission: %v, feedback %+v", fb.rv().submits, fbk)
	}
	v := d.m.View()
	checkViewHas(t, "after submitting the view", v, "submission 1", "PASSED", "2 left", "left 2/3", "passed")
	if got := d.m.rvBrowser.all[0]; got.Left != 2 || !got.Passed {
		t.Errorf("the browser's row after a submission: %+v", got)
	}
	d.keys("S", "y", "S", "y")
	if d.m.rvTask.task.Meta.Left != 0 || len(fb.rv().submits) != 3 {
		t.Fatalf("after three submissions: left %d, %d recorded", d.m.rvTask.task.Meta.Left, len(fb.rv().submits))
	}
	d.key("S")
	if d.m.rvTask.confirming || !strings.Contains(d.m.View(), "no submission left") {
		t.Errorf("S with the budget spent:\n%s", d.m.View())
	}
}

func TestRVStaleMessagesDropped(t *testing.T) {
	d := openRVTask(t, newFakeBackend(), 100, 30)
	cur := d.m.rvTask.analysis
	d.send(rvAnalysedMsg{gen: d.m.rvTask.gen - 1, a: &rvAnalysis{}})
	if d.m.rvTask.analysis != cur {
		t.Error("an older analysis replaced the current one")
	}
	d.send(rvFittedMsg{id: "rv-h-001", fit: &RVFit{Planets: []rv.Planet{{PeriodDays: 3, KMS: 1}}}})
	if len(d.m.rvTask.planets) != 0 {
		t.Error("another task's fit changed the table")
	}
	d.send(rvSubmittedMsg{id: "rv-e-001", err: errors.Join(rvtrack.ErrBudgetSpent)})
	if d.m.rvTask.task.Meta.Left != 0 || !d.m.rvTask.statusErr {
		t.Error("a spent budget reported by the backend is not shown")
	}
}

func TestRVViewsFitTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 20}} {
		w, h := size[0], size[1]
		d := newDriver(t, newFakeBackend(), w, h)
		check := func(where string) { checkViewFits(t, d, w, h, where) }
		d.key("R")
		check("RV browser")
		d.key("enter")
		check("RV task")
		d.keys("a", "a", "f")
		check("RV task with planets")
		d.key("enter")
		check("editing")
		d.key("esc")
		d.key("S")
		check("confirming")
		d.key("y")
		check("feedback")
		d.key("?")
		check("full help")
		d.key("?")
	}
	// At 80×24 the planet table, the dry run and the periodogram's peaks are all visible.
	d := openRVTask(t, newFakeBackend(), 80, 24)
	d.keys("a", "f")
	v := d.m.View()
	checkViewHas(t, "80×24 task view", v,
		"12.29", "rms ", "ΔBIC/N", "FAP", "inst_A", "inst_B", "left 3/3", "S submit", "f fit")
}

func TestSetCell(t *testing.T) {
	base := rv.Planet{PeriodDays: 10, KMS: 5, E: 0.2, OmegaRad: 1, M0Rad: 2}
	tests := []struct {
		col  int
		text string
		want rv.Planet
		err  bool
	}{
		{colP, " 12.5 ", rv.Planet{PeriodDays: 12.5, KMS: 5, E: 0.2, OmegaRad: 1, M0Rad: 2}, false},
		{colP, "0", base, true},
		{colK, "-3", base, true},
		{colK, "abc", base, true},
		{colE, "0", rv.Planet{PeriodDays: 10, KMS: 5, OmegaRad: 1, M0Rad: 2}, false},
		{colE, "1", base, true},
		{colOmega, "-1", rv.Planet{PeriodDays: 10, KMS: 5, E: 0.2, OmegaRad: 2*math.Pi - 1, M0Rad: 2}, false},
		{colM0, "7", rv.Planet{PeriodDays: 10, KMS: 5, E: 0.2, OmegaRad: 1, M0Rad: 7 - 2*math.Pi}, false},
		{colM0, "NaN", base, true},
	}
	for _, tt := range tests {
		got, err := setCell(base, tt.col, tt.text)
		if (err != nil) != tt.err {
			t.Errorf("%s %q: error %v", cellNames[tt.col], tt.text, err)
		}
		if math.Abs(got.PeriodDays-tt.want.PeriodDays)+math.Abs(got.KMS-tt.want.KMS)+math.Abs(got.E-tt.want.E)+
			math.Abs(got.OmegaRad-tt.want.OmegaRad)+math.Abs(got.M0Rad-tt.want.M0Rad) > 1e-12 {
			t.Errorf("%s %q: %+v, want %+v", cellNames[tt.col], tt.text, got, tt.want)
		}
	}
}

func TestFeedbackLine(t *testing.T) {
	yes, no := true, false
	fb := rvgate.Feedback{Submission: 2, SubmissionsLeft: 1, OKRMS: true, OKDeltaBIC: true, OKMatch: &no, OKCount: &yes,
		Passed: &no, TaskPassed: true, BudgetStatus: rvgate.BudgetStatus{WithinBudget: true}}
	want := "submission 2: rms ✓ ΔBIC ✓ match ✗ count ✓ → not passed · 1 left · task passed before"
	if got := feedbackLine(fb); got != want {
		t.Errorf("feedbackLine = %q, want %q", got, want)
	}
	fb.OKRMSFair, fb.PassedFair, fb.TaskPassed = &yes, &no, false
	want = "submission 2: rms ✓ ΔBIC ✓ match ✗ count ✓ → not passed · 1 left · fair rms ✓ passed ✗"
	if got := feedbackLine(fb); got != want {
		t.Errorf("feedbackLine of a real task = %q, want %q", got, want)
	}
	// A passing submission after the time budget does not count; an earlier pass still does.
	fb = rvgate.Feedback{Submission: 3, OKRMS: true, OKDeltaBIC: true, OKMatch: &yes, OKCount: &yes, Passed: &yes,
		BudgetStatus: rvgate.BudgetStatus{OverBudget: []string{"seconds"}}}
	want = "submission 3: rms ✓ ΔBIC ✓ match ✓ count ✓ → PASSED · 0 left · over the seconds budget: does not count"
	if got := feedbackLine(fb); got != want {
		t.Errorf("feedbackLine of a late pass = %q, want %q", got, want)
	}
	fb.TaskPassed = true
	if got := feedbackLine(fb); got != want+" · task passed before" {
		t.Errorf("feedbackLine of a late pass on a passed task = %q", got)
	}
}

func TestClockNote(t *testing.T) {
	if got := clockNote(time.Time{}, time.Now()); got != "" {
		t.Errorf("clock of a task without one = %q", got)
	}
	at := time.Date(2026, 3, 1, 14, 52, 10, 0, time.Local)
	for _, c := range []struct {
		now  time.Time
		want string
	}{
		{at.Add(-750 * time.Second), " · 12:30 left"},
		{at.Add(-500 * time.Millisecond), " · 0:01 left"},
		{at, " · expired"},
		{at.Add(time.Hour), " · expired"},
	} {
		if got := clockNote(at, c.now); got != c.want {
			t.Errorf("clock at %v = %q, want %q", c.now, got, c.want)
		}
	}
}

// TestRVOpenAsksToStart: opening a task not started asks "Start task X? its N s clock starts now [y/n]"; any
// answer but y (q included, which does not quit) leaves the task not started and the browser showing; y opens
// it, starting its clock. A started task opens without asking.
func TestRVOpenAsksToStart(t *testing.T) {
	fb := newFakeBackend()
	d := newDriver(t, fb, 100, 30)
	d.keys("R", "enter")
	if d.m.state != stateRVBrowser || d.m.rvBrowser.confirming != "rv-e-001" {
		t.Fatalf("enter on a task not started: state %v, confirming %q", d.m.state, d.m.rvBrowser.confirming)
	}
	checkViewHas(t, "the question", d.m.View(), "Start task rv-e-001? its 600 s clock starts now [y/n]")
	for _, k := range []string{"n", "q", "esc"} {
		d.key(k)
		if d.quit || d.m.state != stateRVBrowser || d.m.rvBrowser.confirming != "" {
			t.Fatalf("%s to the question: quit %v, state %v, confirming %q", k, d.quit, d.m.state, d.m.rvBrowser.confirming)
		}
		if _, ok := fb.rv().started["rv-e-001"]; ok {
			t.Fatalf("%s to the question started the task", k)
		}
		d.key("enter")
	}
	checkViewHas(t, "the browser", d.m.View(), "not started")
	d.key("y")
	if d.m.state != stateRVTask || d.m.rvTask.task == nil {
		t.Fatalf("y: state %v, task loaded %v", d.m.state, d.m.rvTask.task != nil)
	}
	if _, ok := fb.rv().started["rv-e-001"]; !ok {
		t.Fatal("y did not start the task")
	}
	d.keys("esc")
	checkViewHas(t, "the browser after the start", d.m.View(), "10:00 left")
	d.key("enter") // started: no question
	if d.m.state != stateRVTask || d.m.rvBrowser.confirming != "" {
		t.Errorf("enter on a started task: state %v, confirming %q", d.m.state, d.m.rvBrowser.confirming)
	}
}

// TestRVHeaderClockCountsDown: the task view's header shows the time left on the task's clock as it ticks,
// and "expired" once it is past, never a time of day or a stale countdown; the clock stops ticking then.
func TestRVHeaderClockCountsDown(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rvNow = func() time.Time { return start }
	defer func() { rvNow = time.Now }()
	var ticks []string
	rvTick = func(id string) tea.Cmd { ticks = append(ticks, id); return nil }
	defer func() { rvTick = func(string) tea.Cmd { return nil } }()
	fb := newFakeBackend()
	d := openRVTask(t, fb, 120, 30)
	if len(ticks) != 1 || ticks[0] != "rv-e-001" {
		t.Fatalf("opening a started task ticked %v", ticks)
	}
	checkViewHas(t, "the opened task", d.m.View(), "10:00 left")
	d.send(rvClockMsg{"rv-e-001", start.Add(450 * time.Second)})
	checkViewHas(t, "450 s later", d.m.View(), "2:30 left")
	if len(ticks) != 2 {
		t.Errorf("the clock stopped ticking with time left: %v", ticks)
	}
	d.send(rvClockMsg{"rv-e-001", start.Add(601 * time.Second)})
	v := d.m.View()
	checkViewHas(t, "601 s later", v, "expired")
	if strings.Contains(v, "left 3/3 · 0:") || len(ticks) != 2 {
		t.Errorf("after expiry: ticks %v, view\n%s", ticks, v)
	}
	// A tick of another task is dropped.
	d.send(rvClockMsg{"rv-h-001", start})
	checkViewHas(t, "a stray tick", d.m.View(), "expired")
}

func TestAnalyseRVResidualsLoseThePeak(t *testing.T) {
	d := fakeRVData(fakeRVPlanet, 60, 100)
	data := rvtrack.Analyse(d, 1.5, nil, 0, false)
	res := rvtrack.Analyse(d, 1.5, []rv.Planet{fakeRVPlanet}, 0, true)
	if math.Abs(data.Peaks[0].PeriodDays/fakeRVPlanet.PeriodDays-1) > 0.03 || data.FAP[0] > 1e-6 {
		t.Errorf("data: strongest peak %.3f d with FAP %g", data.Peaks[0].PeriodDays, data.FAP[0])
	}
	for i, p := range res.Peaks {
		if math.Abs(p.PeriodDays/fakeRVPlanet.PeriodDays-1) < 0.03 {
			t.Errorf("residual peak %d still at the planet's period %.3f d", i+1, p.PeriodDays)
		}
	}
	if !res.Metrics.OKRMS || !res.Metrics.OKDeltaBIC || res.Metrics.RMSMS > 1.5 {
		t.Errorf("the true planet's dry run: %+v", res.Metrics)
	}
	if len(res.Eval.Offsets) != 2 || math.Abs(res.Eval.Offsets[0]-5) > 0.5 || math.Abs(res.Eval.Offsets[1]+20) > 0.5 {
		t.Errorf("offsets %v, want about 5 and −20", res.Eval.Offsets)
	}
}

func TestRVChartsGolden(t *testing.T) {
	d := fakeRVData(fakeRVPlanet, 60, 100)
	a := rvtrack.Analyse(d, 1.5, []rv.Planet{fakeRVPlanet}, 0, true)
	data, res := rvCharts(d, a, 60, 9, 4)
	out := strings.Join(data.Lines(nil), "\n") + "\n" + strings.Join(res.Lines(nil), "\n") + "\n"
	golden.RequireEqual(t, []byte(out))
}

func TestPlanetLinesGolden(t *testing.T) {
	st := NewStyles(DefaultTheme)
	planets := []rv.Planet{fakeRVPlanet, {PeriodDays: 1234.5, KMS: 25.25, E: 0.5, OmegaRad: 4, M0Rad: 0.5}}
	m := rvgate.ModelMetrics{RMSMS: 1.23, MaxRMSMS: 2.25, DeltaBICPerPoint: 0.4, OKRMS: true, OKDeltaBIC: true}
	out := strings.Join(planetLines(st, planets, 0.7, m, 1, colK, "", 7), "\n") + "\n" +
		strings.Join(planetLines(st, nil, 0, rvgate.ModelMetrics{MaxRMSMS: 2.25}, 0, 0, " K_ms = 3", 5), "\n") + "\n"
	golden.RequireEqual(t, []byte(out))
}
