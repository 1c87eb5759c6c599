package chart

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Style says how a layer's points are drawn.
type Style int

const (
	// Points sets one dot per point.
	Points Style = iota
	// Range draws, in every dot column, a vertical bar from the smallest to the largest y of the points in it
	// (MinMax at dot resolution): the honest picture of a long series.
	Range
	// Connected joins consecutive points (in x order) with vertical bars, for binned means.
	Connected
	// ErrorBars draws, at each x, a vertical bar from y − Err to y + Err.
	ErrorBars
)

// Layer is one series of a chart. Later layers draw over earlier ones; Ink decides the colour of a cell
// shared with another layer (the higher wins).
type Layer struct {
	X, Y  []float64
	Err   []float64 // the half-lengths of ErrorBars, one per point
	Style Style
	Ink   Ink
	// Opaque layers replace, in every cell they touch, the dots of the layers under them, so that a line stays
	// readable over a dense cloud of points even without colour.
	Opaque bool
}

// Mark is a marker under the plot area at x (a flagged cadence, a BLS peak): Text is written starting at the
// marker's column.
type Mark struct {
	X    float64
	Text string
	Ink  Ink
}

// Chart is a braille plot with a y axis on the left, an optional marker row and a row of x tick labels.
// Width and Height are the whole chart in cells. X and Y give the data ranges (N is set by Lines); empty
// tick lists are chosen automatically, and XFormat and YFormat default to FormatTick.
type Chart struct {
	Width, Height    int
	X, Y             Scale
	Layers           []Layer
	Marks            []Mark
	XTicks, YTicks   []float64
	XFormat, YFormat func(v float64) string
	// XUnit is written at the right end of the x label row when it fits.
	XUnit string
}

// AxisInk is the ink of the axes and labels; layers use other inks.
const AxisInk Ink = 0

// Lines renders the chart as Height lines of at most Width cells. paint colours runs of cells by ink (nil
// gives plain text); labels are painted with AxisInk.
func (c Chart) Lines(paint func(ink Ink, s string) string) []string {
	if paint == nil {
		paint = func(_ Ink, s string) string { return s }
	}
	rows := c.Height - 1 // the x label row
	if len(c.Marks) > 0 {
		rows--
	}
	if rows < 1 || c.Width < 8 {
		return blankLines(max(c.Height, 0))
	}
	yfmt := c.YFormat
	yticks := c.YTicks
	if yticks == nil {
		yticks = Ticks(c.Y.Lo, c.Y.Hi, max(rows/2, 1))
	}
	if yfmt == nil {
		step := NiceStep(c.Y.Lo, c.Y.Hi, max(rows/2, 1))
		yfmt = func(v float64) string { return FormatTick(v, step) }
	}
	gutter := 0
	ylabels := make([]string, len(yticks))
	for i, v := range yticks {
		ylabels[i] = yfmt(v)
		gutter = max(gutter, utf8.RuneCountInString(ylabels[i]))
	}
	gutter++ // the axis character
	plotW := c.Width - gutter
	if plotW < 4 {
		return blankLines(c.Height)
	}

	xs := c.X
	xs.N = 2 * plotW
	ys := c.Y
	ys.N, ys.Flip = 4*rows, true
	cv := NewCanvas(plotW, rows)
	for _, l := range c.Layers {
		if l.Opaque {
			top := NewCanvas(plotW, rows)
			drawLayer(top, l, xs, ys)
			cv.Overlay(top)
			continue
		}
		drawLayer(cv, l, xs, ys)
	}

	// The y axis: a label where a tick falls, the axis character elsewhere.
	labelAt := make(map[int]string, len(yticks))
	for i, v := range yticks {
		p := ys.Pixel(v)
		if p < 0 || p >= ys.N {
			continue
		}
		labelAt[p/4] = ylabels[i]
	}
	body := cv.Lines(paint)
	out := make([]string, 0, c.Height)
	for r := 0; r < rows; r++ {
		axis := "│"
		label := labelAt[r]
		if label != "" {
			axis = "┤"
		}
		out = append(out, paint(AxisInk, padLeft(label, gutter-1)+axis)+body[r])
	}
	if len(c.Marks) > 0 {
		out = append(out, strings.Repeat(" ", gutter)+markRow(c.Marks, c.X, plotW, paint))
	}
	out = append(out, paint(AxisInk, strings.Repeat(" ", gutter)+c.xLabels(plotW)))
	return out
}

