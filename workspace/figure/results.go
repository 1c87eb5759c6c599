package figure

import (
	"image/color"
	"math"
	"time"

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

// HistoryPoint is one grading on the leaderboard's chart of S over time: when it ran, its label (the
// contestant's or the workspace's, and its ordinal), its S on A (NaN while withheld), its S on the dev set with
// that score's standard error (NaN when it has none) and whether it re-graded a solution graded before.
type HistoryPoint struct {
	Label   string
	Time    time.Time
	SA      float64
	Dev     float64
	DevSE   float64
	Regrade bool
}

var colDev = color.RGBA{R: 120, G: 120, B: 120, A: 255}

// ScoreHistoryPlot is S on A of every grading against the date it ran: first gradings as filled circles,
// re-gradings (--again) as rings, each labelled, and S on the dev set as a grey square with its ±1 standard
// error bar (the dev set's scatter: grader.StandardErrorS) at the same date.
func ScoreHistoryPlot(points []HistoryPoint) *plot.Plot {
	p := plot.New()
	p.Title.Text = "S over time: S on A per grading (rings: re-gradings), S on dev ± 1 SE in grey"
	p.X.Label.Text, p.Y.Label.Text = "date graded (UTC)", "S"
	p.Y.Tick.Marker = ticks{}
	if len(points) == 0 {
		p.Title.Text = "S over time: no gradings yet"
		return p
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	tlo, thi := math.Inf(1), math.Inf(-1)
	var first, again, dev plotter.XYs
	var firstL, againL []string
	var devErr xyErrs
	for _, pt := range points {
		x := float64(pt.Time.Unix())
		tlo, thi = math.Min(tlo, x), math.Max(thi, x)
		if isFinite(pt.SA) {
			lo, hi = math.Min(lo, pt.SA), math.Max(hi, pt.SA)
			if pt.Regrade {
				again, againL = append(again, plotter.XY{X: x, Y: pt.SA}), append(againL, " "+pt.Label)
			} else {
				first, firstL = append(first, plotter.XY{X: x, Y: pt.SA}), append(firstL, " "+pt.Label)
			}
		}
		if isFinite(pt.Dev) {
			se := 0.0
			if isFinite(pt.DevSE) {
				se = pt.DevSE
			}
			lo, hi = math.Min(lo, pt.Dev-se), math.Max(hi, pt.Dev+se)
			dev = append(dev, plotter.XY{X: x, Y: pt.Dev})
			devErr.YErrors = append(devErr.YErrors, struct{ Low, High float64 }{se, se})
		}
	}
	if len(dev) > 0 {
		devErr.XYs = dev
		if eb, err := plotter.NewYErrorBars(devErr); err == nil {
			eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = colDev, vg.Points(0.8), vg.Points(4)
			p.Add(eb)
		}
		s := scatter(dev, colDev, 2)
		s.GlyphStyle.Shape = draw.BoxGlyph{}
		p.Add(s)
		p.Legend.Add("S on dev ± 1 SE", s)
	}
	for _, set := range []struct {
		xys    plotter.XYs
		labels []string
		shape  draw.GlyphDrawer
		name   string
	}{{first, firstL, draw.CircleGlyph{}, "S on A"}, {again, againL, draw.RingGlyph{}, "S on A, re-grade (--again)"}} {
		if len(set.xys) == 0 {
			continue
		}
		s := scatter(set.xys, colBinned, 3)
		s.GlyphStyle.Shape = set.shape
		p.Add(s)
		p.Legend.Add(set.name, s)
		if l, err := plotter.NewLabels(plotter.XYLabels{XYs: set.xys, Labels: set.labels}); err == nil {
			for i := range l.TextStyle {
				l.TextStyle[i].Font.Size = vg.Points(7)
			}
			p.Add(l)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	if !(hi >= lo) {
		lo, hi = 0, 1
	}
	pad := math.Max(0.1*(hi-lo), 0.05)
	p.Y.Min, p.Y.Max = lo-pad, hi+2*pad // room above for the legend
	span := thi - tlo
	format := "2006-01-02"
	if span < 3*86400 {
		format = "01-02 15:04"
	}
	tpad := math.Max(0.08*span, 3600)
	p.X.Min, p.X.Max = tlo-tpad, thi+4*tpad // room on the right for the labels
	p.X.Tick.Marker = plot.TimeTicks{Ticker: timeTicks{}, Format: format}
	return p
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// timeTicks puts four ticks at round times across [lo, hi] (Unix seconds): hours, days or weeks apart.
type timeTicks struct{}

func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	step := 3600.0
	for _, s := range []float64{3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 365 * 86400} {
		if span/step <= 5 {
			break
		}
		step = s
	}
	var out []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		out = append(out, plot.Tick{Value: v, Label: "x"}) // TimeTicks writes the label
	}
	return out
}
