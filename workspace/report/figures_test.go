package report

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"transitbench/workspace/figure"
)

// TestInlineSVGWritesDotsAsCircles draws a scatter with gonum, and checks the inline SVG has no XML prolog,
// parses, and has each dot as a circle at the same centre.
func TestInlineSVGWritesDotsAsCircles(t *testing.T) {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "x (d)", "y (ppm)"
	s, err := plotter.NewScatter(plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 3}, {X: 3, Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	s.GlyphStyle.Shape, s.GlyphStyle.Color = draw.CircleGlyph{}, color.RGBA{R: 90, G: 90, B: 90, A: 255} // the figures' dots
	p.Add(s)
	var raw bytes.Buffer
	if err := figure.WritePlot(&raw, p, 4, 3, figure.SVG); err != nil {
		t.Fatal(err)
	}
	arcs := strings.Count(raw.String(), " 0 1 1 ") / 2
	out := inlineSVG(raw.Bytes())
	if !bytes.HasPrefix(out, []byte("<svg")) {
		t.Errorf("inline SVG starts with %.40q", out)
	}
	if n := bytes.Count(out, []byte("<circle ")); n != 3 || arcs != 3 || bytes.Contains(out, []byte(" 0 1 1 ")) {
		t.Errorf("%d arcs drawn, %d circles written; arcs left: %v", arcs, n, bytes.Contains(out, []byte(" 0 1 1 ")))
	}
	if len(out) >= raw.Len() {
		t.Errorf("inline SVG has %d bytes, the original %d", len(out), raw.Len())
	}
	d := xml.NewDecoder(bytes.NewReader(out))
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Errorf("the inline SVG does not parse: %v", err)
			}
			break
		}
	}
	if c, ok := circle(`10.5,20.25A0.5,0.5 0 1 1 9.5,20.25A0.5,0.5 0 1 1 10.5,20.25Z" style="fill:#5A5A5A" />`); !ok ||
		c != `<circle cx="10.00" cy="20.25" r="0.5" fill="#5A5A5A"/>` {
		t.Errorf("circle gave %q, %v", c, ok)
	}
	if _, ok := circle(`10,20L30,40Z" style="fill:#5A5A5A" />`); ok {
		t.Error("a polygon was taken for a circle")
	}
}
