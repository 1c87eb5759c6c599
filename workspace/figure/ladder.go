package figure

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RecallSeries is one pipeline's recall (C = credit / planets) in each MES bin of SPEC A5, in the order of
// MESBinLabels; a bin without planets is NaN.
type RecallSeries struct {
	Name   string
	Recall []float64
}

// MESBinLabels name the MES bins of RecallSeries.Recall.
var MESBinLabels = []string{"4–7.1", "7.1–10", "10–20", "≥ 20"}

// seriesColours are the lines' colours, by series.
var seriesColours = []color.Color{
	color.RGBA{R: 120, G: 120, B: 120, A: 255}, color.RGBA{R: 31, G: 119, B: 180, A: 255},
	color.RGBA{R: 214, G: 39, B: 40, A: 255}, color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255}, color.RGBA{R: 255, G: 127, B: 14, A: 255},
}

// RecallPlot draws each series' recall against the MES bin (one line and glyph per series, a legend with the
// names), recall from 0 to 1: where a pipeline loses the planets a perfect vetter above the Kepler threshold
// (the reference detector) keeps.
func RecallPlot(title string, series []RecallSeries) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = "planet MES bin", "recall (credit / planets)"
	p.Y.Min, p.Y.Max = 0, 1.02
	p.X.Min, p.X.Max = -0.3, float64(len(MESBinLabels))-0.7
	var tk []plot.Tick
	for i, l := range MESBinLabels {
		tk = append(tk, plot.Tick{Value: float64(i), Label: l})
	}
	p.X.Tick.Marker = plot.ConstantTicks(tk)
	p.Legend.Top, p.Legend.Left = false, false
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.CrossGlyph{}}
	for k, s := range series {
		var xys plotter.XYs
		for i, r := range s.Recall {
			if r == r { // not NaN
				xys = append(xys, plotter.XY{X: float64(i), Y: r})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue
		}
		col := seriesColours[k%len(seriesColours)]
		l.LineStyle.Color, l.LineStyle.Width = col, vg.Points(1.2)
		pts.GlyphStyle.Color, pts.GlyphStyle.Radius, pts.GlyphStyle.Shape = col, vg.Points(2.5), shapes[k%len(shapes)]
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
	}
	return p
}
