package report

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// The figures are gonum/plot's SVG, written compactly: a year of cadences is a few thousand dots per panel, and
// gonum writes each dot as a path of two arcs (about 60 bytes) and each line vertex with five significant
// digits. compactSVG rewrites what it recognises and copies the rest unchanged:
//   - a run of dots of one colour and radius becomes one path of zero-length strokes with round caps (a dot
//     each), on DotGridPt's grid, relative moves, dots falling on the same grid point drawn once;
//   - a path of straight segments (lines, ticks, the frame) is written with relative moves in tenths of a point,
//     and consecutive unfilled ones of one style (the ticks of an axis) are joined into one path;
//   - text loses the font attributes that are the defaults (the font family is set once on the figure).
//
// A figure is 9 inches (648 pt) wide and is shown at most about 1,150 pixels wide, so a point is under two
// pixels: a dot moved by at most half a point, a line vertex by a twentieth, is not a change a reader sees.

// DotGridPt is the grid the dots are drawn on, in points (1/72 inch): about the dots' own diameter.
const DotGridPt = 1.0

const (
	pathOpen  = `<path d="`
	textStyle = `font-family:Liberation Serif;font-variant:normal;font-weight:normal;font-style:normal;`
	svgFont   = ` font-family="Liberation Serif, Times New Roman, serif"`
)

// compactSVG drops the XML prolog of gonum's SVG document b, so that it can stand inside HTML, and writes its
// dots, lines and text compactly (see DotGridPt).
func compactSVG(b []byte) []byte {
	if i := bytes.Index(b, []byte("<svg")); i > 0 {
		b = b[i:]
	}
	out := make([]byte, 0, len(b)/3)
	if bytes.HasPrefix(b, []byte("<svg")) {
		out = append(out, "<svg"...)
		out = append(out, svgFont...)
		b = b[len("<svg"):]
	}
	var run dotRun
	var lines lineRun
	flush := func() {
		out = run.flush(out)
		out = lines.flush(out)
	}
	for {
		i := bytes.Index(b, []byte(pathOpen))
		if i < 0 {
			flush()
			return append(out, cutTextStyle(b)...)
		}
		if len(bytes.TrimSpace(b[:i])) > 0 { // anything between two paths ends a run
			flush()
			out = append(out, cutTextStyle(b[:i])...)
		}
		end := bytes.Index(b[i:], []byte("/>"))
		if end < 0 {
			flush()
			return append(out, cutTextStyle(b[i:])...)
		}
		elem := string(b[i+len(pathOpen) : i+end+2])
		b = b[i+end+2:]
		if d, ok := parseDot(elem); ok {
			out = lines.flush(out)
			if !run.same(d) {
				out = run.flush(out)
				run.start(d)
			}
			run.add(d)
			continue
		}
		out = run.flush(out)
		if d, attrs, ok := compactPath(elem); ok {
			if !lines.same(attrs) {
				out = lines.flush(out)
				lines.attrs = attrs
			}
			lines.d = append(lines.d, d...)
			continue
		}
		out = lines.flush(out)
		out = append(out, pathOpen...)
		out = append(out, elem...)
	}
}

// lineRun collects consecutive unfilled paths of one style (a plot's ticks, say) into one path of several
// subpaths, each starting with an absolute move. Filled paths are not joined: their overlaps could cancel.
type lineRun struct {
	attrs string
	d     []byte
}

func (l *lineRun) same(attrs string) bool {
	return len(l.d) > 0 && attrs == l.attrs && strings.Contains(attrs, "fill:none")
}

func (l *lineRun) flush(out []byte) []byte {
	if len(l.d) == 0 {
		return out
	}
	out = append(out, pathOpen...)
	out = append(out, l.d...)
	out = append(out, '"')
	out = append(out, l.attrs...)
	out = append(out, "/>"...)
	l.d = l.d[:0]
	return out
}

// cutTextStyle removes the default font attributes from text styles.
func cutTextStyle(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\n\tstyle=\""+textStyle), []byte(` style="`))
	return bytes.ReplaceAll(b, []byte(textStyle), nil)
}

// dot is a filled circle: centre, radius (points) and fill colour (#RRGGBB).
type dot struct {
	x, y, r float64
	fill    string
}

// parseDot reads the rest of a path element after `<path d="` when it is a filled circle as gonum's SVG canvas
// writes it — `X,YAR,R 0 1 1 X2,YAR,R 0 1 1 X,YZ" style="fill:#RRGGBB" />`, from (cx + r, cy) an arc to
// (cx − r, cy) and back.
func parseDot(rest string) (dot, bool) {
	d, style, ok := strings.Cut(rest, `" style="fill:`)
	d, isMove := strings.CutPrefix(d, "M")
	if !ok || !isMove || len(style) != len(`#RRGGBB" />`) || style[0] != '#' || !strings.HasSuffix(style, `" />`) {
		return dot{}, false
	}
	parts := strings.Split(d, "A")
	if len(parts) != 3 || !strings.HasSuffix(parts[2], "Z") {
		return dot{}, false
	}
	xs, ys, ok := strings.Cut(parts[0], ",")
	if !ok {
		return dot{}, false
	}
	rs, _, ok := strings.Cut(parts[1], ",")
	if !ok || !strings.HasPrefix(parts[2], rs+",") {
		return dot{}, false
	}
	x, err1 := strconv.ParseFloat(xs, 64)
	y, err2 := strconv.ParseFloat(ys, 64)
	r, err3 := strconv.ParseFloat(rs, 64)
	if err1 != nil || err2 != nil || err3 != nil || !(r > 0) {
		return dot{}, false
	}
	return dot{x: x - r, y: y, r: r, fill: style[:7]}, true
}

