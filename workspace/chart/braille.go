package chart

import "strings"

// Ink names the colour of the dots of a cell. Ink 0 is the default colour; when dots of several inks fall in
// one cell the highest ink wins, so a caller gives its most important layer (transits, binned means) the
// highest number.
type Ink uint8

// Canvas is a grid of w×h terminal cells, each holding 2×4 braille dots (Unicode U+2800–U+28FF), so it has
// 2w×4h dots. Dot (0, 0) is the top-left one.
type Canvas struct {
	w, h int
	bits []uint8
	ink  []Ink
}

// brailleBit[row][col] is the bit of the dot at column col (0, 1) and row row (0–3) of a braille cell, as
// Unicode numbers the dots: 1 2 3 7 down the left column, 4 5 6 8 down the right.
var brailleBit = [4][2]uint8{{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}}

// NewCanvas returns an empty canvas of w×h cells (negative sizes count as 0).
func NewCanvas(w, h int) *Canvas {
	w, h = max(w, 0), max(h, 0)
	return &Canvas{w: w, h: h, bits: make([]uint8, w*h), ink: make([]Ink, w*h)}
}

// Size returns the canvas size in dots.
func (c *Canvas) Size() (w, h int) { return 2 * c.w, 4 * c.h }

// Set turns on the dot at (x, y) with ink. Dots outside the canvas are ignored.
func (c *Canvas) Set(x, y int, ink Ink) {
	if x < 0 || y < 0 || x >= 2*c.w || y >= 4*c.h {
		return
	}
	i := (y/4)*c.w + x/2
	c.bits[i] |= brailleBit[y%4][x%2]
	if ink > c.ink[i] {
		c.ink[i] = ink
	}
}

// VLine turns on the dots of column x from row y0 to row y1 (in either order), clipped to the canvas.
func (c *Canvas) VLine(x, y0, y1 int, ink Ink) {
	y0, y1 = clipSpan(y0, y1, 4*c.h-1)
	for y := y0; y <= y1; y++ {
		c.Set(x, y, ink)
	}
}

// HLine turns on the dots of row y from column x0 to column x1 (in either order), clipped to the canvas.
func (c *Canvas) HLine(x0, x1, y int, ink Ink) {
	x0, x1 = clipSpan(x0, x1, 2*c.w-1)
	for x := x0; x <= x1; x++ {
		c.Set(x, y, ink)
	}
}

// clipSpan puts a and b in order and clips them to [0, hi].
func clipSpan(a, b, hi int) (lo, up int) {
	if a > b {
		a, b = b, a
	}
	return max(a, 0), min(b, hi)
}

// Overlay copies every non-empty cell of top (of the same size) over c, dots and ink, hiding what c had there.
func (c *Canvas) Overlay(top *Canvas) {
	for i, b := range top.bits {
		if b != 0 && i < len(c.bits) {
			c.bits[i], c.ink[i] = b, top.ink[i]
		}
	}
}

// Lines returns the canvas as h lines of w cells: an empty cell is a space, any other the braille character
// of its dots. paint, when not nil, colours each run of cells of one ink (it is not called for ink-0 runs of
// spaces only); nil gives plain text.
func (c *Canvas) Lines(paint func(ink Ink, s string) string) []string {
	out := make([]string, c.h)
	var b, run strings.Builder
	for r := 0; r < c.h; r++ {
		b.Reset()
		run.Reset()
		cur := Ink(0)
		flush := func() {
			if run.Len() == 0 {
				return
			}
			if paint != nil && strings.TrimSpace(run.String()) != "" {
				b.WriteString(paint(cur, run.String()))
			} else {
				b.WriteString(run.String())
			}
			run.Reset()
		}
		for col := 0; col < c.w; col++ {
			i := r*c.w + col
			ink := c.ink[i]
			if c.bits[i] == 0 {
				ink = 0
			}
			if ink != cur {
				flush()
				cur = ink
			}
			if c.bits[i] == 0 {
				run.WriteByte(' ')
			} else {
				run.WriteRune(rune(0x2800 + int(c.bits[i])))
			}
		}
		flush()
		out[r] = b.String()
	}
	return out
}
