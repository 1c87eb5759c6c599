package figure

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"transitbench/workspace/quicklook"
)

// TestThinXYKeepsTheEnvelope thins 10,000 points of a sine with one deep dip to 50 columns: far fewer points,
// the dip and the highest point kept, every point kept from inside the range.
func TestThinXYKeepsTheEnvelope(t *testing.T) {
	var x, y []float64
	for i := range 10_000 {
		x, y = append(x, float64(i)), append(y, math.Sin(float64(i)/300))
	}
	y[4321] = -5 // a one-cadence dip
	tx, ty := ThinXY(x, y, 0, 9_999, 50)
	if len(tx) > 50*(2+ThinStride)+1 || len(tx) < 100 {
		t.Errorf("thinned to %d points", len(tx))
	}
	if i := slices.Index(tx, 4321); i < 0 || ty[i] != -5 {
		t.Error("the dip was thinned away")
	}
	if slices.Max(ty) != slices.Max(y) || !slices.IsSorted(tx) {
		t.Errorf("max %v of %v, sorted %v", slices.Max(ty), slices.Max(y), slices.IsSorted(tx))
	}
	if ax, _ := ThinXY(x, y, 0, 9_999, 0); len(ax) != len(x) {
		t.Error("0 columns did not keep every point")
	}
}

// TestThinnedStarAndPanels thins the test star and draws the single panels as SVG: each has its axis labels.
func TestThinnedStarAndPanels(t *testing.T) {
	s := testStar(t)
	th := Thin(s, 100)
	if len(th.Time) >= len(s.Time) || len(th.Time) < 200 || len(th.Periods) >= len(s.Periods) {
		t.Errorf("thinned %d cadences to %d, %d periods to %d", len(s.Time), len(th.Time), len(s.Periods), len(th.Periods))
	}
	if slices.Min(finite(th.Flat)) > slices.Min(finite(s.Flat)) {
		t.Error("the thinned light curve lost its deepest point")
	}
	e, _ := quicklook.Peak(s.Peaks, 0)
	f := quicklook.FoldAt(s.Analysis, e)
	for _, c := range []struct {
		p      *plot.Plot
		labels []string
	}{
		{FoldCurvePlot(e, f.All, 50), []string{"hours from mid-transit", "detrended flux − 1 (ppm)"}},
		{OddEvenPlot(f, 50), []string{"odd (blue) / even (orange) at peak 1", "hours from mid-transit"}},
		{SecondaryPlot(f, 50), []string{"secondary at phase", "hours from the secondary"}}, // the apostrophe is escaped in SVG
		{ScorePlot([]ScorePoint{{"a", 0.5, 0.4, false}, {"b", 0.8, 0.8, true}}), []string{"S on A (the score)", "S on B (replication)"}},
		{RuntimeHistogram([]float64{0.1, 0.2, 0.2, 3}, 5), []string{"runtime (s)", "stars"}},
	} {
		var b bytes.Buffer
		if err := WritePlot(&b, c.p, 5, 3, SVG); err != nil {
			t.Fatal(err)
		}
		for _, l := range c.labels {
			if !strings.Contains(b.String(), l) {
				t.Errorf("%q: the SVG lacks %q", c.p.Title.Text, l)
			}
		}
	}
	if err := WritePlot(&bytes.Buffer{}, plot.New(), 0, 3, SVG); err != ErrWidth {
		t.Errorf("a zero width gave %v", err)
	}
}

func finite(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// TestRecallPlotDrawsEverySeries: the recall figure is an SVG naming every series in its legend and every MES
// bin on its axis, with a line and glyphs per series (a bin without planets, NaN, is left out).
func TestRecallPlotDrawsEverySeries(t *testing.T) {
	nan := math.NaN()
	p := RecallPlot("recall on A", []RecallSeries{
		{Name: "starter", Recall: []float64{0.04, 0.38, 0.86, nan}},
		{Name: "expert", Recall: []float64{0.1, 0.7, 0.9, nan}},
	})
	var b bytes.Buffer
	if err := WritePlot(&b, p, 6, 4, SVG); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"starter", "expert", "7.1–10", "10–20", "recall on A"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the figure does not show %q", want)
		}
	}
	if n := strings.Count(b.String(), "<path"); n < 4 {
		t.Errorf("%d paths in the figure, want at least a line and its points per series", n)
	}
}
