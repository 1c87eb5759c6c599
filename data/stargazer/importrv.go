package stargazer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrBadSeries wraps every problem with an RV file given to the importer.
var ErrBadSeries = errors.New("stargazer: bad RV file")

// MinImportPoints is the fewest points an imported series may have: a one-planet Keplerian has five parameters
// besides the offsets, and a periodogram of fewer points says nothing.
const MinImportPoints = 10

// MaxImportBytes bounds one RV file given to the importer.
const MaxImportBytes = 64 << 20

// Series is one RV file as the importer read it: times (days, in the file's own time system), velocities and
// 1σ errors (m/s), each point's instrument, the format it was read as and the time system it was detected in.
type Series struct {
	Times, RVs, Sigmas []float64
	Instruments        []string
	Format             string // "radvel", "csv" or "table" (whitespace-separated)
	Header             bool   // the first row named the columns
	Time               TimeSystem
}

// TimeSystem is the time system the importer detected from the times' magnitude (and the header's name for the
// time column): Offset is what is added to the file's times to give full Julian days (0 when they are already
// full, or when they are days from an unknown zero).
type TimeSystem struct {
	Name   string  `json:"name"`   // e.g. "BJD", "BJD - 2450000", "days from an unknown zero"
	Offset float64 `json:"offset"` // days added to reach full JD/BJD
	Known  bool    `json:"known"`  // false: relative days, which cannot be put on a common scale with other files
}

// Column names the importer recognises (lower case, units in brackets or after an underscore dropped).
var (
	timeNames = []string{"time", "t", "jd", "bjd", "bjd_tdb", "hjd", "mjd", "rjd", "bjd-2450000", "bkjd", "date", "epoch", "times_days"}
	rvNames   = []string{"mnvel", "rv", "vrad", "rv_ms", "rvs_ms", "velocity", "vel", "radvel"}
	errNames  = []string{"errvel", "err", "error", "e_rv", "erv", "rv_err", "sigma", "sigma_rv", "svrad", "e_vrad", "sigmas_ms", "unc"}
	instNames = []string{"tel", "inst", "instrument", "telescope", "instruments", "spectrograph"}
)

// ParseSeries reads an RV series: radvel's whitespace table (time mnvel errvel tel …), a CSV with a header naming
// time, rv and error columns (and optionally the instrument), or, without a header, the columns time, rv, error
// and optionally instrument, separated by commas or by blanks. Lines starting with # are comments; extra
// columns are ignored. defaultInst labels the points of a file with no instrument column. Every problem is
// one line wrapping ErrBadSeries that names the file and line and says what to do: a row with a different
// number of columns than the first, a value that is not a number, a non-finite value, σ ≤ 0, fewer than
// MinImportPoints points.
func ParseSeries(b []byte, name, defaultInst string) (*Series, error) {
	bad := func(line int, format string, a ...any) error {
		where := name
		if line > 0 {
			where = fmt.Sprintf("%s:%d", name, line)
		}
		return fmt.Errorf("%w: %s: %s", ErrBadSeries, where, fmt.Sprintf(format, a...))
	}
	if len(b) > MaxImportBytes {
		return nil, bad(0, "%d bytes, more than %d; give an RV table (time, rv, error[, instrument])", len(b), MaxImportBytes)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, bad(0, "binary data (a NUL byte); give a text table of time, rv, error[, instrument]")
	}
	s := &Series{}
	cols := columnMap{time: 0, rv: 1, err: 2, inst: -1}
	width, lineNo := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "%") {
			continue
		}
		comma := strings.Contains(line, ",")
		if width == 0 {
			s.Format = "table"
			if comma {
				s.Format = "csv"
			}
		}
		if comma != (s.Format == "csv") {
			return nil, bad(lineNo, "mixes comma-separated and blank-separated rows; use one separator throughout")
		}
		f := splitRow(line, comma)
		if width == 0 {
			width = len(f)
			if isHeader(f) {
				var err error
				if cols, err = headerColumns(f); err != nil {
					return nil, bad(lineNo, "%v", err)
				}
				s.Header = true
				if cols.inst >= 0 && strings.EqualFold(f[cols.rv], "mnvel") {
					s.Format = "radvel"
				}
				continue
			}
			if width < 3 {
				return nil, bad(lineNo, "%d column(s); give time, rv, error[, instrument] on each line", width)
			}
			if width >= 4 {
				if _, err := strconv.ParseFloat(f[3], 64); err != nil {
					cols.inst = 3
				}
			}
		}
		if len(f) != width {
			return nil, bad(lineNo, "%d columns where the first row has %d; every row needs the same columns (time, rv, error[, instrument])", len(f), width)
		}
		if err := s.addRow(f, cols, defaultInst); err != nil {
			return nil, bad(lineNo, "%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bad(lineNo+1, "%v; lines must be shorter than 1 MB", err)
	}
	if len(s.Times) < MinImportPoints {
		return nil, bad(0, "%d points; an RV fit needs at least %d (time, rv, error on each line)", len(s.Times), MinImportPoints)
	}
	s.Time = detectTimeSystem(s.Times, cols.timeName)
	return s, nil
}

