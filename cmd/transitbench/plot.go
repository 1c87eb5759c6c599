package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"transitbench/data"
	"transitbench/data/sets"
	tuiplot "transitbench/tui/plot"
	"transitbench/workspace/quicklook"
)

func init() { register(newPlotCmd) }

func newPlotCmd() *cobra.Command {
	var (
		star, set, out string
		widthIn        float64
	)
	cmd := &cobra.Command{
		Use:   "plot --star ID [--set dev] --out FILE.png",
		Short: "Draw a star's light curve, periodogram and folded transit as a PNG figure",
		Long: `Draw the star view of the terminal UI as a PNG figure for slides and reports: the raw light curve (flagged
cadences in orange), the detrended light curve with the folded ephemeris's transits marked, the BLS
periodogram with its strongest peaks, and the light curve folded at the truth (labelled stars with a signal)
or else at the strongest BLS peak, with binned means. The analysis is the terminal UI's (workspace/quicklook).
Hidden sets are refused: their answers never leave the data directory.

--json prints {"star", "set", "out", "folded_at": {"label", "period_days", "t0_days", "duration_days"}}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if star == "" || out == "" {
				return usageErrorf("plot needs --star ID and --out FILE.png")
			}
			if !strings.EqualFold(filepath.Ext(out), ".png") {
				return usageErrorf("--out %s: the figure is written as PNG; name the file *.png", out)
			}
			if sets.IsHidden(set) {
				return hiddenf("set %s is hidden: its stars and answers are not shown; plot a dev or train star", set)
			}
			if err := checkOutFile("--out", out); err != nil {
				return err
			}
			home, err := data.Home()
			if err != nil {
				return err
			}
			if err := checkSetName(home, "--set", set); err != nil {
				return err
			}
			s, err := sets.Open(home, set, sets.Options{})
			if err != nil {
				return err
			}
			if _, err := s.Info(star); err != nil {
				return notFoundf("%v (see 'transitbench data mini' or data/dev for star ids)", err)
			}
			a, err := quicklook.Star(s, star, 0)
			if err != nil {
				return err
			}
			d := &starFigure{Analysis: a, ID: star}
			if ans, ok := s.Answers[star]; ok {
				d.Answer = &ans
				d.Category, d.Population = ans.Category, ans.Population
			}
			eph := starFigureEphemeris(d)
			if err := writeStarFigure(out, d, eph, vg.Length(widthIn)*vg.Inch); err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"star": star, "set": set, "out": out,
					"folded_at": map[string]any{"label": eph.label, "period_days": eph.period, "t0_days": eph.t0,
						"duration_days": eph.duration}})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s of set %s, folded at %s: P = %.5f d)\n", out, star, set, eph.label, eph.period)
			return nil
		},
	}
	cmd.Flags().StringVar(&star, "star", "", "star id, e.g. dev-0042")
	cmd.Flags().StringVar(&set, "set", sets.Dev, "data set of the star")
	cmd.Flags().StringVar(&out, "out", "", "PNG file to write")
	cmd.Flags().Float64Var(&widthIn, "width", 10, "figure width in inches (150 dpi; the height is 1.1 times the width)")
	return cmd
}

// starFigure is what the figure draws: a star's analysis, its id and kind, and its answer (nil when the star is
// not labelled).
type starFigure struct {
	*quicklook.Analysis
	ID, Category, Population string
	Answer                   *data.Answer
}

// starFigureEph is what the figure folds at.
type starFigureEph struct {
	label                string
	period, t0, duration float64
}

// starFigureEphemeris folds at the truth when the star has a labelled signal (injected or confirmed planet, EB
// primary), else at the strongest BLS peak.
func starFigureEphemeris(d *starFigure) starFigureEph {
	if e, ok := quicklook.Truth(d.Answer); ok {
		label := "truth"
		if sig := quicklook.TruthSignal(d.Answer); sig != "planet" {
			label += " (" + sig + ")"
		}
		return starFigureEph{label, e.PeriodDays, e.T0Days, e.DurationDays}
	}
	if e, ok := quicklook.Peak(d.Peaks, 0); ok {
		return starFigureEph{"BLS " + e.Label, e.PeriodDays, e.T0Days, e.DurationDays}
	}
	return starFigureEph{label: "nothing"}
}

// ephemeris is e as quicklook folds at it.
func (e starFigureEph) ephemeris() quicklook.Ephemeris {
	return quicklook.Ephemeris{Label: e.label, PeriodDays: e.period, T0Days: e.t0, DurationDays: e.duration}
}

var (
	figData    = color.RGBA{R: 90, G: 90, B: 90, A: 255}
	figFlag    = color.RGBA{R: 230, G: 120, B: 0, A: 255}
	figBinned  = color.RGBA{R: 20, G: 90, B: 200, A: 255}
	figPeak    = color.RGBA{R: 200, G: 30, B: 60, A: 255}
	figTransit = color.RGBA{R: 200, G: 30, B: 60, A: 255}
)

// figScatter is a scatter of small dots.
func figScatter(xys plotter.XYs, c color.Color, radius vg.Length) *plotter.Scatter {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		panic(err) // the callers pass finite points only
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: radius, Shape: draw.CircleGlyph{}}
	return s
}

// finiteXYs collects the finite points (x[i], y[i]) where keep(i) holds.
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

// starFigurePlots builds the figure's four plots, top to bottom.
func starFigurePlots(d *starFigure, e starFigureEph) []*plot.Plot {
	kind := d.Category
	if d.Population != "" {
		kind += ", " + strings.ReplaceAll(d.Population, "_", "-")
	}
	raw := plot.New()
	raw.Title.Text = fmt.Sprintf("%s (%s): raw flux, flagged cadences in orange", d.ID, kind)
	raw.X.Label.Text, raw.Y.Label.Text = "time (BKJD)", "relative flux"
	raw.Add(figScatter(finiteXYs(d.Time, d.Raw, func(i int) bool { return !d.Flagged[i] }), figData, 0.5))
	raw.Add(figScatter(finiteXYs(d.Time, d.Raw, func(i int) bool { return d.Flagged[i] }), figFlag, 0.8))
	figRobustY(raw, d.Raw)

	flat := plot.New()
	flat.Title.Text = "detrended flux, transits of the folded ephemeris marked"
	flat.X.Label.Text, flat.Y.Label.Text = "time (BKJD)", "relative flux"
	fxy := finiteXYs(d.Time, d.Flat, nil)
	flat.Add(figScatter(fxy, figData, 0.5))
	figRobustY(flat, d.Flat)
	if e.period > 0 && len(fxy) > 0 {
		lo, hi := tuiplot.Extent(d.Time)
		var marks plotter.XYs
		for _, tc := range quicklook.TransitTimes(e.ephemeris(), lo, hi, math.MaxInt) {
			marks = append(marks, plotter.XY{X: tc, Y: flat.Y.Min})
		}
		if len(marks) > figMaxTransitMarks {
			flat.Title.Text = fmt.Sprintf("detrended flux (%d transits of the folded ephemeris, too many to mark)", len(marks))
		} else if len(marks) > 0 {
			m := figScatter(marks, figTransit, 2.5)
			m.GlyphStyle.Shape = draw.TriangleGlyph{}
			flat.Add(m)
		}
	}

	pg := plot.New()
	pg.Title.Text = "BLS periodogram (SNR); strongest peaks numbered"
	pg.X.Label.Text, pg.Y.Label.Text = "period (days)", "SNR"
	pg.X.Scale = plot.LogScale{}
	pg.X.Tick.Marker = plot.LogTicks{Prec: -1}
	if pts := finiteXYs(d.Periods, d.Power, func(i int) bool { return d.Periods[i] > 0 }); len(pts) > 1 {
		if l, err := plotter.NewLine(pts); err == nil {
			l.LineStyle.Width = vg.Points(0.6)
			l.LineStyle.Color = figData
			pg.Add(l)
		}
	}
	var peaks plotter.XYs
	var labels []string
	for i, pk := range d.Peaks {
		peaks = append(peaks, plotter.XY{X: pk.PeriodDays, Y: pk.Power})
		labels = append(labels, fmt.Sprintf(" %d", i+1))
	}
	if len(peaks) > 0 {
		pg.Add(figScatter(peaks, figPeak, 2.5))
		if l, err := plotter.NewLabels(plotter.XYLabels{XYs: peaks, Labels: labels}); err == nil {
			pg.Add(l)
		}
	}

	fp := plot.New()
	fp.X.Label.Text, fp.Y.Label.Text = "hours from mid-transit", "detrended flux − 1 (ppm)"
	fp.Title.Text = "folded: nothing to fold at"
	if e.period > 0 {
		half := quicklook.WindowHours(e.ephemeris())
		fp.Title.Text = fmt.Sprintf("folded at %s: P = %.5f d, T0 = %.4f, T14 = %.2f h", e.label, e.period, e.t0, e.duration*24)
		c := quicklook.PrimaryFold(d.Analysis, e.ephemeris())
		x, y := c.X, c.Y
		fp.Add(figScatter(finiteXYs(x, y, nil), figData, 0.6))
		if len(x) > 0 {
			if pts := finiteXYs(c.BX, c.BY, nil); len(pts) > 1 {
				if l, err := plotter.NewLine(pts); err == nil {
					l.LineStyle.Width = vg.Points(1.5)
					l.LineStyle.Color = figBinned
					fp.Add(l)
				}
			}
		}
		fp.X.Min, fp.X.Max = -half, half
		// The y range of the terminal UI's folded panel: the transit fills the plot, outliers are left out.
		yr := tuiplot.Folded(80, 20, x, y, nil, nil, nil, half)
		fp.Y.Min, fp.Y.Max = yr.Y.Lo, yr.Y.Hi
	}
	for _, p := range []*plot.Plot{raw, flat, fp} {
		p.Y.Tick.Marker = figTicks{}
	}
	return []*plot.Plot{raw, flat, pg, fp}
}

// figMaxTransitMarks is the most transits the detrended panel marks; beyond it the markers merge into a band.
const figMaxTransitMarks = 80

// figRobustY sets the plot's y range to tui/plot.RobustRange of v (the deepest point inside, flares and cosmic
// rays above the 99.9th percentile left out), padded by 5 %.
func figRobustY(p *plot.Plot, v []float64) {
	lo, hi := tuiplot.RobustRange(v)
	pad := 0.05 * (hi - lo)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
}

// figTicks puts round ticks with as many digits as their step needs (gonum's default shows 0.9995 as "1").
type figTicks struct{}

func (figTicks) Ticks(lo, hi float64) []plot.Tick {
	step := tuiplot.NiceStep(lo, hi, 5)
	var out []plot.Tick
	for _, v := range tuiplot.Ticks(lo, hi, 5) {
		out = append(out, plot.Tick{Value: v, Label: tuiplot.FormatTick(v, step)})
	}
	return out
}

// writeStarFigure draws the four plots stacked, width wide, into a PNG file at path.
func writeStarFigure(path string, d *starFigure, e starFigureEph, width vg.Length) error {
	if width <= 0 {
		return usageErrorf("--width must be positive")
	}
	plots := starFigurePlots(d, e)
	img := vgimg.NewWith(vgimg.UseWH(width, width*1.1), vgimg.UseDPI(150))
	dc := draw.New(img)
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
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
