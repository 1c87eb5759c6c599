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

// TimeSystem is the time system the importer assumed for a file's times: Offset is what is added to the file's
// times to give full Julian days (0 when they are already full, or when they are days from an unknown zero),
// and Reason says why it was assumed (the header's name for the time column, the times' magnitude, or the
// caller's ImportTime).
type TimeSystem struct {
	Name   string  `json:"name"`   // e.g. "BJD", "BJD - 2450000", "BKJD (BJD - 2454833)", "days from an unknown zero"
	Offset float64 `json:"offset"` // days added to reach full JD/BJD
	Known  bool    `json:"known"`  // false: relative days, which cannot be put on a common scale with other files
	Reason string  `json:"reason"` // why this system was assumed
}

// ImportTime tells the importer a file's time system when the file does not: System names one of
// TimeSystemNames, or else OffsetSet gives the days to add (Offset) to reach full JD/BJD. The zero value
// detects the system from the header and the times.
type ImportTime struct {
	System    string
	Offset    float64
	OffsetSet bool
}

// namedSystems are the time systems the importer knows by name (upper case, as TimeSystemNames lists them),
// with the offset that takes each to full JD or BJD.
var namedSystems = []struct {
	name, label string
	offset      float64
}{
	{"BJD", "BJD", 0},
	{"JD", "JD", 0},
	{"HJD", "HJD", 0},
	{"MJD", "MJD (JD - 2400000.5)", 2400000.5},
	{"RJD", "RJD (JD - 2400000)", 2400000},
	{"BJD-2450000", "BJD - 2450000", 2450000},
	{"BKJD", "BKJD (BJD - 2454833)", 2454833},
	{"BTJD", "BTJD (BJD - 2457000)", 2457000},
}

// TimeSystemNames lists the names ImportTime.System accepts: BJD, JD, HJD (full days), MJD (JD − 2400000.5),
// RJD (JD − 2400000), BJD-2450000, BKJD (Kepler and K2: BJD − 2454833) and BTJD (TESS: BJD − 2457000).
func TimeSystemNames() []string {
	out := make([]string, len(namedSystems))
	for i, n := range namedSystems {
		out[i] = n.name
	}
	return out
}

// ErrAmbiguousTime is wrapped (with ErrBadSeries) when a file's times could be in more than one time system and
// neither its header nor the caller says which.
var ErrAmbiguousTime = errors.New("stargazer: ambiguous time system")

// timeSystemByName finds a named system (case and blanks ignored).
func timeSystemByName(name string) (TimeSystem, bool) {
	n := strings.ToUpper(strings.ReplaceAll(name, " ", ""))
	for _, s := range namedSystems {
		if n == s.name || n == strings.ReplaceAll(strings.ToUpper(s.label), " ", "") {
			return TimeSystem{Name: s.label, Offset: s.offset, Known: true}, true
		}
	}
	return TimeSystem{}, false
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
	return ParseSeriesAs(b, name, defaultInst, ImportTime{})
}

// ParseSeriesAs is ParseSeries with the file's time system given by tm when it is not the zero value (see
// detectTimeSystem for what is assumed otherwise). Times that are ambiguous, with nothing to resolve them,
// are refused with an error wrapping ErrBadSeries and ErrAmbiguousTime that says what to give.
func ParseSeriesAs(b []byte, name, defaultInst string, tm ImportTime) (*Series, error) {
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
	ts, err := resolveTimeSystem(s.Times, cols.timeLabel, tm)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadSeries, name, err)
	}
	s.Time = ts
	return s, nil
}

