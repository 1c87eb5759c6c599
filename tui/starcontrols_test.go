package tui

import (
	"math"
	"strings"
	"testing"

	"transitbench/workspace/chart"
)

func TestZoomTime(t *testing.T) {
	full := [2]float64{100, 160}
	tests := []struct {
		name string
		cur  [2]float64
		op   zoomOp
		want [2]float64
		ok   bool
		why  string
	}{
		{"in from all halves about the centre", [2]float64{}, zoomIn, [2]float64{115, 145}, true, ""},
		{"in again", [2]float64{115, 145}, zoomIn, [2]float64{122.5, 137.5}, true, ""},
		{"out doubles", [2]float64{122.5, 137.5}, zoomOut, [2]float64{115, 145}, true, ""},
		{"out to all is the zero range", [2]float64{115, 145}, zoomOut, [2]float64{}, true, ""},
		{"out past all", [2]float64{}, zoomOut, [2]float64{}, false, "the whole light curve is shown"},
		{"out near an end stays inside", [2]float64{100, 120}, zoomOut, [2]float64{100, 140}, true, ""},
		{"pan left by half the range", [2]float64{115, 145}, panLeft, [2]float64{100, 130}, true, ""},
		{"pan left stops at the start", [2]float64{105, 135}, panLeft, [2]float64{100, 130}, true, ""},
		{"pan left at the start", [2]float64{100, 130}, panLeft, [2]float64{100, 130}, false, "at the start of the light curve"},
		{"pan right", [2]float64{100, 130}, panRight, [2]float64{115, 145}, true, ""},
		{"pan right at the end", [2]float64{130, 160}, panRight, [2]float64{130, 160}, false, "at the end of the light curve"},
		{"pan on all", [2]float64{}, panRight, [2]float64{}, false, "at the end of the light curve"},
		{"in down to the shortest range", [2]float64{130, 130.4}, zoomIn, [2]float64{130.075, 130.325}, true, ""},
		{"in at the shortest range", [2]float64{130, 130.25}, zoomIn, [2]float64{130, 130.25}, false, "zoomed in as far as it goes (0.25 d)"},
	}
	for _, tt := range tests {
		got, ok, why := zoomTime(full, tt.cur, tt.op)
		if ok != tt.ok || why != tt.why || abs(got[0]-tt.want[0]) > 1e-9 || abs(got[1]-tt.want[1]) > 1e-9 {
			t.Errorf("%s: zoomTime(%v, %v) = %v, %v, %q; want %v, %v, %q", tt.name, tt.cur, tt.op, got, ok, why, tt.want, tt.ok, tt.why)
		}
	}
	if _, ok, _ := zoomTime([2]float64{}, [2]float64{}, zoomIn); ok {
		t.Error("a light curve without a time range zoomed")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestTimeSlice(t *testing.T) {
	nan := math.NaN()
	ts := []float64{1, 2, nan, 4, 5, 6}
	tests := []struct {
		r    [2]float64
		i, j int
	}{
		{[2]float64{}, 0, 6},
		{[2]float64{2, 5}, 1, 5}, // the NaN time inside is kept: the chart skips it
		{[2]float64{4.5, 10}, 4, 6},
		{[2]float64{7, 8}, 0, 0},
	}
	for _, tt := range tests {
		if i, j := timeSlice(ts, tt.r); i != tt.i || j != tt.j {
			t.Errorf("timeSlice(%v) = %d, %d; want %d, %d", tt.r, i, j, tt.i, tt.j)
		}
	}
}

func TestStepWindow(t *testing.T) {
	tests := []struct {
		cur  float64
		dir  int
		want float64
		ok   bool
	}{
		{1.5, 1, 2, true}, {1.5, -1, 1, true}, {1.25, 1, 1.5, true}, {1.25, -1, 1, true},
		{3, 1, 3, false}, {4, -1, 3, true}, {0.5, -1, 0.5, false}, {0.3, 1, 0.5, true},
	}
	for _, tt := range tests {
		got, ok, why := stepWindow(tt.cur, tt.dir)
		if got != tt.want || ok != tt.ok || ok == (why != "") {
			t.Errorf("stepWindow(%g, %d) = %g, %v, %q; want %g, %v", tt.cur, tt.dir, got, ok, why, tt.want, tt.ok)
		}
	}
	if _, _, why := stepWindow(0.5, -1); why != "the shortest detrending window is 0.5 d" {
		t.Errorf("at the shortest window: %q", why)
	}
}

func TestParseEphemeris(t *testing.T) {
	tests := []struct {
		in      string
		want    ephemeris
		wantErr string
	}{
		{"5.3 102.1", ephemeris{Label: "typed", PeriodDays: 5.3, T0Days: 102.1, DurationDays: defaultDurationDays}, ""},
		{" 5.3, 102.1, 3.6 ", ephemeris{Label: "typed", PeriodDays: 5.3, T0Days: 102.1, DurationDays: 0.15}, ""},
		{"12\t-3.5 2", ephemeris{Label: "typed", PeriodDays: 12, T0Days: -3.5, DurationDays: 2.0 / 24}, ""},
		{"", ephemeris{}, "type the period in d and t0 in BKJD"},
		{"5.3", ephemeris{}, "type the period in d and t0 in BKJD"},
		{"5.3 102.1 3 4", ephemeris{}, "type the period in d and t0 in BKJD"},
		{"five 102.1", ephemeris{}, `"five" is not a number`},
		{"5.3 NaN", ephemeris{}, `"NaN" is not a number`},
		{"0 102.1", ephemeris{}, "the period must be positive, not 0 d"},
		{"-2 102.1", ephemeris{}, "the period must be positive, not -2 d"},
		{"5.3 102.1 0", ephemeris{}, "the duration must be positive and shorter than the period, not 0 h"},
		{"0.1 102.1 3", ephemeris{}, "the duration must be positive and shorter than the period, not 3 h"},
	}
	for _, tt := range tests {
		got, err := parseEphemeris(tt.in)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("parseEphemeris(%q): %v", tt.in, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("parseEphemeris(%q) error %v, want one saying %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && (got.Label != tt.want.Label || got.PeriodDays != tt.want.PeriodDays ||
			got.T0Days != tt.want.T0Days || abs(got.DurationDays-tt.want.DurationDays) > 1e-12):
			t.Errorf("parseEphemeris(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestMergeMarks(t *testing.T) {
	marks := []chart.PeakMark{
		{PeriodDays: 5.2984, Label: "1"}, {PeriodDays: 9.53, Label: "2"}, {PeriodDays: 5.3, Label: "r1", Current: true},
		{PeriodDays: 5.3, Label: "T"}, {PeriodDays: 10.6, Label: "r2"},
	}
	got := mergeMarks(marks, samePeriod)
	want := []chart.PeakMark{{PeriodDays: 5.2984, Label: "1/r1/T", Current: true}, {PeriodDays: 9.53, Label: "2"},
		{PeriodDays: 10.6, Label: "r2"}}
	if len(got) != len(want) {
		t.Fatalf("mergeMarks = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mark %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
