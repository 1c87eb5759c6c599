package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"transitbench/data"
	"transitbench/engine/bls"
	"transitbench/grader"
)

func init() {
	// Golden files hold plain text: no colour, whatever terminal runs the tests.
	lipgloss.SetColorProfile(termenv.Ascii)
}

func TestPanelGolden(t *testing.T) {
	st := NewStyles(DefaultTheme)
	body := []string{"first line", "a line far too long for the panel, cut at its border", "", "last"}
	out := Panel(st, "Candidates", "rows ── truth", body, 30, 6, false) + "\n" +
		Panel(st, "Folded", "", []string{"x"}, 16, 3, true) + "\n"
	golden.RequireEqual(t, []byte(out))
}

func TestPanelSize(t *testing.T) {
	st := NewStyles(DefaultTheme)
	for _, size := range [][2]int{{4, 2}, {10, 3}, {33, 12}} {
		p := Panel(st, "Light curve", "a subtitle longer than the panel is wide", []string{"a", "b"}, size[0], size[1], true)
		lines := strings.Split(p, "\n")
		if len(lines) != size[1] {
			t.Errorf("%v: %d lines", size, len(lines))
		}
		for _, l := range lines {
			if lipgloss.Width(l) != size[0] {
				t.Errorf("%v: line %q is %d wide", size, l, lipgloss.Width(l))
			}
		}
	}
	if Panel(st, "x", "", nil, 3, 5, false) != "" {
		t.Error("a panel too narrow for its border should be empty")
	}
}

