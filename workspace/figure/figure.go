package figure

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"transitbench/data"
	"transitbench/workspace/chart"
	"transitbench/workspace/quicklook"
)

// Star is what the figure draws: a star's analysis, its id and kind, and its answer (nil when the star is not
// labelled).
type Star struct {
	*quicklook.Analysis
	ID, Category, Population string
	Answer                   *data.Answer
}

// Format is an output format of Write.
type Format int

const (
	PNG Format = iota // a 150 dpi PNG image
	SVG               // an SVG document (vector; text as text)
)

// DPI is the resolution of PNG figures.
const DPI = 150

// ErrWidth is returned for a figure width that is not positive and finite.
var ErrWidth = errors.New("figure: the width must be positive")

// DefaultEphemeris is what a figure folds at: the truth when the star has a labelled signal (injected or
// confirmed planet, EB primary), labelled "truth" (with the signal's kind when it is not a planet), else the
// strongest BLS peak, labelled "BLS …". It returns an ephemeris with PeriodDays 0, labelled "nothing", when the
// star has neither.
func DefaultEphemeris(s *Star) quicklook.Ephemeris {
	if e, ok := quicklook.Truth(s.Answer); ok {
		e.Label = "truth"
		if sig := quicklook.TruthSignal(s.Answer); sig != "planet" {
			e.Label += " (" + sig + ")"
		}
		return e
	}
	if e, ok := quicklook.Peak(s.Peaks, 0); ok {
		e.Label = "BLS " + e.Label
		return e
	}
	return quicklook.Ephemeris{Label: "nothing"}
}

// Write draws the star's four plots stacked, widthIn inches wide and 1.1 times as high, folded at e, and writes
// them to w in the format f.
func Write(w io.Writer, s *Star, e quicklook.Ephemeris, widthIn float64, f Format) error {
	var rows [][]*plot.Plot
	for _, p := range Plots(s, e) {
		rows = append(rows, []*plot.Plot{p})
	}
	return WriteGrid(w, rows, widthIn, widthIn*1.1, f)
}

// canvas is a w×h canvas of the format f and what writes it out.
func canvas(w, h vg.Length, f Format) (vg.CanvasSizer, io.WriterTo, error) {
	switch f {
	case PNG:
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
		return img, vgimg.PngCanvas{Canvas: img}, nil
	case SVG:
		svg := vgsvg.New(w, h)
		return svg, svg, nil
	}
	return nil, nil, fmt.Errorf("figure: unknown format %d", f)
}

// drawStacked draws the plots one above the other on dc, their axes aligned.
func drawStacked(dc draw.Canvas, plots []*plot.Plot) {
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4),
		PadLeft: vg.Points(6), PadRight: vg.Points(10), PadY: vg.Points(10)}
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(grid, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
}

var (
	colData    = color.RGBA{R: 90, G: 90, B: 90, A: 255}
	colFlag    = color.RGBA{R: 230, G: 120, B: 0, A: 255}
	colBinned  = color.RGBA{R: 20, G: 90, B: 200, A: 255}
	colPeak    = color.RGBA{R: 200, G: 30, B: 60, A: 255}
	colTransit = color.RGBA{R: 200, G: 30, B: 60, A: 255}
)

// MaxTransitMarks is the most transits the detrended panel marks; beyond it the markers merge into a band.
const MaxTransitMarks = 80

// Plots builds the figure's four plots, top to bottom: raw light curve, detrended light curve, periodogram,
// and the light curve folded at e. Each has axis labels with units.
func Plots(s *Star, e quicklook.Ephemeris) []*plot.Plot {
	return []*plot.Plot{RawPlot(s), DetrendedPlot(s, e), PeriodogramPlot(s), FoldedPlot(s, e)}
}

// RawPlot is the raw flux against time, flagged cadences in orange.
func RawPlot(s *Star) *plot.Plot {
	kind := s.Category
	if s.Population != "" {
		kind += ", " + strings.ReplaceAll(s.Population, "_", "-")
	}
	raw := plot.New()
	raw.Title.Text = fmt.Sprintf("%s (%s): raw flux, flagged cadences in orange", s.ID, kind)
	raw.X.Label.Text, raw.Y.Label.Text = "time (BKJD)", "relative flux"
	raw.Add(scatter(finiteXYs(s.Time, s.Raw, func(i int) bool { return !s.Flagged[i] }), colData, 0.5))
	raw.Add(scatter(finiteXYs(s.Time, s.Raw, func(i int) bool { return s.Flagged[i] }), colFlag, 0.8))
	robustY(raw, s.Raw)
	raw.Y.Tick.Marker = ticks{}
	return raw
}

