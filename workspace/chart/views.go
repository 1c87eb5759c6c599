package chart

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/guptarohit/asciigraph"
)

// Inks of the star view's layers, lowest first.
const (
	InkData    Ink = 1 // light-curve and folded points
	InkFlag    Ink = 2 // flagged cadences
	InkBinned  Ink = 3 // binned means of a folded curve
	InkPeak    Ink = 4 // BLS peaks
	InkCurrent Ink = 5 // the selected peak or row
)

// RobustRange returns a y range for a light curve: from the smallest finite value (so the deepest transit or
// eclipse is always inside) to the 99.9th percentile plus a tenth of the spread between the 0.1th and 99.9th
// percentiles (so a flare or cosmic ray does not flatten the rest). Values above the range are drawn on the
// top row. It returns 0, 1 when v has no finite value and widens a flat series by ±1e-4 (relative flux).
func RobustRange(v []float64) (lo, hi float64) {
	f := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			f = append(f, x)
		}
	}
	if len(f) == 0 {
		return 0, 1
	}
	sort.Float64s(f)
	q := func(p float64) float64 { return f[int(math.Round(p*float64(len(f)-1)))] }
	lo = f[0]
	q1, q999 := q(0.001), q(0.999)
	hi = math.Min(f[len(f)-1], q999+0.1*(q999-q1))
	if !(hi > lo) {
		lo, hi = lo-1e-4, hi+1e-4
	}
	return lo, hi
}

// ManyFlagged is the share of flagged cadences from which a light-curve column is marked ▪ rather than ·.
const ManyFlagged = 0.1

// LightCurve returns the chart of flux against time (days): the minimum and maximum of each dot column, the
// flagged cadences (flagged may be nil) drawn over them in their own ink where their flux is finite, and under
// the plot a marker per cell column holding flagged cadences: · when they are a few (Kepler flags a
// desaturation every ≈ 3 days, so most columns hold one), ▪ when they are at least ManyFlagged of the column's
// cadences (safe modes, rolling-band stretches, pointing trouble).
func LightCurve(width, height int, t, flux []float64, flagged []bool) Chart {
	lo, hi := RobustRange(flux)
	return LightCurveIn(width, height, t, flux, flagged, lo, hi)
}

// LightCurveIn is LightCurve with the y range [lo, hi] given, for a caller that keeps RobustRange's result
// (it sorts the flux, the costliest step of drawing a light curve).
func LightCurveIn(width, height int, t, flux []float64, flagged []bool, lo, hi float64) Chart {
	tlo, thi := Extent(t)
	c := Chart{
		Width: width, Height: height,
		X:      Scale{Lo: tlo, Hi: thi},
		Y:      Scale{Lo: lo, Hi: hi},
		Layers: []Layer{{X: t, Y: flux, Style: Range, Ink: InkData}},
		XUnit:  "BKJD",
	}
	if flagged == nil {
		return c
	}
	fy := make([]float64, len(flux))
	for i := range flux {
		fy[i] = math.NaN()
		if flagged[i] {
			fy[i] = flux[i]
		}
	}
	c.Layers = append(c.Layers, Layer{X: t, Y: fy, Style: Points, Ink: InkFlag})
	c.Marks = []Mark{} // keep the marker row even when nothing is flagged, so the layout does not jump
	plotW := width - yGutter(c)
	if plotW <= 0 {
		return c
	}
	share := FlagShare(make([]float64, plotW), t, flagged, tlo, thi)
	xs := Scale{Lo: tlo, Hi: thi, N: plotW}
	for i, f := range share {
		switch {
		case f >= ManyFlagged:
			c.Marks = append(c.Marks, Mark{X: xs.Value(i), Text: "▪", Ink: InkFlag})
		case f > 0:
			c.Marks = append(c.Marks, Mark{X: xs.Value(i), Text: "·", Ink: InkFlag})
		}
	}
	return c
}

// yGutter is the width Lines will give the chart's y axis (labels and the axis character).
func yGutter(c Chart) int {
	rows := c.Height - 2
	step := NiceStep(c.Y.Lo, c.Y.Hi, max(rows/2, 1))
	g := 0
	for _, v := range Ticks(c.Y.Lo, c.Y.Hi, max(rows/2, 1)) {
		g = max(g, utf8.RuneCountInString(FormatTick(v, step)))
	}
	return g + 1
}

// PeakMark is a periodogram peak to mark: its period and a label (its rank).
type PeakMark struct {
	PeriodDays float64
	Label      string
	Current    bool
}