func TestFilterStars(t *testing.T) {
	all := []StarMeta{
		{ID: "dev-0001", Category: "injected", Population: "random", Outcome: "hit", MES: 12},
		{ID: "dev-0002", Category: "injected", Population: "false_alarm", Outcome: "missed", MES: 7.1},
		{ID: "dev-0003", Category: "eb"},
		{ID: "dev-0004", Category: "untouched", Population: "false_alarm", Outcome: "false"},
	}
	tests := []struct {
		f    starFilter
		want string
	}{
		{starFilter{}, "dev-0001 dev-0002 dev-0003 dev-0004"},
		{starFilter{Category: "injected"}, "dev-0001 dev-0002"},
		{starFilter{Population: "false_alarm"}, "dev-0002 dev-0004"},
		{starFilter{Outcome: "not run"}, "dev-0003"},
		{starFilter{Outcome: "false"}, "dev-0004"},
		{starFilter{Text: "0003"}, "dev-0003"},
		{starFilter{Text: "FALSE_"}, "dev-0002 dev-0004"},
		{starFilter{Category: "injected", Outcome: "hit"}, "dev-0001"},
		{starFilter{Category: "confirmed"}, ""},
		{starFilter{MES: "7.1-10"}, "dev-0002"}, // 7.1 is the bin's lower edge
		{starFilter{MES: "10-20"}, "dev-0001"},
		{starFilter{MES: "none"}, "dev-0003 dev-0004"},
		{starFilter{MES: "4-7.1"}, ""},
	}
	for _, tt := range tests {
		var ids []string
		for _, s := range filterStars(all, tt.f) {
			ids = append(ids, s.ID)
		}
		if got := strings.Join(ids, " "); got != tt.want {
			t.Errorf("filter %+v = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestSortStars(t *testing.T) {
	base := []StarMeta{
		{ID: "c", MES: 9, CDPP6: 50, Kepmag: 15, Outcome: "hit", Category: "eb"},
		{ID: "a", MES: 12, CDPP6: 300, Kepmag: 11, Outcome: "false", Category: "injected"},
		{ID: "b", MES: 9, CDPP6: 10, Kepmag: 13, Outcome: "", Category: "untouched"},
	}
	tests := []struct {
		by      string
		reverse bool
		want    string
	}{
		{"id", false, "a b c"},
		{"id", true, "c b a"},
		{"mes", false, "b c a"}, // ties broken by id
		{"mes", true, "a c b"},
		{"cdpp", false, "b c a"},
		{"kepmag", false, "a b c"},
		{"outcome", false, "a c b"}, // false first, not run last
		{"category", false, "c a b"},
	}
	for _, tt := range tests {
		l := append([]StarMeta{}, base...)
		sortStars(l, tt.by, tt.reverse)
		got := l[0].ID + " " + l[1].ID + " " + l[2].ID
		if got != tt.want {
			t.Errorf("sort %s reverse %v = %q, want %q", tt.by, tt.reverse, got, tt.want)
		}
	}
}

func TestCycle(t *testing.T) {
	if got := cycle(categoryChoices, ""); got != "injected" {
		t.Errorf("cycle from any = %q", got)
	}
	if got := cycle(categoryChoices, "confirmed"); got != "" {
		t.Errorf("cycle wraps to %q", got)
	}
	if got := cycle(categoryChoices, "bogus"); got != "" {
		t.Errorf("cycle from an unknown value = %q", got)
	}
}

func TestStepTarget(t *testing.T) {
	list := []foldTarget{{targetRow, 0}, {targetTruth, 0}, {targetPeak, 0}, {targetPeak, 1}}
	tests := []struct {
		cur  foldTarget
		step int
		want foldTarget
	}{
		{foldTarget{targetRow, 0}, 1, foldTarget{targetTruth, 0}},
		{foldTarget{targetPeak, 1}, 1, foldTarget{targetPeak, 1}}, // clamped at the end
		{foldTarget{targetRow, 0}, -1, foldTarget{targetRow, 0}},  // and at the start
		{foldTarget{targetPeak, 0}, -1, foldTarget{targetTruth, 0}},
	}
	for _, tt := range tests {
		if got := stepTarget(list, tt.cur, tt.step); got != tt.want {
			t.Errorf("stepTarget(%+v, %d) = %+v, want %+v", tt.cur, tt.step, got, tt.want)
		}
	}
}

func TestLayout(t *testing.T) {
	for _, size := range [][2]int{{80, 22}, {120, 38}, {200, 58}} {
		w, h := size[0], size[1]
		lcW, candW, topH, pgW, foldW, botH := layout(w, h)
		if lcW+candW != w || pgW+foldW != w || topH+botH != h {
			t.Errorf("layout(%d, %d) does not tile: %d+%d, %d+%d, %d+%d", w, h, lcW, candW, pgW, foldW, topH, botH)
		}
		if candW < 30 || lcW < candW {
			t.Errorf("layout(%d, %d): light curve %d, candidates %d", w, h, lcW, candW)
		}
	}
}

func TestResolveTarget(t *testing.T) {
	d := &StarData{
		Answer: &data.Answer{Category: "injected", Planet: &data.Planet{PeriodDays: 10, T0Days: 105, DurationDays: 0.2}},
		Peaks:  []bls.Peak{{PeriodDays: 3.001, T0Days: 101, DurationDays: 0.09}},
		Result: &grader.StarResult{Rows: []grader.RowResult{
			{Row: grader.Row{PeriodDays: 10.001, T0Days: 105}, Planet: 0},
			{Row: grader.Row{PeriodDays: 3, T0Days: 101}, Planet: -1},
			{Row: grader.Row{PeriodDays: 44, T0Days: 120}, Planet: -1},
		}},
	}
	tests := []struct {
		target foldTarget
		want   ephemeris
		ok     bool
	}{
		{foldTarget{targetTruth, 0}, eph("truth", 10, 105, 0.2), true},
		{foldTarget{targetPeak, 0}, eph("peak 1", 3.001, 101, 0.09), true},
		{foldTarget{targetPeak, 1}, ephemeris{}, false},
		{foldTarget{targetRow, 0}, eph("row 1", 10.001, 105, 0.2), true},             // claimed: the truth's T14
		{foldTarget{targetRow, 1}, eph("row 2", 3, 101, 0.09), true},                 // a peak within 1 %
		{foldTarget{targetRow, 2}, eph("row 3", 44, 120, defaultDurationDays), true}, // neither
		{foldTarget{targetRow, 3}, ephemeris{}, false},
	}
	for _, tt := range tests {
		got, ok := resolveTarget(d, tt.target)
		if ok != tt.ok || got != tt.want {
			t.Errorf("resolveTarget(%+v) = %+v, %v; want %+v, %v", tt.target, got, ok, tt.want, tt.ok)
		}
	}
	eb := &StarData{Answer: &data.Answer{Category: "eb", EB: &data.EB{PeriodDays: 2, T0Days: 100, PrimaryDurationDays: 0.1}}}
	if e, ok := resolveTarget(eb, foldTarget{Kind: targetTruth}); !ok || e.PeriodDays != 2 || e.DurationDays != 0.1 {
		t.Errorf("EB truth = %+v, %v", e, ok)
	}
	if _, ok := resolveTarget(&StarData{Answer: &data.Answer{Category: "untouched"}}, foldTarget{Kind: targetTruth}); ok {
		t.Error("an untouched star has a truth to fold at")
	}
}

// eph is an ephemeris (quicklook.Ephemeris, whose unkeyed literal vet refuses outside its package).
func eph(label string, p, t0, dur float64) ephemeris {
	return ephemeris{Label: label, PeriodDays: p, T0Days: t0, DurationDays: dur}
}

func TestTransitMarks(t *testing.T) {
	marks := transitMarks(ephemeris{PeriodDays: 10, T0Days: 105}, 100, 131)
	var xs []float64
	for _, m := range marks {
		xs = append(xs, m.X)
	}
	if len(xs) != 3 || xs[0] != 105 || xs[2] != 125 {
		t.Errorf("marks at %v, want 105 115 125", xs)
	}
	if n := len(transitMarks(ephemeris{PeriodDays: 0.001, T0Days: 0}, 0, 100)); n != 400 {
		t.Errorf("%d marks for a tiny period, want the cap of 400", n)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{statusText(grader.StatusFull), "hit"},
		{statusText(grader.StatusHalf2x), "½ (2×P)"},
		{statusText(grader.StatusHalfThird), "½ (P/3)"},
		{statusText(grader.StatusFalse), "false"},
		{statusOutcome(grader.StatusHalfHalf), "half"},
		{formatPPM(0.000312), "312 ppm"},
		{formatNum(0, 1, true), "–"},
		{formatNum(0, 1, false), "0.0"},
		{shortHash("0123456789abcdef"), "0123456789ab"},
		{shortPopulation("false_alarm"), "false-alarm"},
		{formatScore(grader.Summary{Totals: grader.Totals{S: 0.5, C: 0.75, F: 12.5, EBShare: 0.25, Credit: 3, False: 1, Planets: 4}}),
			"S 0.500  C 0.750  F 12.5  EB 0.25  (credit 3.0, false 1, planets 4)"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestScreenHelpHasNoDuplicates(t *testing.T) {
	km := DefaultKeyMap()
	sk := screenKeys{short: []key.Binding{km.Dev, km.Cancel}, km: km}
	seen := map[string]bool{}
	for _, b := range sk.ShortHelp() {
		if seen[b.Help().Key] {
			t.Errorf("%q listed twice", b.Help().Key)
		}
		seen[b.Help().Key] = true
	}
	if !seen["q"] || !seen["esc"] {
		t.Errorf("help lacks the screen's or the global keys: %v", seen)
	}
}

func TestCandidateLinesGolden(t *testing.T) {
	st := NewStyles(DefaultTheme)
	d := &StarData{
		Answer: &data.Answer{Category: "injected", Planet: &data.Planet{PeriodDays: 6.173, T0Days: 173.22, DurationDays: 0.129, MES: 9.4}},
		Peaks:  []bls.Peak{{PeriodDays: 6.1731, T0Days: 173.21, SNR: 14.2, Depth: 0.000312}, {PeriodDays: 3.0107, T0Days: 170.02, SNR: 9.8, Depth: 0.0002}},
		Result: &grader.StarResult{RowsGiven: 4, Rows: []grader.RowResult{
			{Row: grader.Row{PeriodDays: 12.3461, T0Days: 173.21, Score: 14.2}, Rank: 1, Status: grader.StatusHalf2x},
			{Row: grader.Row{PeriodDays: 3.0107, T0Days: 170.02, Score: 9.8}, Rank: 2, Status: grader.StatusFalse},
		}},
	}
	full := candidateLines(st, d, foldTarget{Kind: targetRow, Index: 0}, false)
	compact := candidateLines(st, d, foldTarget{Kind: targetPeak, Index: 1}, true)
	out := strings.Join(full, "\n") + "\n\n" + strings.Join(compact, "\n") + "\n"
	golden.RequireEqual(t, []byte(out))
	for _, l := range compact {
		if w := lipgloss.Width(l); w > 28 {
			t.Errorf("compact line %q is %d wide, more than an 80-column terminal's panel holds", l, w)
		}
	}
}
