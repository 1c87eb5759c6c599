package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/internal/testsets"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// hiddenMark is what the test's solution prints to stderr on every star, followed by the star's id.
const hiddenMark = "TUI-STDERR-MARK-"

// writeOracle writes a solution printing every star's true planet ephemeris (from answers) and its id after
// hiddenMark on stderr.
func writeOracle(t *testing.T, dir, home string, comp map[string]sets.Composition, answers map[string]data.Answer) {
	t.Helper()
	curves, err := testsets.CurveIDs(home, comp)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteRunScript(t, dir, testsets.OracleScriptByCurve(testsets.PlanetRows(answers), curves, "echo \""+hiddenMark+"$id\" >&2\n", ""))
}

// shown returns the forms of the answers' planet periods (%.4f, %.6f, %.8f, shortest) and the stderr mark of
// the stars with the id prefix that appear in screen.
func shown(screen string, answers map[string]data.Answer, prefix string) []string {
	var found []string
	for _, a := range answers {
		if a.Planet == nil {
			continue
		}
		p := a.Planet.PeriodDays
		for _, f := range []string{fmt.Sprintf("%.4f", p), fmt.Sprintf("%.6f", p), fmt.Sprintf("%.8f", p), strconv.FormatFloat(p, 'g', -1, 64)} {
			if strings.Contains(screen, f) {
				found = append(found, f)
				break
			}
		}
	}
	if strings.Contains(screen, hiddenMark+prefix) {
		found = append(found, hiddenMark+prefix)
	}
	return found
}

// TestGradeScreensShowNoHiddenTruth grades, through the real backend and the grade screen, a solution that
// prints the true ephemerides and a mark on stderr on every star, and checks every screen drawn meanwhile, and
// the star view asked for a hidden star, for the hidden sets' periods and mark. The star view of a dev star
// shows the dev truth: the control that the search would see it.
func TestGradeScreensShowNoHiddenTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three small sets and grades on them: not in -short mode")
	}
	comp := map[string]sets.Composition{
		sets.Dev: {Injected: 2, Untouched: 1, EB: 1, Confirmed: 1},
		sets.A:   {Injected: 3, Untouched: 1, EB: 1, Confirmed: 1},
		sets.B:   {Injected: 3, Untouched: 1, EB: 1, Confirmed: 1},
	}
	home, dir := t.TempDir(), filepath.Join(t.TempDir(), "ws")
	ws, err := workspace.Init(dir, workspace.InitOptions{Home: home, Lang: "python", Compositions: comp})
	if err != nil {
		t.Fatal(err)
	}
	answers, all, err := testsets.Open(home, comp)
	if err != nil {
		t.Fatal(err)
	}
	writeOracle(t, ws.SolutionDir(), home, comp, all)
	r, err := OpenReal(context.Background(), OpenOptions{Home: home, Workspace: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Compositions = comp

	if _, err := r.LoadStar(context.Background(), "A-0000"); !errors.Is(err, workspace.ErrHiddenStar) {
		t.Errorf("LoadStar of a hidden star: %v, want ErrHiddenStar", err)
	}
	d := newDriver(t, r, 120, 40)
	var screens []string
	d.onView = func(v string) { screens = append(screens, v) }
	d.key("g")
	if v := d.m.View(); !strings.Contains(v, "This will be grading #1 of this workspace") {
		t.Errorf("the confirmation does not say which grading it starts:\n%s", v)
	}
	d.key("y")
	if d.m.grade.step != gradeDone || d.m.grade.err != nil || d.m.grade.result == nil {
		t.Fatalf("grading through the screen: step %v, error %v", d.m.grade.step, d.m.grade.err)
	}
	res := d.m.grade.result
	// The grade screen's data carries S alone on A and B: the oracle's S, no credit or breakdown.
	if res.Grading != 1 || res.A.S <= 0 || res.A.Credit != 0 || res.A.Planets != 0 || res.B.ByPopulation.Random.Planets != 0 ||
		res.Dev.Credit == 0 || len(res.Withheld) != 0 {
		t.Fatalf("grade result %+v", res)
	}
	last := d.m.View()
	if !strings.Contains(last, "grading #1 of this workspace") {
		t.Errorf("the grade screen does not show the grading's number:\n%s", last)
	}
	// A hidden star asked for directly (as a browser of any list would): refused, nothing of it shown.
	d.send(openStarMsg{ids: []string{"A-0001", "B-0002"}, index: 0})
	d.key("right")
	hidden := strings.Join(screens, "\n") + d.m.View()
	if !strings.Contains(hidden, "hidden stars are not shown") {
		t.Errorf("the star view of a hidden star does not say it is not shown:\n%s", d.m.View())
	}
	for _, name := range []string{sets.A, sets.B} {
		if got := shown(hidden, answers[name], name+"-"); len(got) > 0 {
			t.Errorf("the screens show %s's %v", name, got)
		}
	}
	if strings.Contains(hidden, "A-0000") {
		t.Error("the screens name a hidden star")
	}

	// The control: the star view of a dev star with a planet shows its period.
	var devStar string // the first dev star with a scored planet
	for _, id := range r.Set.IDs {
		if a := answers[sets.Dev][id]; len(a.ScoredPlanets()) > 0 {
			devStar = id
			break
		}
	}
	d.send(openStarMsg{ids: []string{devStar}, index: 0})
	if got := shown(d.m.View(), answers[sets.Dev], "dev-"); len(got) == 0 {
		t.Fatalf("the control failed: the star view of %s shows none of the dev truth:\n%s", devStar, d.m.View())
	}
}
