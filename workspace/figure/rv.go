package figure

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"transitbench/engine/rv"
	"transitbench/engine/stat"
	"transitbench/workspace/rvtrack"
)

// RVTask is what the RV figure draws: a task's id, its data, and an analysis of one trial model on it
// (rvtrack.Analyse: offsets, residuals, model curve, GLS periodogram). It holds nothing of the truth.
type RVTask struct {
	ID       string
	Data     *rv.Data
	Analysis *rvtrack.Analysis
}

// ErrNoRVData is returned by WriteRV for a task without data or analysis.
var ErrNoRVData = errors.New("figure: the RV task has no data or no analysis")

// WriteRV draws the RV task view's three plots stacked, widthIn inches wide and as high: the velocities less
// each instrument's offset with their error bars (√(σ² + jitter²)), one colour per instrument, under the model
// curve; the residuals; and the GLS periodogram (of the residuals, or of the data when the analysis says so)
// with its strongest peaks numbered. It writes them to w in the format f.
func WriteRV(w io.Writer, t *RVTask, widthIn float64, f Format) error {
	if !(widthIn > 0) || math.IsInf(widthIn, 0) {
		return ErrWidth
	}
	if t == nil || t.Data == nil || t.Analysis == nil || t.Data.Len() == 0 {
		return ErrNoRVData
	}
	width := vg.Length(widthIn) * vg.Inch
	c, out, err := canvas(width, width, f)
	if err != nil {
		return err
	}
	drawStacked(draw.New(c), RVPlots(t))
	_, err = out.WriteTo(w)
	return err
}

// RVPlots builds the RV figure's three plots, top to bottom: velocities with the model, residuals, GLS
// periodogram. Each has axis labels with units; the first two share the time axis (days since the first
// observation).
func RVPlots(t *RVTask) []*plot.Plot {
	return []*plot.Plot{RVDataPlot(t), RVResidualPlot(t), RVPeriodogramPlot(t)}
}

// instColours are the instruments' colours, in order of first appearance (cycled beyond six).
var instColours = []color.Color{
	color.RGBA{R: 20, G: 90, B: 200, A: 255},
	color.RGBA{R: 230, G: 120, B: 0, A: 255},
	color.RGBA{R: 30, G: 150, B: 60, A: 255},
	color.RGBA{R: 140, G: 60, B: 170, A: 255},
	color.RGBA{R: 120, G: 80, B: 40, A: 255},
	color.RGBA{R: 0, G: 150, B: 160, A: 255},
}

// colModel is the model curve's colour.
var colModel = color.RGBA{R: 200, G: 30, B: 60, A: 255}

// RVDataPlot is the velocities less each instrument's offset, with error bars, one colour per instrument (named
// in the legend), under the model curve of the analysis's planets.
func RVDataPlot(t *RVTask) *plot.Plot {
	d, a := t.Data, t.Analysis
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: radial velocities less each instrument's offset; model of %d planet(s) in red", t.ID, len(a.Planets))
	p.X.Label.Text, p.Y.Label.Text = "days since the first observation", "radial velocity (m/s)"
	t0, _ := stat.Extent(d.Times)
	addInstruments(p, d, a, t0, func(i int) float64 { return d.RVs[i] - a.Eval.Offsets[d.Inst[i]] }, true)
	if len(a.Planets) > 0 && len(a.CurveT) > 1 {
		pts := make(plotter.XYs, len(a.CurveT))
		for i := range a.CurveT {
			pts[i] = plotter.XY{X: a.CurveT[i] - t0, Y: a.CurveV[i]}
		}
		if l, err := plotter.NewLine(finiteOnly(pts)); err == nil {
			l.LineStyle.Width, l.LineStyle.Color = vg.Points(1.2), colModel
			p.Add(l)
		}
	}
	p.Y.Tick.Marker = ticks{}
	return p
}