// columnMap is where the importer finds each quantity in a row (inst −1: no instrument column).
type columnMap struct {
	time, rv, err, inst int
	timeName            string // the time column's name, normalised (unit dropped)
	timeLabel           string // the time column's name as written, lower case without blanks (unit kept)
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
			c.timeLabel = strings.ToLower(strings.Join(strings.Fields(raw), ""))
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

// resolveTimeSystem applies the caller's time system tm, or else detects one from the header and the times.
// Full days after the offset must fall within 1800–2300 (JD 2378497–2561118), so that a wrong offset is caught.
func resolveTimeSystem(times []float64, timeLabel string, tm ImportTime) (TimeSystem, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range times {
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	var ts TimeSystem
	switch {
	case tm.System != "" && tm.OffsetSet:
		return ts, fmt.Errorf("give either a time system name or a time offset, not both")
	case tm.System != "":
		var ok bool
		if ts, ok = timeSystemByName(tm.System); !ok {
			return ts, fmt.Errorf("time system %q is not one of %s", tm.System, strings.Join(TimeSystemNames(), ", "))
		}
		ts.Reason = "named by the caller (" + tm.System + ")"
	case tm.OffsetSet:
		ts = TimeSystem{Name: fmt.Sprintf("days + %.10g", tm.Offset), Offset: tm.Offset, Known: true,
			Reason: fmt.Sprintf("offset %.10g d given by the caller", tm.Offset)}
		if tm.Offset == 0 {
			ts.Name = "JD/BJD"
		}
	default:
		var err error
		if ts, err = detectTimeSystem(lo, hi, timeLabel); err != nil || !ts.Known {
			return ts, err
		}
	}
	const jdMin, jdMax = 2378497, 2561118 // 1800-01-01 and 2300-01-01
	if lo+ts.Offset < jdMin || hi+ts.Offset > jdMax {
		return ts, fmt.Errorf("times %g to %g in %s are JD %.1f to %.1f, outside the years 1800–2300; check the time system or offset",
			lo, hi, ts.Name, lo+ts.Offset, hi+ts.Offset)
	}
	return ts, nil
}

// detectTimeSystem names the time system of times spanning [lo, hi] from the header's label for the time column
// (timeLabel: lower case, unit kept, "" without a header) and their magnitude:
//   - a label naming a system with an offset (bkjd, btjd, mjd, rjd, bjd-2450000, jd-2400000, …) is taken at its
//     word;
//   - full days (2.3–2.6 million) are BJD, or JD or HJD when the label says so;
//   - 5-digit days (30000–100000) are JD − 2400000 (or MJD when the label says mjd);
//   - 10000–15000 are BJD − 2450000 (as BKJD or BTJD they would be after 2036);
//   - times from 0 with the largest at 1000–10000 are ambiguous: BJD − 2450000 (most RV archives), BKJD
//     (BJD − 2454833, Kepler and K2, as radvel's K2 examples use) and BTJD (BJD − 2457000, TESS) all give such
//     numbers for recent data, years apart, so they are refused (ErrAmbiguousTime) with what to pass;
//   - anything else is days from an unknown zero, kept as given.
func detectTimeSystem(lo, hi float64, timeLabel string) (TimeSystem, error) {
	family := "BJD"
	switch {
	case strings.HasPrefix(timeLabel, "hjd"):
		family = "HJD"
	case strings.HasPrefix(timeLabel, "jd"):
		family = "JD"
	}
	if named, ok := systemInLabel(timeLabel); ok {
		named.Reason = fmt.Sprintf("the header names the time column %q", timeLabel)
		return named, nil
	}
	switch {
	case lo >= 2.3e6 && hi <= 2.6e6:
		return TimeSystem{Name: family, Known: true, Reason: "times of 2.3–2.6 million days are full Julian days"}, nil
	case strings.Contains(timeLabel, "mjd") && lo >= 3e4 && hi <= 1e5:
		return TimeSystem{Name: "MJD (JD - 2400000.5)", Offset: 2400000.5, Known: true,
			Reason: fmt.Sprintf("the header names the time column %q", timeLabel)}, nil
	case lo >= 3e4 && hi <= 1e5:
		return TimeSystem{Name: family + " - 2400000", Offset: 2400000, Known: true,
			Reason: "5-digit times of 30000–100000 days are JD − 2400000 (1941–2132)"}, nil
	case lo >= 0 && hi >= 1e4 && hi <= 1.5e4:
		return TimeSystem{Name: family + " - 2450000", Offset: 2450000, Known: true,
			Reason: "times up to 10000–15000 days are BJD − 2450000 (as BKJD or BTJD they would be after 2036)"}, nil
	case lo >= 0 && hi >= 1000 && hi < 1e4:
		return TimeSystem{}, fmt.Errorf("%w: times %g to %g could be BJD - 2450000, BKJD (BJD - 2454833, as Kepler, K2 and radvel's K2 examples use) or BTJD (BJD - 2457000, TESS), years apart; pass --time-system BJD-2450000, BKJD or BTJD (or --time-offset DAYS, the days to add to reach full BJD), or name the system in the time column's header (e.g. bjd-2450000, bkjd, btjd)",
			ErrAmbiguousTime, lo, hi)
	}
	return TimeSystem{Name: "days from an unknown zero", Reason: "the times are not Julian days in any known system; they are kept as given"}, nil
}

// systemInLabel finds a time system with an offset named in a header's time label (lower case, no blanks):
// bkjd, btjd, mjd, rjd, or a family (bjd, jd, hjd) minus 2450000 or 2400000.
func systemInLabel(label string) (TimeSystem, bool) {
	for _, k := range []struct{ token, name string }{{"bkjd", "BKJD"}, {"btjd", "BTJD"}, {"rjd", "RJD"}} {
		if strings.Contains(label, k.token) {
			return timeSystemByName(k.name)
		}
	}
	for _, off := range []string{"2450000", "2400000"} {
		i := strings.Index(label, "-"+off)
		if i < 0 {
			continue
		}
		family := "BJD"
		switch {
		case strings.Contains(label[:i], "hjd"):
			family = "HJD"
		case strings.Contains(label[:i], "bjd"):
		case strings.Contains(label[:i], "jd"):
			family = "JD"
		}
		v, _ := strconv.ParseFloat(off, 64)
		return TimeSystem{Name: family + " - " + off, Offset: v, Known: true}, true
	}
	return TimeSystem{}, false
}
