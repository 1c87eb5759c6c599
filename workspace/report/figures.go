package report

import (
	"bytes"
	"html/template"
	"sort"
	"strconv"
	"strings"

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
	const open = `<path d="M`
	out := make([]byte, 0, len(b))
	for {
		i := bytes.Index(b, []byte(open))
		if i < 0 {
			return append(out, b...)
		}
		out = append(out, b[:i]...)
		b = b[i:]
		end := bytes.Index(b, []byte("/>"))
		if end < 0 {
			return append(out, b...)
		}
		if c, ok := circle(string(b[len(open) : end+2])); ok {
			out = append(out, c...)
		} else {
			out = append(out, b[:end+2]...)
		}
		b = b[end+2:]
	}
}

// circle rewrites the rest of a path element after `<path d="M`, when it is a filled circle as gonum's SVG
// canvas writes it — `X,YAR,R 0 1 1 X2,YAR,R 0 1 1 X,YZ" style="fill:#RRGGBB" />`, from (cx + r, cy) an arc
// to (cx − r, cy) and back — as a circle element.
func circle(rest string) (string, bool) {
	d, style, ok := strings.Cut(rest, `" style="fill:`)
	if !ok || len(style) != len(`#RRGGBB" />`) || style[0] != '#' || !strings.HasSuffix(style, `" />`) {
		return "", false
	}
	parts := strings.Split(d, "A")
	if len(parts) != 3 || !strings.HasSuffix(parts[2], "Z") {
		return "", false
	}
	xs, ys, ok := strings.Cut(parts[0], ",")
	if !ok {
		return "", false
	}
	rs, _, ok := strings.Cut(parts[1], ",")
	if !ok || !strings.HasPrefix(parts[2], rs+",") {
		return "", false
	}
	x, err1 := strconv.ParseFloat(xs, 64)
	r, err2 := strconv.ParseFloat(rs, 64)
	if _, err3 := strconv.ParseFloat(ys, 64); err1 != nil || err2 != nil || err3 != nil {
		return "", false
	}
	return `<circle cx="` + strconv.FormatFloat(x-r, 'f', 2, 64) + `" cy="` + ys + `" r="` + rs + `" fill="` + style[:7] + `"/>`, true
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