// Periodogram renders a BLS periodogram as an asciigraph line over a logarithmic period axis: each column
// shows the highest power among the trial periods falling in it (the peaks are what matter, and a maximum
// never hides one), with columns no trial period reaches filled from their neighbours. Peaks are marked ▾
// with their label under the plot. It returns height lines.
func Periodogram(width, height int, periods, power []float64, peaks []PeakMark, paint func(Ink, string) string) []string {
	if paint == nil {
		paint = func(_ Ink, s string) string { return s }
	}
	plo, phi := Extent(periods)
	if width < 16 || height < 4 || !(plo > 0) || !(phi > plo) {
		return padLines(nil, height)
	}
	_, pmax := Extent(power)
	if !(pmax > 0) {
		pmax = 1
	}
	labelW := len(fmt.Sprintf("%.0f", pmax))
	if pmax < 10 {
		labelW = len(fmt.Sprintf("%.1f", pmax))
	}
	n := width - labelW - 3
	logP := make([]float64, len(periods))
	for i, p := range periods {
		logP[i] = math.Log(p)
	}
	cols := MinMax(make([]Column, n), logP, power, math.Log(plo), math.Log(phi))
	series := fillColumns(cols)
	g := asciigraph.Plot(series,
		asciigraph.Height(height-3),
		asciigraph.LowerBound(0),
		asciigraph.YAxisValueFormatter(func(v float64) string {
			if pmax < 10 {
				return fmt.Sprintf("%*.1f", labelW, v)
			}
			return fmt.Sprintf("%*.0f", labelW, v)
		}))
	lines := strings.Split(g, "\n")
	if len(lines) > height-2 {
		lines = lines[:height-2]
	}
	for i := range lines {
		lines[i] = paint(InkData, lines[i])
	}
	lines = padLines(lines, height-2)

	xs := Scale{Lo: plo, Hi: phi, Log: true}
	var marks []Mark
	for _, pk := range peaks {
		ink := InkPeak
		if pk.Current {
			ink = InkCurrent
		}
		marks = append(marks, Mark{X: pk.PeriodDays, Text: "▾" + pk.Label, Ink: ink})
	}
	// asciigraph writes a space, the label, a space and the axis, and draws the point of column k one cell
	// right of axis+k (the line arrives there), so markers and labels start at labelW+3.
	gutter := strings.Repeat(" ", labelW+3)
	lines = append(lines, gutter+markRow(marks, xs, n, paint))
	c := Chart{X: xs, XUnit: "period d"}
	lines = append(lines, paint(AxisInk, gutter+c.xLabels(n)))
	return lines
}

// fillColumns returns each column's maximum, with empty columns taking the nearer filled neighbour's value
// (the left one on a tie) and 0 when no column is filled.
func fillColumns(cols []Column) []float64 {
	out := make([]float64, len(cols))
	last := -1
	for i, c := range cols {
		if c.N == 0 {
			out[i] = math.NaN()
			continue
		}
		out[i] = c.Max
		last = i
	}
	if last < 0 {
		for i := range out {
			out[i] = 0
		}
		return out
	}
	for i := range out {
		if !math.IsNaN(out[i]) {
			continue
		}
		l, r := i-1, i+1
		for l >= 0 && cols[l].N == 0 {
			l--
		}
		for r < len(cols) && cols[r].N == 0 {
			r++
		}
		switch {
		case l >= 0 && (r >= len(cols) || i-l <= r-i):
			out[i] = cols[l].Max
		default:
			out[i] = cols[r].Max
		}
	}
	return out
}

// Folded returns the chart of a folded light curve: x the time from mid-transit in hours, y the flux in ppm
// relative to 1 (each point as a dot), with binned means (bx, by, same units) drawn over them as an opaque
// line. When the points would cover more than an eighth of the plot's dots (a year of cadences in a narrow
// panel makes a solid block that hides the transit), they are replaced by the bins' error bars (bx, by ± be;
// be may be nil), which summarise the same points honestly. The x range is ±halfHours. With binned means the y range is theirs, padded by a third of their extent
// and at least by 3 robust standard deviations of the means around their median (so noise is not blown up
// into a signal), and points outside it are left out: the transit, not the scatter of single cadences, fills
// the panel. Without binned means it runs over the 0.5th to 99.5th percentiles of the points.
func Folded(width, height int, xHours, yPPM, bx, by, be []float64, halfHours float64) Chart {
	lo, hi := math.NaN(), math.NaN()
	var means []float64
	for i, v := range by {
		if !math.IsNaN(v) && bx[i] >= -halfHours && bx[i] <= halfHours {
			means = append(means, v)
		}
	}
	if len(means) >= 3 {
		sort.Float64s(means)
		med := means[len(means)/2]
		dev := make([]float64, len(means))
		for i, v := range means {
			dev[i] = math.Abs(v - med)
		}
		sort.Float64s(dev)
		sigma := 1.4826 * dev[len(dev)/2]
		lo, hi = means[0], means[len(means)-1]
		pad := math.Max((hi-lo)/3, 3*sigma)
		lo, hi = lo-pad, hi+pad
	} else {
		inside := make([]float64, 0, len(yPPM))
		for i, x := range xHours {
			if x >= -halfHours && x <= halfHours && !math.IsNaN(yPPM[i]) {
				inside = append(inside, yPPM[i])
			}
		}
		sort.Float64s(inside)
		if len(inside) > 0 {
			q := func(p float64) float64 { return inside[int(math.Round(p*float64(len(inside)-1)))] }
			lo, hi = q(0.005), q(0.995)
		}
	}
	if math.IsNaN(lo) || !(hi > lo) {
		c := 0.0
		if !math.IsNaN(lo) {
			c = lo
		}
		lo, hi = c-1, c+1
	}
	points := Layer{X: xHours, Y: yPPM, Style: Points, Ink: InkData}
	inRange := 0
	for i, x := range xHours {
		if x >= -halfHours && x <= halfHours && yPPM[i] >= lo && yPPM[i] <= hi {
			inRange++
		}
	}
	if dots := 2 * max(width-6, 1) * 4 * max(height-1, 1); len(bx) > 0 && inRange > dots/8 {
		points = Layer{X: bx, Y: by, Err: be, Style: ErrorBars, Ink: InkData}
	}
	return Chart{
		Width: width, Height: height,
		X:      Scale{Lo: -halfHours, Hi: halfHours},
		Y:      Scale{Lo: lo, Hi: hi},
		Layers: []Layer{points, {X: bx, Y: by, Style: Connected, Ink: InkBinned, Opaque: true}},
		XUnit:  "h",
	}
}

func padLines(lines []string, n int) []string {
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines[:n]
}
