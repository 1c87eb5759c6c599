package data

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"transitbench/engine/lc"
)

// ReadIPAC reads a light curve stored as an IPAC fixed-width table, as the Kepler DV time series are
// (../shared/data/kepler/dv/*.tbl): lines starting with '\' are keywords or comments; the first line starting
// with '|' names the columns and the pipes mark their boundaries; up to three further '|' lines give types,
// units and null values; every other non-blank line is a data row, cut into fields at the pipe positions.
//
// The table needs a TIME column (BKJD days) and a flux column LC_DETREND or, failing that, LC_INIT: fractional
// flux with 0 at the mean, converted to relative flux 1 + x. A field equal to the column's null value, "null"
// or "nan" is NaN. The table has no error or quality column, so FluxErr is the robust point-to-point scatter of
// the flux (RobustScatter) for every cadence and Quality is 0. Cadences are sorted and de-duplicated, and times
// and flux checked, as ReadLightCurve describes.
func ReadIPAC(path string) (*lc.LightCurve, error) {
	text, err := readText(path, "IPAC table")
	if err != nil {
		return nil, err
	}
	return parseIPAC(text, path)
}

// ipacColumn is one column of an IPAC table: its name, its byte range [lo, hi) in a line, its null value.
type ipacColumn struct {
	name   string
	lo, hi int
	null   string
}

// parseIPAC parses an IPAC light-curve table held in text; name labels errors.
func parseIPAC(text, name string) (*lc.LightCurve, error) {
	ls := lines{text: text}
	h := ipacHeader{iTime: -1, iFlux: -1}
	c := newCurve(strings.Count(text, "\n") + 1)
	for {
		line, ok, err := ls.next()
		if err != nil {
			return nil, lineErr(name, ls.no, "%v; this is not an IPAC light curve", err)
		}
		if !ok {
			break
		}
		lineNo := ls.no
		line = strings.TrimRight(line, " \t")
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if strings.TrimSpace(line) == "" || line[0] == '\\' {
			continue
		}
		if line[0] == '|' {
			if c.Len() > 0 {
				return nil, lineErr(name, lineNo, "a '|' header line after the data rows")
			}
			if err := h.add(line); err != nil {
				return nil, lineErr(name, lineNo, "%v", err)
			}
			continue
		}
		if h.rows == 0 {
			return nil, lineErr(name, lineNo, "a data row before the '|' header line that names the columns")
		}
		if err := h.row(c, line); err != nil {
			return nil, lineErr(name, lineNo, "%v", err)
		}
	}
	if h.rows == 0 {
		return nil, fmt.Errorf("%s: %w: no '|' header line naming the columns; this is not an IPAC table", name, ErrFormat)
	}
	if c.Len() == 0 {
		return nil, fmt.Errorf("%s: %w: the IPAC table has a header but no data rows", name, ErrEmptyFile)
	}
	return finishText(c, name, true)
}

// ipacHeader is what the '|' header lines of an IPAC table have said so far: the columns, how many lines there
// were, and which columns hold the time and the flux.
type ipacHeader struct {
	cols         []ipacColumn
	rows         int
	iTime, iFlux int
}

// add reads the next '|' header line: the column names, then types and units (ignored), then null values.
func (h *ipacHeader) add(line string) error {
	h.rows++
	switch h.rows {
	case 1:
		h.cols = ipacColumns(line)
		if len(h.cols) == 0 {
			return fmt.Errorf("the header line names no columns")
		}
		for i, col := range h.cols {
			switch strings.ToUpper(col.name) {
			case "TIME":
				h.iTime = i
			case "LC_DETREND":
				h.iFlux = i
			case "LC_INIT":
				if h.iFlux < 0 || strings.ToUpper(h.cols[h.iFlux].name) != "LC_DETREND" {
					h.iFlux = i
				}
			}
		}
		if h.iTime < 0 || h.iFlux < 0 {
			names := make([]string, len(h.cols))
			for i, col := range h.cols {
				names[i] = col.name
			}
			return fmt.Errorf("columns %q lack TIME or a flux column (LC_DETREND or LC_INIT); give a table with both", clip(strings.Join(names, " ")))
		}
	case 4:
		for i, f := range ipacFields(line, h.cols) {
			h.cols[i].null = f
		}
	case 2, 3:
		// types and units: the values are parsed as numbers whatever the declared type
	default:
		return fmt.Errorf("more than four '|' header lines")
	}
	return nil
}

// row appends the cadence in a data row to c: its time and its flux, converted to relative flux 1 + x.
func (h *ipacHeader) row(c *lc.LightCurve, line string) error {
	ct, cf := h.cols[h.iTime], h.cols[h.iFlux]
	if len(line) <= ct.lo || len(line) <= cf.lo {
		return fmt.Errorf("the row is %d characters long and ends before the TIME or flux column", len(line))
	}
	t, err := ipacValue(ipacField(line, ct), ct.null)
	if err != nil {
		return fmt.Errorf("TIME is %q, not a number", clip(ipacField(line, ct)))
	}
	x, err := ipacValue(ipacField(line, cf), cf.null)
	if err != nil {
		return fmt.Errorf("%s is %q, not a number", clip(cf.name), clip(ipacField(line, cf)))
	}
	c.Time = append(c.Time, t)
	c.Flux = append(c.Flux, 1+x)
	c.FluxErr = append(c.FluxErr, math.NaN())
	c.Quality = append(c.Quality, 0)
	return nil
}

// ipacColumns returns the columns named by an IPAC header line: column k spans from its opening pipe to the
// next pipe (the opening pipe's position included, since data rows put a blank or a sign there).
func ipacColumns(line string) []ipacColumn {
	var pipes []int
	for i := 0; i < len(line); i++ {
		if line[i] == '|' {
			pipes = append(pipes, i)
		}
	}
	var cols []ipacColumn
	for k := 0; k+1 < len(pipes); k++ {
		cols = append(cols, ipacColumn{
			name: strings.TrimSpace(line[pipes[k]+1 : pipes[k+1]]),
			lo:   pipes[k],
			hi:   pipes[k+1],
		})
	}
	if n := len(cols); n > 0 {
		cols[n-1].hi = math.MaxInt // the last column takes the rest of the line
	}
	return cols
}

// ipacField is the trimmed text of a column in a line.
func ipacField(line string, col ipacColumn) string {
	lo, hi := min(col.lo, len(line)), min(col.hi, len(line))
	return strings.TrimSpace(line[lo:hi])
}

// ipacFields cuts a line into the trimmed fields of every column.
func ipacFields(line string, cols []ipacColumn) []string {
	out := make([]string, len(cols))
	for i, col := range cols {
		out[i] = strings.Trim(ipacField(line, col), "| ")
	}
	return out
}

// ipacValue parses one numeric field; the null value, "null", "nan" and an empty field give NaN.
func ipacValue(s, null string) (float64, error) {
	if s == "" || (null != "" && s == null) || strings.EqualFold(s, "null") {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}