// dotRun collects consecutive dots of one radius and colour.
type dotRun struct {
	r      float64
	fill   string
	d      []byte
	n      int
	px, py int // the last dot drawn, in grid units
	seen   map[[2]int]bool
}

func (run *dotRun) same(d dot) bool { return run.n > 0 && d.r == run.r && d.fill == run.fill }

func (run *dotRun) start(d dot) {
	run.r, run.fill, run.d, run.n = d.r, d.fill, run.d[:0], 0
	clear(run.seen)
	if run.seen == nil {
		run.seen = map[[2]int]bool{}
	}
}

// add draws d: a move to its grid point and a zero-length stroke, unless a dot of the run is there already.
func (run *dotRun) add(d dot) {
	gx, gy := int(math.Round(d.x/DotGridPt)), int(math.Round(d.y/DotGridPt))
	if run.n > 0 && run.seen[[2]int{gx, gy}] {
		return
	}
	run.seen[[2]int{gx, gy}] = true
	if run.n == 0 {
		run.d = append(run.d, 'M')
		run.d = appendPair(run.d, gx, gy, 1)
	} else {
		run.d = append(run.d, 'm')
		run.d = appendPair(run.d, gx-run.px, gy-run.py, 1)
	}
	run.d = append(run.d, "h0"...)
	run.px, run.py = gx, gy
	run.n++
}

// flush writes the run as one path (nothing when it is empty) and empties it.
func (run *dotRun) flush(out []byte) []byte {
	if run.n == 0 {
		return out
	}
	out = append(out, `<path fill="none" stroke="`...)
	out = append(out, run.fill...)
	out = append(out, `" stroke-linecap="round" stroke-width="`...)
	out = strconv.AppendFloat(out, 2*run.r/DotGridPt, 'g', 3, 64)
	if DotGridPt != 1 {
		out = append(out, `" transform="scale(`...)
		out = strconv.AppendFloat(out, DotGridPt, 'g', -1, 64)
		out = append(out, `)`...)
	}
	out = append(out, `" d="`...)
	out = append(out, run.d...)
	out = append(out, "\"/>\n"...)
	run.n = 0
	return out
}

// compactPath rewrites the rest of a path element after `<path d="` whose data are only moves, straight lines
// and closes (M, L, Z: gonum's lines, ticks and frames) with relative moves in tenths of a point, a vertex that
// does not move at that precision left out: it returns the path data (starting with an absolute move) and the
// element's other attributes. Other paths are not rewritten.
func compactPath(rest string) (data []byte, attrs string, ok bool) {
	d, attrs, ok := strings.Cut(rest, `"`)
	if !ok || len(d) == 0 || d[0] != 'M' {
		return nil, "", false
	}
	out := make([]byte, 0, len(d)/2)
	var px, py, sx, sy int // the current point and the subpath's start, in tenths
	var cmd byte
	for len(d) > 0 {
		c := d[0]
		d = d[1:]
		if c == 'Z' {
			out, cmd = append(out, 'z'), 'z'
			px, py = sx, sy // a close returns to the subpath's start
			continue
		}
		if c != 'M' && c != 'L' {
			return nil, "", false
		}
		j := strings.IndexAny(d, "MLZ")
		if j < 0 {
			j = len(d)
		}
		xs, ys, ok := strings.Cut(d[:j], ",")
		d = d[j:]
		x, err1 := strconv.ParseFloat(xs, 64)
		y, err2 := strconv.ParseFloat(ys, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, "", false
		}
		tx, ty := int(math.Round(10*x)), int(math.Round(10*y))
		switch {
		case c == 'M' && cmd == 0:
			out = append(out, 'M')
			out = appendPair(out, tx, ty, 10)
		case c == 'M':
			out = append(out, 'm')
			out = appendPair(out, tx-px, ty-py, 10)
			cmd = 'm'
		case tx == px && ty == py:
			continue
		default:
			if cmd != 'l' {
				out = append(out, 'l')
			} else if tx-px >= 0 {
				out = append(out, ' ')
			}
			out = appendPair(out, tx-px, ty-py, 10)
			cmd = 'l'
			px, py = tx, ty
			continue
		}
		if cmd == 0 {
			cmd = 'M'
		}
		px, py, sx, sy = tx, ty, tx, ty
	}
	return out, strings.TrimSuffix(strings.TrimSuffix(attrs, " />"), "/>"), true
}

// appendPair appends x and y, integers in units of 1/scale (1 or 10), separated as SVG path data allows: a
// space, or nothing before a minus sign.
func appendPair(b []byte, x, y, scale int) []byte {
	b = appendScaled(b, x, scale)
	if y >= 0 {
		b = append(b, ' ')
	}
	return appendScaled(b, y, scale)
}

// appendScaled appends n/scale (scale 1 or 10) in the fewest characters: 12, -3, .5, -1.5.
func appendScaled(b []byte, n, scale int) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	if scale == 1 || n%scale == 0 {
		return strconv.AppendInt(b, int64(n/scale), 10)
	}
	if n >= scale {
		b = strconv.AppendInt(b, int64(n/scale), 10)
	}
	b = append(b, '.')
	return strconv.AppendInt(b, int64(n%scale), 10)
}
