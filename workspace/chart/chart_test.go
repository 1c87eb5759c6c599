package chart

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

func TestMinMax(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		x, y   []float64
		lo, hi float64
		n      int
		want   []Column
	}{
		{"one per column", []float64{0.5, 1.5, 2.5}, []float64{1, 2, 3}, 0, 3, 3,
			[]Column{{1, 1, 1}, {2, 2, 1}, {3, 3, 1}}},
		// A single deep cadence among many: decimation by 4 would keep indices 0, 4 and lose the dip at 5.
		{"dip survives", []float64{0, 1, 2, 3, 4, 5, 6, 7}, []float64{1, 1, 1, 1, 1, 0.99, 1, 1}, 0, 8, 2,
			[]Column{{1, 1, 4}, {0.99, 1, 4}}},
		{"x at hi goes to last column", []float64{2}, []float64{5}, 0, 2, 2,
			[]Column{{nan, nan, 0}, {5, 5, 1}}},
		{"NaN and out of range skipped", []float64{-1, 0.1, nan, 0.2, 3}, []float64{9, nan, 9, 4, 9}, 0, 1, 1,
			[]Column{{4, 4, 1}}},
		{"empty range", []float64{1}, []float64{1}, 1, 1, 2,
			[]Column{{nan, nan, 0}, {nan, nan, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MinMax(make([]Column, tt.n), tt.x, tt.y, tt.lo, tt.hi)
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.N != w.N || !sameFloat(g.Min, w.Min) || !sameFloat(g.Max, w.Max) {
					t.Errorf("column %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func TestMarks(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	mark := make([]bool, 10)
	mark[3], mark[9] = true, true
	got := Marks(make([]bool, 5), x, mark, 0, 10)
	want := []bool{false, true, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Marks = %v, want %v", got, want)
		}
	}
}

func TestFlagShare(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	mark := []bool{true, false, false, false, true, true, false, false}
	got := FlagShare(make([]float64, 4), x, mark, 0, 8)
	want := []float64{0.5, 0, 1, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("FlagShare = %v, want %v", got, want)
		}
	}
	if got := FlagShare(make([]float64, 2), []float64{0.5}, []bool{true}, 0, 2); !math.IsNaN(got[1]) || got[0] != 1 {
		t.Errorf("an empty column should be NaN: %v", got)
	}
}

func TestScale(t *testing.T) {
	tests := []struct {
		s    Scale
		v    float64
		want int
	}{
		{Scale{Lo: 0, Hi: 10, N: 10}, 0, 0},
		{Scale{Lo: 0, Hi: 10, N: 10}, 9.99, 9},
		{Scale{Lo: 0, Hi: 10, N: 10}, 10, 9},
		{Scale{Lo: 0, Hi: 10, N: 10, Flip: true}, 10, 0},
		{Scale{Lo: 0, Hi: 10, N: 10, Flip: true}, 0, 9},
		{Scale{Lo: 1, Hi: 100, N: 2, Log: true}, 10, 1}, // log10(10) is the midpoint of [0, 2]
		{Scale{Lo: 1, Hi: 100, N: 2, Log: true}, 9.9, 0},
		{Scale{Lo: 1, Hi: 100, N: 2, Log: true}, -1, -1},
		{Scale{Lo: 0, Hi: 10, N: 10}, math.NaN(), -1},
		{Scale{Lo: 0, Hi: 10, N: 10}, 20, 20},
	}
	for _, tt := range tests {
		if got := tt.s.Pixel(tt.v); got != tt.want {
			t.Errorf("%+v.Pixel(%v) = %d, want %d", tt.s, tt.v, got, tt.want)
		}
	}
	s := Scale{Lo: 0, Hi: 10, N: 10}
	for p := 0; p < 10; p++ {
		if got := s.Pixel(s.Value(p)); got != p {
			t.Errorf("Pixel(Value(%d)) = %d", p, got)
		}
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 10, 5, []float64{0, 2, 4, 6, 8, 10}},
		{0.9985, 1.0012, 3, []float64{0.999, 1, 1.001}},
		{131.5, 504.2, 4, []float64{200, 300, 400, 500}},
		{-3, 3, 3, []float64{-2, 0, 2}},
		{1, 1, 3, nil},
	}
	for _, tt := range tests {
		got := Ticks(tt.lo, tt.hi, tt.n)
		if len(got) != len(tt.want) {
			t.Errorf("Ticks(%v, %v, %d) = %v, want %v", tt.lo, tt.hi, tt.n, got, tt.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tt.want[i]) > 1e-12 {
				t.Errorf("Ticks(%v, %v, %d) = %v, want %v", tt.lo, tt.hi, tt.n, got, tt.want)
				break
			}
		}
	}
	if got := LogTicks(0.5, 124); len(got) != 8 || got[0] != 0.5 || got[7] != 100 {
		t.Errorf("LogTicks(0.5, 124) = %v, want 0.5 1 2 5 10 20 50 100", got)
	}
}

func TestFormatTick(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{0.999, 0.001, "0.999"},
		{1, 0.001, "1.000"},
		{200, 100, "200"},
		{0, 0.5, "0"},
		{-2.5, 0.5, "-2.5"},
	}
	for _, tt := range tests {
		if got := FormatTick(tt.v, tt.step); got != tt.want {
			t.Errorf("FormatTick(%v, %v) = %q, want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

func TestCanvasDots(t *testing.T) {
	c := NewCanvas(2, 1)
	c.Set(0, 0, 0) // dot 1
	c.Set(1, 3, 0) // dot 8
	c.Set(2, 1, 0) // second cell, dot 2
	c.Set(9, 9, 0) // outside: ignored
	got := c.Lines(nil)
	want := string(rune(0x2800+0x01+0x80)) + string(rune(0x2800+0x02))
	if len(got) != 1 || got[0] != want {
		t.Fatalf("Lines = %q, want %q", got, want)
	}
	inked := c.Lines(func(ink Ink, s string) string { return "<" + s + ">" })
	if inked[0] != "<"+want+">" {
		t.Errorf("painted = %q", inked[0])
	}
}

func TestCanvasInkPriority(t *testing.T) {
	c := NewCanvas(3, 1)
	c.Set(0, 0, 2)
	c.Set(1, 0, 1) // same cell, lower ink: the cell stays ink 2
	c.Set(5, 0, 1)
	var runs []string
	c.Lines(func(ink Ink, s string) string {
		runs = append(runs, string(rune('0'+ink))+":"+strings.TrimSpace(s))
		return s
	})
	if len(runs) != 2 || runs[0][0] != '2' || runs[1][0] != '1' {
		t.Errorf("runs = %q, want one run of ink 2 then one of ink 1", runs)
	}
}

func TestCanvasGolden(t *testing.T) {
	c := NewCanvas(12, 3)
	w, h := c.Size()
	for x := 0; x < w; x++ { // a sine across the canvas
		y := int(math.Round(float64(h-1) / 2 * (1 - math.Sin(2*math.Pi*float64(x)/float64(w)))))
		c.Set(x, y, 1)
	}
	c.VLine(w/2, 0, h-1, 2)
	c.HLine(0, w-1, h-1, 0)
	golden.RequireEqual(t, []byte(strings.Join(c.Lines(nil), "\n")+"\n"))
}

// synthetic returns a 30-day light curve at Kepler's cadence with a 0.5 % box transit every 7 days lasting
// 3 hours (starting at day 2), a slow trend, flagged cadences every 3 days, and deterministic "noise".
func synthetic() (t, flux []float64, flagged []bool) {
	const cadence = 0.0204336 // days (29.4244 min)
	for i := 0; ; i++ {
		ti := 100 + float64(i)*cadence
		if ti > 130 {
			break
		}
		f := 1 + 0.0004*math.Sin(ti/3) + 0.0002*math.Sin(float64(i)*2.1)
		ph := math.Mod(ti-102+7, 7)
		if ph < 0.0625 || ph > 7-0.0625 {
			f -= 0.005
		}
		t = append(t, ti)
		flux = append(flux, f)
		flagged = append(flagged, i%147 == 0 || (ti > 121 && ti < 122.5))
	}
	return t, flux, flagged
}

func TestLightCurveGolden(t *testing.T) {
	tm, f, fl := synthetic()
	c := LightCurve(60, 10, tm, f, fl)
	out := c.Lines(nil)
	if len(out) != 10 {
		t.Fatalf("%d lines, want 10", len(out))
	}
	golden.RequireEqual(t, []byte(strings.Join(out, "\n")+"\n"))
}

func TestLightCurveShowsEveryTransit(t *testing.T) {
	// Each transit lasts 3 h of a 30-day span: at 40 columns a column holds ≈ 18 h of data, so a decimating
	// plot would miss most transits. The min-max plot must reach the lowest pixel row in each transit's column.
	tm, f, _ := synthetic()
	c := LightCurve(40, 8, tm, f, nil)
	lines := c.Lines(nil)
	bottom := []rune(lines[len(lines)-2]) // the last plot row (no marker row without flags)
	gutter := yGutter(c)
	xs := Scale{Lo: tm[0], Hi: tm[len(tm)-1], N: 40 - gutter}
	for mid := 102.0; mid < 130; mid += 7 {
		col := gutter + xs.Pixel(mid)
		if bottom[col] == ' ' {
			t.Errorf("transit at %.0f d not drawn on the bottom row (column %d): %q", mid, col, string(bottom))
		}
	}
}

func TestPeriodogramGolden(t *testing.T) {
	var periods, power []float64
	for i := 0; i < 2000; i++ {
		p := 0.5 * math.Pow(120/0.5, float64(i)/1999)
		periods = append(periods, p)
		v := 3 + math.Sin(float64(i)/13)
		for _, pk := range []float64{7, 14, 3.5} {
			v += 12 * math.Exp(-math.Pow(math.Log(p/pk)*200, 2)) * 7 / pk
		}
		power = append(power, v)
	}
	lines := Periodogram(70, 9, periods, power, []PeakMark{{7, "1", true}, {14, "2", false}}, nil)
	if len(lines) != 9 {
		t.Fatalf("%d lines, want 9", len(lines))
	}
	golden.RequireEqual(t, []byte(strings.Join(lines, "\n")+"\n"))
}

func TestPeriodogramKeepsNarrowPeak(t *testing.T) {
	// One trial period of 20,000 has power 50, the rest 1: with 40 columns, ≈ 500 periods share a column, and
	// the plot must still reach the top label.
	n := 20000
	periods, power := make([]float64, n), make([]float64, n)
	for i := range periods {
		periods[i] = 0.5 + float64(i)*0.005
		power[i] = 1
	}
	power[12345] = 50
	lines := Periodogram(50, 8, periods, power, nil, nil)
	if !strings.Contains(lines[0], "╭") && !strings.Contains(lines[0], "╮") {
		t.Errorf("top row has no peak: %q", lines[0])
	}
}

func TestPeriodogramMarkUnderPeak(t *testing.T) {
	// A single strong trial period: the ▾ of its mark must sit in the column where the line peaks (╮ or ╭).
	n := 3000
	periods, power := make([]float64, n), make([]float64, n)
	for i := range periods {
		periods[i] = 0.5 * math.Pow(240, float64(i)/float64(n-1))
		power[i] = 2
	}
	power[1700] = 30
	lines := Periodogram(64, 8, periods, power, []PeakMark{{PeriodDays: periods[1700], Label: "1"}}, nil)
	top := []rune(lines[0])
	peakCol := -1
	for i, r := range top {
		if r == '╮' {
			peakCol = i
		}
	}
	mark := []rune(lines[len(lines)-2])
	markCol := -1
	for i, r := range mark {
		if r == '▾' {
			markCol = i
		}
	}
	if peakCol < 0 || markCol != peakCol {
		t.Errorf("peak drawn at column %d, marked at %d:\n%s\n%s", peakCol, markCol, string(top), string(mark))
	}
}

func TestFillColumns(t *testing.T) {
	nan := math.NaN()
	cols := []Column{{nan, nan, 0}, {1, 2, 3}, {nan, nan, 0}, {nan, nan, 0}, {4, 5, 1}}
	got := fillColumns(cols)
	want := []float64{2, 2, 2, 5, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fillColumns = %v, want %v", got, want)
		}
	}
}

func TestFoldedGolden(t *testing.T) {
	var x, y, bx, by []float64
	for i := 0; i < 600; i++ {
		h := -6 + 12*float64(i)/599
		v := 60 * math.Sin(float64(i)*1.7)
		if math.Abs(h) < 1.5 {
			v -= 400
		}
		x, y = append(x, h), append(y, v)
	}
	for b := 0; b < 24; b++ {
		h := -6 + 0.25 + 0.5*float64(b)
		v := 0.0
		if math.Abs(h) < 1.5 {
			v = -400
		}
		bx, by = append(bx, h), append(by, v)
	}
	out := Folded(50, 10, x, y, bx, by, nil, 6).Lines(nil)
	golden.RequireEqual(t, []byte(strings.Join(out, "\n")+"\n"))
}

func TestRobustRange(t *testing.T) {
	v := make([]float64, 10000)
	for i := range v {
		v[i] = 1 + 1e-4*math.Sin(float64(i))
	}
	v[5000] = 0.9 // a deep eclipse cadence: must be inside
	v[7000] = 1.5 // a cosmic ray: must be clipped
	v[8000] = math.NaN()
	lo, hi := RobustRange(v)
	if lo != 0.9 {
		t.Errorf("lo = %v, want the minimum 0.9", lo)
	}
	if hi > 1.001 || hi < 1+1e-4 {
		t.Errorf("hi = %v, want just above 1.0001", hi)
	}
}

func TestChartsFitTheirBox(t *testing.T) {
	tm, f, fl := synthetic()
	var periods, power []float64
	for i := 0; i < 500; i++ {
		periods = append(periods, 0.5+float64(i)*0.1)
		power = append(power, float64(i%37))
	}
	for _, size := range [][2]int{{20, 5}, {40, 8}, {77, 9}, {120, 20}} {
		w, h := size[0], size[1]
		charts := map[string][]string{
			"light curve": LightCurve(w, h, tm, f, fl).Lines(nil),
			"periodogram": Periodogram(w, h, periods, power, []PeakMark{{PeriodDays: 10, Label: "1"}}, nil),
			"folded":      Folded(w, h, tm, f, nil, nil, nil, 3).Lines(nil),
		}
		for name, lines := range charts {
			if len(lines) != h {
				t.Errorf("%s at %d×%d: %d lines", name, w, h, len(lines))
			}
			for _, l := range lines {
				if n := len([]rune(l)); n > w {
					t.Errorf("%s at %d×%d: line of %d cells: %q", name, w, h, n, l)
				}
			}
		}
	}
}

func TestOpaqueLayerHidesPointsBelow(t *testing.T) {
	// A dense cloud fills every cell; an opaque horizontal line at y = 0 must leave its cells with the line's
	// dots only (two dot rows of a cell out of four stay empty), a transparent one would not.
	var x, y []float64
	for i := 0; i < 4000; i++ {
		x, y = append(x, float64(i%200)/200*10), append(y, float64(i/200)/20*2-1)
	}
	line := Layer{X: []float64{0, 10}, Y: []float64{0, 0}, Style: Connected, Ink: InkBinned}
	render := func(opaque bool) string {
		l := line
		l.Opaque = opaque
		c := Chart{Width: 30, Height: 6, X: Scale{Lo: 0, Hi: 10}, Y: Scale{Lo: -1, Hi: 1},
			Layers: []Layer{{X: x, Y: y, Style: Points, Ink: InkData}, l}}
		return strings.Join(c.Lines(nil), "\n")
	}
	full := string(rune(0x28FF))
	if strings.Count(render(false), full) <= strings.Count(render(true), full) {
		t.Errorf("the opaque line did not clear the cloud in its cells:\n%s", render(true))
	}
}

func TestPointsOutsideRangeLeftOut(t *testing.T) {
	c := Chart{Width: 12, Height: 4, X: Scale{Lo: 0, Hi: 1}, Y: Scale{Lo: 0, Hi: 1},
		Layers: []Layer{{X: []float64{0.5, 0.5}, Y: []float64{5, -5}, Style: Points}}}
	for _, l := range c.Lines(nil)[:3] {
		for _, r := range l {
			if r >= 0x2801 && r <= 0x28FF {
				t.Fatalf("a point outside the y range was drawn: %q", l)
			}
		}
	}
}

func TestFoldedDenseUsesErrorBars(t *testing.T) {
	// 20,000 points in a 40×8 chart would cover every dot: the chart must show the bins with error bars.
	var x, y []float64
	for i := 0; i < 20000; i++ {
		x, y = append(x, -3+6*float64(i)/19999), append(y, 100*math.Sin(float64(i)*0.37))
	}
	bx, by, be := []float64{-2, 0, 2}, []float64{0, -50, 0}, []float64{5, 5, 5}
	c := Folded(40, 8, x, y, bx, by, be, 3)
	if c.Layers[0].Style != ErrorBars {
		t.Errorf("dense fold drawn with style %v, want error bars", c.Layers[0].Style)
	}
	sparse := Folded(40, 8, x[:50], y[:50], bx, by, be, 3)
	if sparse.Layers[0].Style != Points {
		t.Errorf("sparse fold drawn with style %v, want points", sparse.Layers[0].Style)
	}
}

func TestErrorBarsGolden(t *testing.T) {
	c := Chart{Width: 30, Height: 8, X: Scale{Lo: 0, Hi: 6}, Y: Scale{Lo: -3, Hi: 3},
		Layers: []Layer{{X: []float64{1, 2, 3, 4, 5}, Y: []float64{0, 1, -2, 0, 2}, Err: []float64{0.5, 1, 0.2, 2, 0.5},
			Style: ErrorBars, Ink: InkData}}}
	golden.RequireEqual(t, []byte(strings.Join(c.Lines(nil), "\n")+"\n"))
}
