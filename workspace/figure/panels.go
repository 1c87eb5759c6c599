package figure

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"transitbench/workspace/chart"
	"transitbench/workspace/quicklook"
)

// WritePlot writes one plot, widthIn × heightIn inches, to w in the format f.
func WritePlot(w io.Writer, p *plot.Plot, widthIn, heightIn float64, f Format) error {
	return WriteGrid(w, [][]*plot.Plot{{p}}, widthIn, heightIn, f)
}

// WriteGrid writes plots laid out in rows (every row as long as the first), their axes aligned, widthIn ×
// heightIn inches, to w in the format f.
func WriteGrid(w io.Writer, rows [][]*plot.Plot, widthIn, heightIn float64, f Format) error {
	for _, v := range []float64{widthIn, heightIn} {
		if !(v > 0) || math.IsInf(v, 0) {
			return ErrWidth
		}
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return fmt.Errorf("figure: no plots to write")
	}
	c, out, err := canvas(vg.Length(widthIn)*vg.Inch, vg.Length(heightIn)*vg.Inch, f)
	if err != nil {
		return err
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadTop: vg.Points(4), PadBottom: vg.Points(4),
		PadLeft: vg.Points(6), PadRight: vg.Points(10), PadY: vg.Points(10), PadX: vg.Points(14)}
	canvases := plot.Align(rows, tiles, draw.New(c))
	for i, row := range rows {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err = out.WriteTo(w)
	return err
}

var (
	colOdd  = color.RGBA{R: 20, G: 90, B: 200, A: 255}
	colEven = color.RGBA{R: 200, G: 90, B: 20, A: 255}
)

// FoldCurvePlot is a fold's curve c at e (hours from mid-transit, ppm) with its binned means, in the y range of
// the terminal UI's folded panel (computed on every point), drawing at most the lowest and highest point of each
// of columns columns across the window (0: every point): the envelope of the points stays, their count drops
// from one per cadence to a few per column. FoldedPlot is FoldCurvePlot of quicklook.PrimaryFold with every
// point.
func FoldCurvePlot(e quicklook.Ephemeris, c quicklook.Curve, columns int) *plot.Plot {
	fp := foldPanel("hours from mid-transit", "folded")
	if e.PeriodDays <= 0 {
		return fp
	}
	half := quicklook.WindowHours(e)
	fp.Title.Text = fmt.Sprintf("folded at %s: P = %.5f d, T0 = %.4f, T14 = %.2f h", e.Label, e.PeriodDays, e.T0Days, e.DurationDays*24)
	yr := chart.Folded(80, 20, c.X, c.Y, nil, nil, nil, half)
	x, y := ThinXY(c.X, c.Y, -half, half, columns)
	fp.Add(scatter(finiteXYs(x, y, nil), colData, 0.6))
	addBinned(fp, c, colBinned)
	fp.X.Min, fp.X.Max = -half, half
	fp.Y.Min, fp.Y.Max = yr.Y.Lo, yr.Y.Hi
	return fp
}

// addBinned draws the binned means of c as a line.
func addBinned(p *plot.Plot, c quicklook.Curve, col color.Color) {
	if len(c.X) == 0 {
		return
	}
	if pts := finiteXYs(c.BX, c.BY, nil); len(pts) > 1 {
		if l, err := plotter.NewLine(pts); err == nil {
			l.LineStyle.Width = vg.Points(1.5)
			l.LineStyle.Color = col
			p.Add(l)
		}
	}
}

// OddEvenPlot is the fold f's odd and even transits apart (blue and orange, binned means as lines), in the
// y range of the whole fold, with the odd/even depth difference's significance (refined: with the systematic
// floor) in the title.
func OddEvenPlot(f *quicklook.Fold, columns int) *plot.Plot {
	p := foldPanel("hours from mid-transit", "odd (blue) and even (orange) transits")
	if f.Eph.PeriodDays <= 0 {
		return p
	}
	p.Title.Text = fmt.Sprintf("odd (blue) / even (orange) at %s: ratio %.3f, %.1fσ apart", f.Eph.Label, f.Refined.OddEvenRatio, f.Refined.OddEvenSigma)
	for _, s := range []struct {
		c   quicklook.Curve
		col color.Color
	}{{f.Odd, colOdd}, {f.Even, colEven}} {
		x, y := ThinXY(s.c.X, s.c.Y, -f.HalfHours, f.HalfHours, columns)
		if pts := finiteXYs(x, y, nil); len(pts) > 0 {
			p.Add(scatter(pts, s.col, 0.5))
		}
		addBinned(p, s.c, s.col)
	}
	foldRange(p, f.All, f.HalfHours)
	return p
}

// SecondaryPlot is the fold f around its secondary eclipse's phase (where vet found the deepest other box, else
// half a period on), in the y range of the primary fold, with the secondary's MES in the title.
func SecondaryPlot(f *quicklook.Fold, columns int) *plot.Plot {
	p := foldPanel("hours from the secondary's phase", "secondary eclipse")
	if f.Eph.PeriodDays <= 0 {
		return p
	}
	phase := f.Refined.SecondaryPhase
	if !(phase > 0) {
		phase = 0.5
	}
	p.Title.Text = fmt.Sprintf("secondary at phase %.3f of %s: MES %.1f", phase, f.Eph.Label, f.Refined.SecondaryMES)
	x, y := ThinXY(f.Secondary.X, f.Secondary.Y, -f.HalfHours, f.HalfHours, columns)
	if pts := finiteXYs(x, y, nil); len(pts) > 0 {
		p.Add(scatter(pts, colData, 0.5))
	}
	addBinned(p, f.Secondary, colBinned)
	foldRange(p, f.All, f.HalfHours)
	return p
}

// foldRange sets p's ranges to the folded panel's for the curve c over ±half hours.
func foldRange(p *plot.Plot, c quicklook.Curve, half float64) {
	yr := chart.Folded(80, 20, c.X, c.Y, nil, nil, nil, half)
	p.X.Min, p.X.Max = -half, half
	p.Y.Min, p.Y.Max = yr.Y.Lo, yr.Y.Hi
}

// ThinXY keeps of the points (x, y) with x in [lo, hi] the lowest and highest y of each of columns equal columns
// across [lo, hi], and ThinStride evenly spaced points per column on average, in index order (points outside
// the range are dropped; columns ≤ 0 keeps every point). A scatter of the result has the same envelope at that
// resolution as a scatter of every point (no dip or outlier is lost), and the spread between shows as dense.
func ThinXY(x, y []float64, lo, hi float64, columns int) (tx, ty []float64) {
	if columns <= 0 || len(x) <= 2*columns || !(hi > lo) {
		return x, y
	}
	keep := thinIndexes(x, lo, hi, columns, y)
	tx, ty = make([]float64, 0, len(keep)), make([]float64, 0, len(keep))
	for _, i := range keep {
		tx, ty = append(tx, x[i]), append(ty, y[i])
	}
	return tx, ty
}

// ThinStride is how many evenly spaced points per column the thinning keeps besides each column's extremes.
const ThinStride = 2

// thinIndexes returns, in index order, the indexes of the lowest and highest finite value of each of ys in each
// of columns columns of x across [lo, hi], and of every stride-th point in [lo, hi] (ThinStride per column on
// average).
func thinIndexes(x []float64, lo, hi float64, columns int, ys ...[]float64) []int {
	type ext struct{ lo, hi int }
	best := make([][]ext, len(ys))
	for k := range ys {
		best[k] = make([]ext, columns)
		for c := range best[k] {
			best[k][c] = ext{-1, -1}
		}
	}
	for i, xi := range x {
		if !(xi >= lo && xi <= hi) {
			continue
		}
		c := min(int((xi-lo)/(hi-lo)*float64(columns)), columns-1)
		for k, y := range ys {
			v := y[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			e := &best[k][c]
			if e.lo < 0 || v < y[e.lo] {
				e.lo = i
			}
			if e.hi < 0 || v > y[e.hi] {
				e.hi = i
			}
		}
	}
	seen := make([]bool, len(x))
	stride := max(len(x)/(columns*ThinStride), 1)
	for i := 0; i < len(x); i += stride {
		seen[i] = x[i] >= lo && x[i] <= hi
	}
	for k := range best {
		for _, e := range best[k] {
			for _, i := range []int{e.lo, e.hi} {
				if i >= 0 {
					seen[i] = true
				}
			}
		}
	}
	var keep []int
	for i, s := range seen {
		if s {
			keep = append(keep, i)
		}
	}
	return keep
}

// Thin returns a copy of s whose light curves and periodogram keep, in each of columns columns of time (of log
// period), the cadences with the lowest and highest raw and detrended flux, flagged and valid apart (the
// periods with the lowest and highest power): RawPlot, DetrendedPlot and PeriodogramPlot of it draw the same
// envelopes with a few points per column. Folds need every cadence: fold s itself.
func Thin(s *Star, columns int) *Star {
	if columns <= 0 || s.Analysis == nil {
		return s
	}
	a := *s.Analysis
	lo, hi := chart.Extent(s.Time)
	validRaw, flaggedRaw := make([]float64, len(s.Time)), make([]float64, len(s.Time))
	for i, v := range s.Raw {
		validRaw[i], flaggedRaw[i] = v, math.NaN()
		if s.Flagged[i] {
			validRaw[i], flaggedRaw[i] = math.NaN(), v
		}
	}
	keep := thinIndexes(s.Time, lo, hi, columns, validRaw, flaggedRaw, s.Flat)
	a.Time, a.Raw, a.Flat, a.Flagged = nil, nil, nil, nil
	for _, i := range keep {
		a.Time, a.Raw, a.Flat, a.Flagged = append(a.Time, s.Time[i]), append(a.Raw, s.Raw[i]), append(a.Flat, s.Flat[i]), append(a.Flagged, s.Flagged[i])
	}
	logP := make([]float64, len(s.Periods))
	for i, p := range s.Periods {
		logP[i] = math.Log(p)
	}
	plo, phi := chart.Extent(logP)
	a.Periods, a.Power = nil, nil
	for _, i := range thinIndexes(logP, plo, phi, 2*columns, s.Power) {
		a.Periods, a.Power = append(a.Periods, s.Periods[i]), append(a.Power, s.Power[i])
	}
	out := *s
	out.Analysis = &a
	return &out
}

// foldPanel is the empty panel of a fold: detrended flux in ppm against hours (xLabel), titled "what: nothing to
// fold at" until the caller draws the fold and titles it.
func foldPanel(xLabel, what string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xLabel, "detrended flux − 1 (ppm)"
	p.Y.Tick.Marker = ticks{}
	p.Title.Text = what + ": nothing to fold at"
	return p
}