// DetrendedPlot is the detrended flux against time, with the transits of e marked under the data.
func DetrendedPlot(s *Star, e quicklook.Ephemeris) *plot.Plot {
	flat := plot.New()
	flat.Title.Text = "detrended flux, transits of the folded ephemeris marked"
	flat.X.Label.Text, flat.Y.Label.Text = "time (BKJD)", "relative flux"
	fxy := finiteXYs(s.Time, s.Flat, nil)
	flat.Add(scatter(fxy, colData, 0.5))
	robustY(flat, s.Flat)
	flat.Y.Tick.Marker = ticks{}
	if e.PeriodDays <= 0 || len(fxy) == 0 {
		return flat
	}
	lo, hi := chart.Extent(s.Time)
	var marks plotter.XYs
	for _, tc := range quicklook.TransitTimes(e, lo, hi, math.MaxInt) {
		marks = append(marks, plotter.XY{X: tc, Y: flat.Y.Min})
	}
	if len(marks) > MaxTransitMarks {
		flat.Title.Text = fmt.Sprintf("detrended flux (%d transits of the folded ephemeris, too many to mark)", len(marks))
	} else if len(marks) > 0 {
		m := scatter(marks, colTransit, 2.5)
		m.GlyphStyle.Shape = draw.TriangleGlyph{}
		flat.Add(m)
	}
	return flat
}

// PeriodogramPlot is the BLS periodogram (SNR against period, logarithmic) with the strongest peaks numbered.
func PeriodogramPlot(s *Star) *plot.Plot {
	pg := plot.New()
	pg.Title.Text = "BLS periodogram (SNR); strongest peaks numbered"
	pg.X.Label.Text, pg.Y.Label.Text = "period (days)", "SNR"
	pg.X.Scale = plot.LogScale{}
	pg.X.Tick.Marker = plot.LogTicks{Prec: -1}
	if pts := finiteXYs(s.Periods, s.Power, func(i int) bool { return s.Periods[i] > 0 }); len(pts) > 1 {
		if l, err := plotter.NewLine(pts); err == nil {
			l.LineStyle.Width = vg.Points(0.6)
			l.LineStyle.Color = colData
			pg.Add(l)
		}
	}
	var peaks plotter.XYs
	for _, pk := range s.Peaks {
		peaks = append(peaks, plotter.XY{X: pk.PeriodDays, Y: pk.Power})
	}
	addNumberedPeaks(pg, peaks)
	return pg
}

// FoldedPlot is the detrended light curve folded at e (hours from mid-transit, ppm) with its binned means, in
// the y range of the terminal UI's folded panel: the transit fills the plot, outliers are left out.
func FoldedPlot(s *Star, e quicklook.Ephemeris) *plot.Plot {
	return FoldCurvePlot(e, quicklook.PrimaryFold(s.Analysis, e), 0)
}

// scatter is a scatter of small dots.
func scatter(xys plotter.XYs, c color.Color, radius vg.Length) *plotter.Scatter {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		panic(err) // the callers pass finite points only
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: radius, Shape: draw.CircleGlyph{}}
	return s
}

// addNumberedPeaks marks a periodogram's peaks (period, power), strongest first, with their numbers 1, 2, ….
func addNumberedPeaks(p *plot.Plot, peaks plotter.XYs) {
	if len(peaks) == 0 {
		return
	}
	labels := make([]string, len(peaks))
	for i := range peaks {
		labels[i] = fmt.Sprintf(" %d", i+1)
	}
	p.Add(scatter(peaks, colPeak, 2.5))
	if l, err := plotter.NewLabels(plotter.XYLabels{XYs: peaks, Labels: labels}); err == nil {
		p.Add(l)
	}
}

// finiteXYs collects the finite points (x[i], y[i]) where keep(i) holds (keep may be nil).
func finiteXYs(x, y []float64, keep func(i int) bool) plotter.XYs {
	var out plotter.XYs
	for i := range x {
		if keep != nil && !keep(i) {
			continue
		}
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) || math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			continue
		}
		out = append(out, plotter.XY{X: x[i], Y: y[i]})
	}
	return out
}

// robustY sets the plot's y range to chart.RobustRange of v (the deepest point inside, flares and cosmic rays
// above the 99.9th percentile left out), padded by 5 %.
func robustY(p *plot.Plot, v []float64) {
	lo, hi := chart.RobustRange(v)
	pad := 0.05 * (hi - lo)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
}

// ticks puts round ticks with as many digits as their step needs (gonum's default shows 0.9995 as "1").
type ticks struct{}

func (ticks) Ticks(lo, hi float64) []plot.Tick {
	step := chart.NiceStep(lo, hi, 5)
	var out []plot.Tick
	for _, v := range chart.Ticks(lo, hi, 5) {
		out = append(out, plot.Tick{Value: v, Label: chart.FormatTick(v, step)})
	}
	return out
}