func drawLayer(cv *Canvas, l Layer, xs, ys Scale) {
	switch l.Style {
	case Points:
		// Points outside the y range are left out (piling them on the edge rows would draw a false floor).
		for i, x := range l.X {
			px, py := xs.Pixel(x), ys.Pixel(l.Y[i])
			if px < 0 || py < 0 || px >= xs.N || py >= ys.N || math.IsNaN(l.Y[i]) {
				continue
			}
			cv.Set(px, py, l.Ink)
		}
	case Range:
		lo, hi := xs.Lo, xs.Hi
		if xs.Log {
			lo, hi = math.Log(lo), math.Log(hi)
		}
		x := l.X
		if xs.Log {
			x = make([]float64, len(l.X))
			for i, v := range l.X {
				x[i] = math.Log(v)
			}
		}
		cols := MinMax(make([]Column, xs.N), x, l.Y, lo, hi)
		for px, col := range cols {
			if col.N == 0 {
				continue
			}
			cv.VLine(px, clampPixel(ys.Pixel(col.Min), ys.N), clampPixel(ys.Pixel(col.Max), ys.N), l.Ink)
		}
	case ErrorBars:
		for i, x := range l.X {
			y, e := l.Y[i], 0.0
			if i < len(l.Err) && !math.IsNaN(l.Err[i]) {
				e = l.Err[i]
			}
			px := xs.Pixel(x)
			if px < 0 || px >= xs.N || math.IsNaN(y) {
				continue
			}
			lo, hi := ys.Pixel(y-e), ys.Pixel(y+e)
			if (lo < 0 && hi < 0) || (lo >= ys.N && hi >= ys.N) {
				continue
			}
			cv.VLine(px, clampPixel(lo, ys.N), clampPixel(hi, ys.N), l.Ink)
		}
	case Connected:
		prevX, prevY := -1, 0
		for i, x := range l.X {
			if math.IsNaN(l.Y[i]) || math.IsNaN(x) {
				prevX = -1
				continue
			}
			px, py := xs.Pixel(x), clampPixel(ys.Pixel(l.Y[i]), ys.N)
			if prevX < 0 || px <= prevX {
				cv.Set(px, py, l.Ink)
			} else {
				// A vertical bar per dot column from the line's height at the previous column to its height here.
				at := func(q int) int {
					return int(math.Round(float64(prevY) + float64(q-prevX)/float64(px-prevX)*float64(py-prevY)))
				}
				for q := prevX + 1; q <= px; q++ {
					cv.VLine(q, at(q-1), at(q), l.Ink)
				}
			}
			prevX, prevY = px, py
		}
	}
}

func clampPixel(p, n int) int { return min(max(p, 0), n-1) }

func markRow(marks []Mark, xs Scale, plotW int, paint func(Ink, string) string) string {
	xs.N = plotW
	cells := make([]rune, plotW)
	inks := make([]Ink, plotW)
	for i := range cells {
		cells[i] = ' '
	}
	for _, m := range marks {
		p := xs.Pixel(m.X)
		if p < 0 || p >= plotW {
			continue
		}
		for j, r := range []rune(m.Text) {
			if p+j < plotW {
				cells[p+j] = r
				inks[p+j] = m.Ink
			}
		}
	}
	var b strings.Builder
	start := 0
	for i := 1; i <= plotW; i++ {
		if i == plotW || inks[i] != inks[start] {
			s := string(cells[start:i])
			if strings.TrimSpace(s) == "" {
				b.WriteString(s)
			} else {
				b.WriteString(paint(inks[start], s))
			}
			start = i
		}
	}
	return b.String()
}

// xLabels places the x tick labels under their columns, skipping a label that would touch the previous one.
func (c Chart) xLabels(plotW int) string {
	xs := c.X
	xs.N = plotW
	ticks := c.XTicks
	fmtx := c.XFormat
	if ticks == nil {
		if xs.Log {
			ticks = LogTicks(xs.Lo, xs.Hi)
		} else {
			ticks = Ticks(xs.Lo, xs.Hi, max(plotW/10, 1))
		}
	}
	if fmtx == nil {
		step := 0.0
		if !xs.Log {
			step = NiceStep(xs.Lo, xs.Hi, max(plotW/10, 1))
		}
		fmtx = func(v float64) string {
			if xs.Log {
				return formatLog(v)
			}
			return FormatTick(v, step)
		}
	}
	row := []rune(strings.Repeat(" ", plotW))
	next := 0
	for _, v := range ticks {
		p := xs.Pixel(v)
		label := []rune(fmtx(v))
		start := p - len(label)/2
		if start < 0 {
			start = 0
		}
		if start < next || start+len(label) > plotW || p < 0 || p >= plotW {
			continue
		}
		copy(row[start:], label)
		next = start + len(label) + 1
	}
	if u := []rune(c.XUnit); len(u) > 0 && next+len(u)+1 <= plotW {
		copy(row[plotW-len(u):], u)
	}
	return strings.TrimRight(string(row), " ")
}

func formatLog(v float64) string {
	if v >= 1 {
		return FormatTick(v, 1)
	}
	return FormatTick(v, v)
}

func padLeft(s string, w int) string {
	n := utf8.RuneCountInString(s)
	if n >= w {
		return s
	}
	return strings.Repeat(" ", w-n) + s
}

func blankLines(n int) []string {
	out := make([]string, n)
	return out
}
