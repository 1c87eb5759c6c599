package report

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"sort"
	"strconv"

	"gonum.org/v1/plot"

	"transitbench/workspace/figure"
)

// Figure is an inline SVG figure with its caption; ID names it for the page's anchors.
type Figure struct {
	ID, Caption string
	SVG         template.HTML
	Err         string
}

// svgFigure draws one plot as an inline SVG, widthIn × heightIn inches.
func svgFigure(id, caption string, p *plot.Plot, widthIn, heightIn float64) Figure {
	return gridFigure(id, caption, [][]*plot.Plot{{p}}, widthIn, heightIn)
}

// gridFigure draws plots in rows as one inline SVG.
func gridFigure(id, caption string, rows [][]*plot.Plot, widthIn, heightIn float64) Figure {
	var b bytes.Buffer
	f := Figure{ID: id, Caption: caption}
	if err := figure.WriteGrid(&b, rows, widthIn, heightIn, figure.SVG); err != nil {
		f.Err = err.Error()
		return f
	}
	f.SVG = template.HTML(inlineSVG(b.Bytes())) // gonum's SVG writer escapes the text it draws
	return f
}

// inlineSVG drops the XML prolog of an SVG document, so that it can stand inside HTML, and writes the round
// markers gonum draws as two arcs as circles, which take half the bytes.
func inlineSVG(b []byte) []byte {
	if i := bytes.Index(b, []byte("<svg")); i > 0 {
		b = b[i:]
	}
	return arcDot.ReplaceAllFunc(b, func(m []byte) []byte {
		g := arcDot.FindSubmatch(m)
		x, err1 := strconv.ParseFloat(string(g[1]), 64)
		r, err2 := strconv.ParseFloat(string(g[3]), 64)
		if err1 != nil || err2 != nil {
			return m
		}
		return fmt.Appendf(nil, `<circle cx="%s" cy="%s" r="%s" fill="%s"/>`,
			strconv.FormatFloat(x-r, 'f', 2, 64), g[2], g[3], g[4])
	})
}

// arcDot is a filled circle as gonum's SVG canvas writes it: from (cx + r, cy) an arc to (cx − r, cy) and back.
var arcDot = regexp.MustCompile(`<path d="M([-0-9.]+),([-0-9.]+)A([0-9.]+),[0-9.]+ 0 1 1 [-0-9.]+,[-0-9.]+A[0-9.]+,[0-9.]+ 0 1 1 [-0-9.]+,[-0-9.]+Z" style="fill:(#[0-9A-Fa-f]{6})" />`)

// sortChanges orders changes: worse first, then better, then by star.
func sortChanges(c []Change) {
	rank := func(x Change) int {
		switch {
		case x.Worse:
			return 0
		case x.Better:
			return 1
		}
		return 2
	}
	sort.Slice(c, func(i, j int) bool {
		if ri, rj := rank(c[i]), rank(c[j]); ri != rj {
			return ri < rj
		}
		return c[i].ID < c[j].ID
	})
}
