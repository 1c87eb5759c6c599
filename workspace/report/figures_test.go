package report

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"transitbench/workspace/figure"
)

// pathPoints decodes SVG path data of the commands M, m, L, l, h, z into absolute vertices, one list per
// subpath.
func pathPoints(t *testing.T, d string) [][][2]float64 {
	t.Helper()
	tok := regexp.MustCompile(`[MmLlhz]|-?(\d+\.?\d*|\.\d+)`).FindAllString(d, -1)
	var out [][][2]float64
	var x, y, sx, sy float64
	cmd := ""
	num := func(i *int) float64 {
		v, err := strconv.ParseFloat(tok[*i], 64)
		if err != nil {
			t.Fatalf("path %q: %v", d, err)
		}
		*i++
		return v
	}
	for i := 0; i < len(tok); {
		if strings.ContainsAny(tok[i], "MmLlhz") {
			cmd = tok[i]
			i++
			if cmd == "z" {
				x, y = sx, sy
				continue
			}
		}
		switch cmd {
		case "M", "m":
			dx, dy := num(&i), num(&i)
			if cmd == "m" {
				dx, dy = x+dx, y+dy
			}
			x, y, sx, sy = dx, dy, dx, dy
			out = append(out, [][2]float64{{x, y}})
			cmd = map[string]string{"M": "L", "m": "l"}[cmd] // pairs after a move are lines
		case "L", "l":
			dx, dy := num(&i), num(&i)
			if cmd == "l" {
				dx, dy = x+dx, y+dy
			}
			x, y = dx, dy
			out[len(out)-1] = append(out[len(out)-1], [2]float64{x, y})
		case "h":
			x += num(&i)
		default:
			t.Fatalf("path %q: command %q", d, cmd)
		}
	}
	return out
}

// TestCompactSVG draws a scatter and a line with gonum, and checks the compact SVG has no XML prolog, parses,
// draws the dots as one path of zero-length strokes on DotGridPt's grid (two dots on one grid point once), the
// line with its vertices within a twentieth of a point, and weighs less than a third of gonum's.
func TestCompactSVG(t *testing.T) {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "x (d)", "y (ppm)"
	pts := plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 3}, {X: 3, Y: 2}, {X: 3.0001, Y: 2.0001}} // the last two on one grid point
	for i := range 400 {
		pts = append(pts, plotter.XY{X: 1 + 2*float64(i)/400, Y: 2 + math.Sin(float64(i))})
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		t.Fatal(err)
	}
	s.GlyphStyle.Shape, s.GlyphStyle.Color = draw.CircleGlyph{}, color.RGBA{R: 90, G: 90, B: 90, A: 255} // the figures' dots
	line, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: 1.5, Y: 2.5}, {X: 2, Y: 1.5}, {X: 3, Y: 2.9}})
	if err != nil {
		t.Fatal(err)
	}
	line.LineStyle.Color = color.RGBA{R: 20, G: 90, B: 200, A: 255}
	p.Add(s, line)
	var raw bytes.Buffer
	if err := figure.WritePlot(&raw, p, 4, 3, figure.SVG); err != nil {
		t.Fatal(err)
	}
	dots := dotCentres(t, raw.String())
	if len(dots) != len(pts) {
		t.Fatalf("gonum drew %d dots of %d", len(dots), len(pts))
	}
	out := compactSVG(raw.Bytes())
	if !bytes.HasPrefix(out, []byte("<svg")) {
		t.Errorf("compact SVG starts with %.40q", out)
	}
	if 3*len(out) >= raw.Len() {
		t.Errorf("compact SVG has %d bytes, gonum's %d", len(out), raw.Len())
	}
	paths := parsePaths(t, out)

	// The dots: one path, each dot within half a grid step of its centre, each grid point once.
	var drawn [][2]float64
	for _, el := range paths {
		if el.attr["stroke-linecap"] == "round" {
			if drawn != nil {
				t.Error("the dots are drawn by more than one path")
			}
			for _, sub := range pathPoints(t, el.attr["d"]) {
				drawn = append(drawn, sub[0])
			}
			if el.attr["stroke"] != "#5A5A5A" || el.attr["stroke-width"] == "" {
				t.Errorf("dots drawn with %v", el.attr)
			}
		}
	}
	if len(drawn) != len(dots)-1 {
		t.Errorf("%d dots drawn, want %d (two of %d share a grid point)", len(drawn), len(dots)-1, len(dots))
	}
	for _, c := range dots {
		found := false
		for _, d := range drawn {
			if math.Abs(d[0]-c[0]) <= DotGridPt/2+1e-9 && math.Abs(d[1]-c[1]) <= DotGridPt/2+1e-9 {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no dot drawn within %g pt of (%g, %g)", DotGridPt/2, c[0], c[1])
		}
	}

	// The line: gonum's vertices, each within 0.05 pt.
	want := lineVertices(t, raw.String(), "stroke:#145AC8")
	var got [][2]float64
	for _, el := range paths {
		if strings.Contains(el.attr["style"], "stroke:#145AC8") {
			got = pathPoints(t, el.attr["d"])[0]
		}
	}
	if len(got) != len(want) {
		t.Fatalf("line has %d vertices, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if math.Abs(got[i][0]-want[i][0]) > 0.05+1e-9 || math.Abs(got[i][1]-want[i][1]) > 0.05+1e-9 {
			t.Errorf("vertex %d at %v, want %v", i, got[i], want[i])
		}
	}
	if n := bytes.Count(out, []byte("font-variant")); n != 0 {
		t.Errorf("%d texts keep the default font attributes", n)
	}
}

// element is an SVG element's attributes.
type element struct{ attr map[string]string }

// parsePaths parses an SVG document and returns its path elements, failing the test when it does not parse.
func parsePaths(t *testing.T, svg []byte) []element {
	t.Helper()
	var out []element
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("the SVG does not parse: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			el := element{attr: map[string]string{}}
			for _, a := range se.Attr {
				el.attr[a.Name.Local] = a.Value
			}
			out = append(out, el)
		}
	}
}

// dotCentres reads the centres of the circles gonum wrote as two arcs from (cx + r, cy).
func dotCentres(t *testing.T, svg string) [][2]float64 {
	var out [][2]float64
	for _, m := range regexp.MustCompile(`<path d="M([-\d.e]+),([-\d.e]+)A([\d.e]+),`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		r, _ := strconv.ParseFloat(m[3], 64)
		out = append(out, [2]float64{x - r, y})
	}
	return out
}

// lineVertices reads the vertices of gonum's path whose style contains style.
func lineVertices(t *testing.T, svg, style string) [][2]float64 {
	for _, m := range regexp.MustCompile(`<path d="([^"]*)" style="([^"]*)"`).FindAllStringSubmatch(svg, -1) {
		if strings.Contains(m[2], style) {
			return pathPoints(t, m[1])[0]
		}
	}
	t.Fatalf("no path styled %s", style)
	return nil
}

func TestAppendScaled(t *testing.T) {
	for _, c := range []struct {
		n, scale int
		want     string
	}{{0, 10, "0"}, {5, 10, ".5"}, {-5, 10, "-.5"}, {15, 10, "1.5"}, {-120, 10, "-12"}, {-7, 1, "-7"}, {42, 1, "42"}} {
		if got := string(appendScaled(nil, c.n, c.scale)); got != c.want {
			t.Errorf("appendScaled(%d, %d) = %q, want %q", c.n, c.scale, got, c.want)
		}
	}
}
