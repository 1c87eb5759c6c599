package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ScorePoint is one solution on the leaderboard's plot: its score S on set A and on set B, a short label, and
// whether it is a reference row (a baseline, or a published value) rather than a grading.
type ScorePoint struct {
	Label     string
	SA, SB    float64
	Reference bool
}

var colReference = color.RGBA{R: 120, G: 120, B: 120, A: 255}

// ScorePlot is S on A against S on B (gradings in blue, reference rows in grey, each labelled), with the
// diagonal S_A = S_B: a solution tuned to one hidden set falls off it.
func ScorePlot(points []ScorePoint) *plot.Plot {
	p := plot.New()
	p.Title.Text = "score on A against score on B (diagonal: equal)"
	p.X.Label.Text, p.Y.Label.Text = "S on A (the score)", "S on B (replication)"
	p.X.Tick.Marker, p.Y.Tick.Marker = ticks{}, ticks{}
	lo, hi := -0.2, 1.0
	for _, pt := range points {
		lo, hi = math.Min(lo, math.Min(pt.SA, pt.SB)), math.Max(hi, math.Max(pt.SA, pt.SB))
	}
	if l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}}); err == nil {
		l.LineStyle.Color, l.LineStyle.Width, l.LineStyle.Dashes = colReference, vg.Points(0.5), []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
	}
	for _, ref := range []bool{true, false} {
		var xys plotter.XYs
		var labels []string
		for _, pt := range points {
			if pt.Reference == ref && !math.IsNaN(pt.SA) && !math.IsNaN(pt.SB) {
				xys, labels = append(xys, plotter.XY{X: pt.SA, Y: pt.SB}), append(labels, " "+pt.Label)
			}
		}
		if len(xys) == 0 {
			continue
		}
		col, shape := color.Color(colBinned), draw.GlyphDrawer(draw.CircleGlyph{})
		if ref {
			col, shape = colReference, draw.BoxGlyph{}
		}
		s := scatter(xys, col, 3)
		s.GlyphStyle.Shape = shape
		p.Add(s)
		if l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels}); err == nil {
			for i := range l.TextStyle {
				l.TextStyle[i].Font.Size = vg.Points(7)
			}
			p.Add(l)
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo-0.05, hi+0.05, lo-0.05, hi+0.05
	return p
}

// RuntimeHistogram is the distribution of a run's runtimes per star (seconds) in bins, counts on the y axis.
func RuntimeHistogram(seconds []float64, bins int) *plot.Plot {
	p := plot.New()
	p.Title.Text = "runtime per star"
	p.X.Label.Text, p.Y.Label.Text = "runtime (s)", "stars"
	var v plotter.Values
	for _, s := range seconds {
		if !math.IsNaN(s) && !math.IsInf(s, 0) {
			v = append(v, s)
		}
	}
	if len(v) == 0 {
		p.Title.Text = "runtime per star: no stars"
		return p
	}
	h, err := plotter.NewHist(v, max(bins, 1))
	if err != nil {
		return p
	}
	h.FillColor, h.LineStyle.Color = colBinned, color.White
	p.Add(h)
	p.Y.Min = 0
	return p
}
