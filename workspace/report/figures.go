package report

import (
	"bytes"
	"html/template"
	"sort"

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
	f.SVG = template.HTML(compactSVG(b.Bytes())) // gonum's SVG writer escapes the text it draws
	return f
}

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