// columnMap is where the importer finds each quantity in a row (inst −1: no instrument column).
type columnMap struct {
	time, rv, err, inst int
	timeName            string
}

func splitRow(line string, comma bool) []string {
	if !comma {
		return strings.Fields(line)
	}
	f := strings.Split(line, ",")
	for i := range f {
		f[i] = strings.Trim(strings.TrimSpace(f[i]), `"'`)
	}
	return f
}

// isHeader reports whether a first row names columns: its first field is not a number.
func isHeader(f []string) bool {
	_, err := strconv.ParseFloat(f[0], 64)
	return err != nil && !isNaNWord(f[0])
}

func isNaNWord(s string) bool {
	l := strings.ToLower(s)
	return l == "nan" || l == "inf" || l == "+inf" || l == "-inf" || l == "infinity"
}

// headerColumns finds the time, rv, error and instrument columns a header names.
func headerColumns(f []string) (columnMap, error) {
	c := columnMap{time: -1, rv: -1, err: -1, inst: -1}
	for i, raw := range f {
		n := normalise(raw)
		switch {
		case c.time < 0 && (oneOf(n, timeNames) || strings.HasPrefix(n, "bjd") || strings.HasPrefix(n, "jd")):
			c.time, c.timeName = i, n
		case c.rv < 0 && oneOf(n, rvNames):
			c.rv = i
		case c.err < 0 && oneOf(n, errNames):
			c.err = i
		case c.inst < 0 && oneOf(n, instNames):
			c.inst = i
		}
	}
	if c.time < 0 || c.rv < 0 || c.err < 0 {
		return c, fmt.Errorf("header %q does not name a time, an rv and an error column; name them time, rv, err (or radvel's time, mnvel, errvel, tel)",
			strings.Join(f, " "))
	}
	return c, nil
}

// normalise lower-cases a column name and drops a unit in brackets or parentheses.
func normalise(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(s, "[("); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.ReplaceAll(s, " ", "_")
}

func oneOf(s string, names []string) bool {
	for _, n := range names {
		if s == n {
			return true
		}
	}
	return false
}

// addRow reads one data row into s.
func (s *Series) addRow(f []string, c columnMap, defaultInst string) error {
	var v [3]float64
	for k, col := range []int{c.time, c.rv, c.err} {
		what := [3]string{"time", "rv", "error"}[k]
		x, err := strconv.ParseFloat(f[col], 64)
		if err != nil && !isNaNWord(f[col]) {
			return fmt.Errorf("%s %q is not a number; give numbers in the time, rv and error columns", what, f[col])
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s is %s; remove the row or give a finite value", what, f[col])
		}
		v[k] = x
	}
	switch {
	case math.Abs(v[0]) > MaxTimeDays:
		return fmt.Errorf("time %g is beyond ±%g d; give days (JD, BJD or BJD − 2450000)", v[0], float64(MaxTimeDays))
	case math.Abs(v[1]) > MaxVelocityMS:
		return fmt.Errorf("rv %g is beyond ±%g m/s; give velocities in m/s", v[1], float64(MaxVelocityMS))
	case !(v[2] > 0):
		return fmt.Errorf("error %g is not positive; every point needs σ > 0 (m/s)", v[2])
	case v[2] < MinSigmaMS || v[2] > MaxVelocityMS:
		return fmt.Errorf("error %g m/s is outside [%g, %g]; give errors in m/s", v[2], MinSigmaMS, float64(MaxVelocityMS))
	}
	inst := defaultInst
	if c.inst >= 0 {
		inst = f[c.inst]
		if inst == "" {
			return errors.New("the instrument is empty; give a label or drop the column")
		}
	}
	s.Times, s.RVs, s.Sigmas = append(s.Times, v[0]), append(s.RVs, v[1]), append(s.Sigmas, v[2])
	s.Instruments = append(s.Instruments, inst)
	return nil
}

// detectTimeSystem names the time system of times from their magnitude, using the header's name for the time
// column (timeName, "" without a header) to tell BJD from JD, HJD or MJD.
func detectTimeSystem(times []float64, timeName string) TimeSystem {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range times {
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	label := "BJD"
	switch {
	case strings.HasPrefix(timeName, "hjd"):
		label = "HJD"
	case strings.HasPrefix(timeName, "jd"):
		label = "JD"
	}
	switch {
	case lo >= 2.3e6 && hi <= 2.6e6:
		return TimeSystem{Name: label, Known: true}
	case timeName == "bkjd" && lo > -1e4 && hi < 1e4:
		return TimeSystem{Name: "BKJD (BJD - 2454833)", Offset: 2454833, Known: true}
	case timeName == "mjd" && lo >= 3e4 && hi <= 1e5:
		return TimeSystem{Name: "MJD (JD - 2400000.5)", Offset: 2400000.5, Known: true}
	case lo >= 3e4 && hi <= 1e5:
		return TimeSystem{Name: label + " - 2400000", Offset: 2400000, Known: true}
	case lo >= 0 && hi >= 1500 && hi <= 15000: // 1999 onwards; a series in days from its own start rarely spans 1,500 d
		return TimeSystem{Name: label + " - 2450000", Offset: 2450000, Known: true}
	}
	return TimeSystem{Name: "days from an unknown zero"}
}
