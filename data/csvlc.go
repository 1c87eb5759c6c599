package data

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"transitbench/engine/lc"
)

// CSVHeader is the header line of a star directory's lightcurve.csv (SPEC A1).
const CSVHeader = "time,flux,flux_err,quality"

// maxLineBytes bounds one line of a text light curve; longer lines are reported as errors.
const maxLineBytes = 1 << 20

// ReadCSV reads a plain CSV light curve: columns time,flux[,flux_err[,quality]], comma-separated, with or
// without a header line. When the first line that is not blank or a comment holds no comma, fields are
// separated by blanks instead (the output of numpy.savetxt). With a header, columns are found by name (time,
// flux, flux_err, quality, any case, quotes ignored; other columns are skipped); without one they are taken
// in that order. Blank lines and lines starting with '#' are
// skipped. Empty or "nan" flux and flux_err fields are NaN; an empty quality field is 0. Without a flux_err
// column every cadence gets the robust point-to-point scatter of the flux (RobustScatter); without a quality
// column every cadence gets 0. Cadences are sorted and de-duplicated, and times and flux checked, as
// ReadLightCurve describes.
func ReadCSV(path string) (*lc.LightCurve, error) {
	text, err := readText(path, "CSV light curve")
	if err != nil {
		return nil, err
	}
	return parseCSV(text, path)
}

// parseCSV parses a CSV light curve held in text; name labels errors.
func parseCSV(text, name string) (*lc.LightCurve, error) {
	ls := lines{text: text}
	// col[k] is the field index of time, flux, flux_err, quality, or -1 when absent.
	col := [4]int{-1, -1, -1, -1}
	nfields := 0
	c := newCurve(strings.Count(text, "\n") + 1)
	var fields []string
	blankSeparated := false
	for {
		line, ok, err := ls.next()
		if err != nil {
			return nil, lineErr(name, ls.no, "%v; this is not a light-curve CSV", err)
		}
		if !ok {
			break
		}
		lineNo := ls.no
		line = strings.TrimSpace(line)
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if nfields == 0 {
			blankSeparated = !strings.Contains(line, ",")
		}
		if blankSeparated {
			fields = append(fields[:0], strings.Fields(line)...)
		} else {
			fields = splitComma(fields[:0], line)
		}
		if nfields == 0 {
			nfields = len(fields)
			header, err := csvColumns(&col, fields, line)
			if err != nil {
				return nil, lineErr(name, lineNo, "%v", err)
			}
			if header {
				continue
			}
		}
		if len(fields) != nfields {
			return nil, lineErr(name, lineNo, "%d fields, but the file's first line has %d", len(fields), nfields)
		}
		if err := csvRow(c, fields, col); err != nil {
			return nil, lineErr(name, lineNo, "%v", err)
		}
	}
	if c.Len() == 0 {
		return nil, fmt.Errorf("%s: %w: no data rows; %s", name, ErrEmptyFile, csvWant)
	}
	return finishText(c, name, col[2] < 0)
}

// csvWant says what columns a CSV light curve holds.
const csvWant = "expected columns time,flux[,flux_err[,quality]]"

// csvColumns sets col from the first row's fields (line is its text): from the names of a header line, which it
// reports, or else by position.
func csvColumns(col *[4]int, fields []string, line string) (header bool, err error) {
	nfields := len(fields)
	if _, err := strconv.ParseFloat(fields[0], 64); err != nil {
		for i, h := range fields {
			switch strings.ToLower(strings.Trim(h, `"'`)) {
			case "time":
				col[0] = i
			case "flux":
				col[1] = i
			case "flux_err", "fluxerr", "flux_error":
				col[2] = i
			case "quality":
				col[3] = i
			}
		}
		if col[0] < 0 || col[1] < 0 {
			return true, fmt.Errorf("the header %q lacks a time or a flux column; %s", clip(line), csvWant)
		}
		return true, nil
	}
	if nfields < 2 || nfields > 4 {
		return false, fmt.Errorf("%d fields and no header line; %s", nfields, csvWant)
	}
	for i := range nfields {
		col[i] = i
	}
	return false, nil
}