// RVResidualPlot is the residuals of the model (velocity less offset less model) with error bars and a zero
// line, in the data plot's colours.
func RVResidualPlot(t *RVTask) *plot.Plot {
	d, a := t.Data, t.Analysis
	p := plot.New()
	p.Title.Text = fmt.Sprintf("residuals: rms %.2f m/s, jitter %.2f m/s", a.Eval.RMS, a.JitterMS)
	p.X.Label.Text, p.Y.Label.Text = "days since the first observation", "residual (m/s)"
	t0, t1 := stat.Extent(d.Times)
	if l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: math.Max(t1-t0, 1e-9), Y: 0}}); err == nil {
		l.LineStyle.Width, l.LineStyle.Color = vg.Points(0.6), colData
		p.Add(l)
	}
	addInstruments(p, d, a, t0, func(i int) float64 { return a.Eval.Residuals[i] }, false)
	p.Y.Tick.Marker = ticks{}
	return p
}

// RVPeriodogramPlot is the analysis's GLS periodogram (power against period, logarithmic) with its strongest
// peaks numbered and their false-alarm probabilities in the title.
func RVPeriodogramPlot(t *RVTask) *plot.Plot {
	a := t.Analysis
	p := plot.New()
	of := "data less the instrument means"
	if a.OfResiduals {
		of = "residuals"
	}
	p.Title.Text = "GLS periodogram of the " + of
	p.X.Label.Text, p.Y.Label.Text = "period (days)", "GLS power (normalised)"
	if len(a.Periods) < 2 {
		p.Title.Text += ": too few frequencies over the data's span"
		return p
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	if l, err := plotter.NewLine(finiteXYs(a.Periods, a.Power, func(i int) bool { return a.Periods[i] > 0 })); err == nil {
		l.LineStyle.Width, l.LineStyle.Color = vg.Points(0.6), colData
		p.Add(l)
	}
	var peaks plotter.XYs
	for i, pk := range a.Peaks {
		peaks = append(peaks, plotter.XY{X: pk.PeriodDays, Y: pk.Power})
		if i < len(a.FAP) {
			p.Title.Text += fmt.Sprintf("; %d: %.4g d, FAP %.2g", i+1, pk.PeriodDays, a.FAP[i])
		}
	}
	if finite := finiteOnly(peaks); len(finite) == len(peaks) {
		addNumberedPeaks(p, finite)
	}
	return p
}

// xyErrs is a scatter's points with symmetric y error bars.
type xyErrs struct {
	plotter.XYs
	plotter.YErrors
}

// addInstruments adds one error-bar scatter per instrument of y(i) against days since t0, each bar
// √(σ² + jitter²); legend names the instruments in the plot's legend.
func addInstruments(p *plot.Plot, d *rv.Data, a *rvtrack.Analysis, t0 float64, y func(i int) float64, legend bool) {
	n := len(d.Instruments)
	if n == 0 {
		n = 1
	}
	per := make([]xyErrs, n)
	for i, t := range d.Times {
		k := d.Inst[i]
		e := math.Sqrt(d.Sigmas[i]*d.Sigmas[i] + a.JitterMS*a.JitterMS)
		v := y(i)
		if !stat.Finite(v) || !stat.Finite(e) {
			continue
		}
		per[k].XYs = append(per[k].XYs, plotter.XY{X: t - t0, Y: v})
		per[k].YErrors = append(per[k].YErrors, struct{ Low, High float64 }{e, e})
	}
	for k := range per {
		if len(per[k].XYs) == 0 {
			continue
		}
		col := instColours[k%len(instColours)]
		if bars, err := plotter.NewYErrorBars(per[k]); err == nil {
			bars.LineStyle.Color, bars.LineStyle.Width, bars.CapWidth = col, vg.Points(0.5), vg.Points(2)
			p.Add(bars)
		}
		s := scatter(per[k].XYs, col, 1.4)
		p.Add(s)
		if legend && k < len(d.Instruments) {
			p.Legend.Add(d.Instruments[k], s)
		}
	}
	p.Legend.Top = true
}

// finiteOnly drops the points with a coordinate that is not finite.
func finiteOnly(pts plotter.XYs) plotter.XYs {
	out := pts[:0:0]
	for _, q := range pts {
		if stat.Finite(q.X) && stat.Finite(q.Y) {
			out = append(out, q)
		}
	}
	return out
}