// csvRow appends the cadence in one data row's fields to c.
func csvRow(c *lc.LightCurve, fields []string, col [4]int) error {
	var v [3]float64
	for k := range 3 {
		v[k] = math.NaN()
		if col[k] < 0 {
			continue
		}
		s := fields[col[k]]
		if s == "" {
			continue
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("field %d (%s) is %q, not a number", col[k]+1, [3]string{"time", "flux", "flux_err"}[k], clip(s))
		}
		v[k] = x
	}
	var q int32
	if col[3] >= 0 && fields[col[3]] != "" {
		var err error
		if q, err = parseQuality(fields[col[3]]); err != nil {
			return fmt.Errorf("field %d (quality) is %q, not a 32-bit integer bitmask", col[3]+1, clip(fields[col[3]]))
		}
	}
	c.Time = append(c.Time, v[0])
	c.Flux = append(c.Flux, v[1])
	c.FluxErr = append(c.FluxErr, v[2])
	c.Quality = append(c.Quality, q)
	return nil
}

// splitComma appends the comma-separated, space-trimmed fields of line to dst.
func splitComma(dst []string, line string) []string {
	for {
		i := strings.IndexByte(line, ',')
		if i < 0 {
			return append(dst, strings.TrimSpace(line))
		}
		dst = append(dst, strings.TrimSpace(line[:i]))
		line = line[i+1:]
	}
}

// parseQuality parses a quality bitmask written as an integer (or as a float with an integral value).
func parseQuality(s string) (int32, error) {
	if q, err := strconv.ParseInt(s, 10, 32); err == nil {
		return int32(q), nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 {
		return 0, fmt.Errorf("not an integer")
	}
	return int32(x), nil
}

// fillErr sets every FluxErr of c to the robust point-to-point scatter of its flux.
func fillErr(c *lc.LightCurve) {
	s := RobustScatter(c.Flux)
	for i := range c.FluxErr {
		c.FluxErr[i] = s
	}
}

// AppendCSV appends c as a star directory's lightcurve.csv to dst: the header CSVHeader, then one line per
// cadence. Time is written with 7 decimals (%.7f: 10⁻⁷ d ≈ 9 ms, finer than any Kepler timing); flux and
// flux_err with 9 significant digits (%.9g: relative rounding ≤ 5·10⁻⁹, below half the spacing of float32
// values, 6·10⁻⁸, in which the Kepler archive stores flux; 9 digits are what a float32 needs to round-trip);
// quality as a decimal integer. NaN is written as "nan", infinities as "inf" and
// "-inf". The output is a pure function of c, byte for byte. (appendTime and appendFlux write these formats
// faster than strconv for the usual times and relative fluxes, with the same bytes.)
func AppendCSV(dst []byte, c *lc.LightCurve) []byte {
	dst = append(dst, CSVHeader...)
	dst = append(dst, '\n')
	// flux_err is often the same on every cadence (the simulator's white-noise σ): a value with the same bits
	// as the previous row's is written by copying that row's text rather than by formatting it again.
	var errBuf [32]byte
	errText, errBits := errBuf[:0], uint64(0)
	for i := range c.Time {
		dst = appendTime(dst, c.Time[i])
		dst = append(dst, ',')
		dst = appendFlux(dst, c.Flux[i])
		dst = append(dst, ',')
		if b := math.Float64bits(c.FluxErr[i]); len(errText) == 0 || b != errBits {
			start := len(dst)
			dst = appendFlux(dst, c.FluxErr[i])
			errText, errBits = append(errText[:0], dst[start:]...), b
		} else {
			dst = append(dst, errText...)
		}
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(c.Quality[i]), 10)
		dst = append(dst, '\n')
	}
	return dst
}

// appendNum appends x in the given strconv format, spelling NaN and infinities in lower case.
func appendNum(dst []byte, x float64, format byte, prec int) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, "nan"...)
	case math.IsInf(x, 1):
		return append(dst, "inf"...)
	case math.IsInf(x, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, x, format, prec, 64)
}

// csvBytesPerRow is a generous estimate of one lightcurve.csv line, used to size the write buffer once.
const csvBytesPerRow = 50

// encodeCSV returns c as lightcurve.csv bytes.
func encodeCSV(c *lc.LightCurve) []byte { return AppendCSV(csvBuffer(c), c) }

// csvBuffer returns an empty buffer with room for c's lightcurve.csv.
func csvBuffer(c *lc.LightCurve) []byte {
	return make([]byte, 0, len(CSVHeader)+1+c.Len()*csvBytesPerRow)
}
