package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"transitbench/engine/lc"
	"transitbench/engine/stat"
)

// Errors the readers wrap; test for them with errors.Is.
var (
	// ErrEmptyFile is returned for a file with no bytes or no data rows.
	ErrEmptyFile = errors.New("data: file holds no data")
	// ErrNoValidCadences is returned when no cadence has a finite time and a finite flux.
	ErrNoValidCadences = errors.New("data: no valid cadences (every flux value is NaN or missing)")
	// ErrFormat is returned when a file's content does not follow its format.
	ErrFormat = errors.New("data: malformed light-curve file")
	// ErrTimeUnits is returned when the times are not BKJD days: seconds, JD, or numbers no clock gives.
	ErrTimeUnits = errors.New("data: times are not BKJD days")
	// ErrFluxScale is returned when the flux is not a relative flux around 1 (standardised or differenced).
	ErrFluxScale = errors.New("data: flux is not a relative flux")
)

// Bounds of a plausible BKJD time axis (days). Kepler's mission spans BKJD ≈ 120–1590 and any survey a
// light curve comes from lasts less than a century, so:
//   - MaxSpanDays = 10⁵ d (274 yr): a longer span is seconds (a one-year light curve in seconds spans 3·10⁷)
//     or a mix of time systems;
//   - MaxAbsTimeDays = 10⁷ d (27,000 yr from BKJD 0): a larger |time| is no day count of this era;
//   - a first time within JDLoDays–JDHiDays (JD 2,300,000–2,700,000, years 1585–2680) is a Julian date, which
//     is refused rather than shifted, so that the t0 a search reports is in the time system of the file it
//     was given: subtract BKJDOffsetDays (BKJD = BJD − 2454833) before reading.
const (
	MaxSpanDays    = 1e5
	MaxAbsTimeDays = 1e7
	JDLoDays       = 2.3e6
	JDHiDays       = 2.7e6
	BKJDOffsetDays = 2454833.0
)

// MaxNonPositiveFluxShare is the share of finite flux values at or below zero beyond which a flux is refused
// as not relative: a relative flux is ≈ 1 and only a few faint, badly subtracted cadences dip below 0.
const MaxNonPositiveFluxShare = 0.1

// ReadLightCurve reads the light curve at path, detecting its format:
//   - a directory is a star directory (SPEC A1), read with ReadStarDir;
//   - a file starting with the FITS magic "SIMPLE  =" is a Kepler long-cadence file, read with ReadKeplerFITS
//     (so its flux is normalised by its median); so is a gzip-compressed file (.fits.gz) and any file named
//     *.fits, *.fit or *.fits.gz, whatever it holds (a damaged one fails as "not a FITS file");
//   - a file whose first non-blank character is '\' or '|' is an IPAC table, read with ReadIPAC;
//   - anything else is plain CSV, read with ReadCSV.
//
// Every reader returns cadences sorted by time (a stable sort), drops cadences whose time is NaN (the archive's
// gap marker), keeps only the first of several rows with exactly the same time, and fails with
// ErrNoValidCadences when no cadence has a finite flux. Quality masks are not applied: callers use
// lc.DefaultQualityMask.
//
// Times must be BKJD days (SPEC A1); every reader refuses, with ErrTimeUnits and a message saying what to
// convert, an infinite time, a time beyond ±MaxAbsTimeDays, a span above MaxSpanDays (seconds) and Julian
// dates (first time in JDLoDays–JDHiDays: subtract 2454833; JD is refused, not converted). The CSV and IPAC
// readers also refuse, with ErrFluxScale, a flux that is not relative: a median of the finite flux ≤ 0 or more
// than MaxNonPositiveFluxShare of it ≤ 0 (standardised or differenced series). A positive flux far from 1 is
// read as given (Kepler FITS files are normalised by their median; 'transitbench bls' normalises any other).
func ReadLightCurve(path string) (*lc.LightCurve, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("data: cannot read light curve: %w", err)
	}
	if fi.IsDir() {
		c, _, err := ReadStarDir(path)
		return c, err
	}
	head, err := readHead(path, 512)
	if err != nil {
		return nil, err
	}
	format := detectFormat(head)
	if hasFITSName(path) {
		format = formatFITS // so that a damaged .fits file is reported as one, not parsed as CSV
	}
	switch format {
	case formatFITS:
		return ReadKeplerFITS(path)
	case formatIPAC:
		return ReadIPAC(path)
	default:
		return ReadCSV(path)
	}
}

// hasFITSName reports whether path is named like a FITS file.
func hasFITSName(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".fits") || strings.HasSuffix(p, ".fit") || strings.HasSuffix(p, ".fits.gz")
}

type fileFormat int

const (
	formatCSV fileFormat = iota
	formatFITS
	formatIPAC
)

// detectFormat classifies a file by its first bytes.
func detectFormat(head []byte) fileFormat {
	if bytes.HasPrefix(head, []byte("SIMPLE  =")) || bytes.HasPrefix(head, gzipMagic) {
		return formatFITS
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) > 0 && (trimmed[0] == '\\' || trimmed[0] == '|') {
		return formatIPAC
	}
	return formatCSV
}

// readHead returns up to n leading bytes of the file at path.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: cannot read light curve: %w", err)
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("data: cannot read light curve %s: %w", path, err)
	}
	if k == 0 {
		return nil, fmt.Errorf("%s: %w: the file is empty; give a Kepler FITS, IPAC, CSV file or a star directory", path, ErrEmptyFile)
	}
	return buf[:k], nil
}

// finish puts a freshly parsed light curve into the form every reader returns: cadences with a NaN time
// removed, a time axis that is not BKJD days refused (checkTimes), the rest sorted by time with a stable sort, and of several cadences with exactly equal times only
// the first (in file order) kept. It fails with ErrNoValidCadences when no cadence is left with a finite flux.
// name labels errors.
func finish(c *lc.LightCurve, name string) (*lc.LightCurve, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	idx := make([]int, 0, c.Len())
	for i, t := range c.Time {
		if !math.IsNaN(t) { // NaN marks a gap; an infinite time is kept for checkTimes to refuse
			idx = append(idx, i)
		}
	}
	if !sort.SliceIsSorted(idx, func(a, b int) bool { return c.Time[idx[a]] < c.Time[idx[b]] }) {
		sort.SliceStable(idx, func(a, b int) bool { return c.Time[idx[a]] < c.Time[idx[b]] })
	}
	out := &lc.LightCurve{
		Time:    make([]float64, 0, len(idx)),
		Flux:    make([]float64, 0, len(idx)),
		FluxErr: make([]float64, 0, len(idx)),
		Quality: make([]int32, 0, len(idx)),
	}
	nValid := 0
	for k, i := range idx {
		if k > 0 && c.Time[i] == c.Time[idx[k-1]] {
			continue
		}
		out.Time = append(out.Time, c.Time[i])
		out.Flux = append(out.Flux, c.Flux[i])
		out.FluxErr = append(out.FluxErr, c.FluxErr[i])
		out.Quality = append(out.Quality, c.Quality[i])
		if stat.Finite(c.Flux[i]) {
			nValid++
		}
	}
	if out.Len() == 0 {
		return nil, fmt.Errorf("%s: %w: no cadence has a finite time; check that the file is a light curve", name, ErrEmptyFile)
	}
	if err := checkTimes(out.Time, name); err != nil {
		return nil, err
	}
	if nValid == 0 {
		return nil, fmt.Errorf("%s: %w; check the flux column", name, ErrNoValidCadences)
	}
	return out, nil
}

// checkTimes refuses a sorted time axis (NaN removed) that is not BKJD days; see ReadLightCurve.
func checkTimes(t []float64, name string) error {
	first, last := t[0], t[len(t)-1]
	span := last - first
	const fix = "BKJD days expected (BKJD = BJD − 2454833); convert the time column"
	switch {
	case math.IsInf(first, 0) || math.IsInf(last, 0):
		return fmt.Errorf("%s: %w: a time is infinite (first %g, last %g); %s", name, ErrTimeUnits, first, last, fix)
	case span > MaxSpanDays:
		return fmt.Errorf("%s: %w: times span %.4g (%.4g to %.4g), above %g d: times look like seconds or JD; %s",
			name, ErrTimeUnits, span, first, last, float64(MaxSpanDays), fix)
	case first >= JDLoDays && last <= JDHiDays:
		return fmt.Errorf("%s: %w: times look like JD (first %.4f): BKJD days expected; subtract %.0f (BKJD = BJD − 2454833)",
			name, ErrTimeUnits, first, BKJDOffsetDays)
	case math.Abs(first) > MaxAbsTimeDays || math.Abs(last) > MaxAbsTimeDays:
		return fmt.Errorf("%s: %w: times run from %.4g to %.4g, beyond ±%g d: times look like seconds or JD; %s",
			name, ErrTimeUnits, first, last, float64(MaxAbsTimeDays), fix)
	}
	return nil
}

// checkFlux refuses a flux that is not relative (see ReadLightCurve): its finite values have a median ≤ 0 or
// more than MaxNonPositiveFluxShare of them are ≤ 0.
func checkFlux(c *lc.LightCurve, name string) error {
	v := make([]float64, 0, c.Len())
	nonPos := 0
	for _, f := range c.Flux {
		if stat.Finite(f) {
			v = append(v, f)
			if f <= 0 {
				nonPos++
			}
		}
	}
	if len(v) == 0 {
		return nil // finish has already refused a curve without a finite flux
	}
	med := stat.Median(v)
	share := float64(nonPos) / float64(len(v))
	if med <= 0 || share > MaxNonPositiveFluxShare {
		return fmt.Errorf("%s: %w: flux looks standardised or differenced (median %.4g, %.0f%% of values ≤ 0); relative flux around 1 expected: add 1 to a fractional flux (f/f̄ − 1), or divide a raw flux by its median",
			name, ErrFluxScale, med, 100*share)
	}
	return nil
}

// lines iterates over the lines of a text file held in memory, counting them from 1. A line excludes its
// "\n" and a trailing "\r".
type lines struct {
	text string
	no   int
}

// next returns the next line; ok is false at the end of the text. A line longer than maxLineBytes is an
// error, since no light-curve format has one.
func (l *lines) next() (line string, ok bool, err error) {
	if l.text == "" {
		return "", false, nil
	}
	l.no++
	i := strings.IndexByte(l.text, '\n')
	if i < 0 {
		line, l.text = l.text, ""
	} else {
		line, l.text = l.text[:i], l.text[i+1:]
	}
	if len(line) > maxLineBytes {
		return "", false, fmt.Errorf("line %d is longer than %d bytes", l.no, maxLineBytes)
	}
	return strings.TrimSuffix(line, "\r"), true, nil
}

// readText reads a whole text file; what names the format for the error.
func readText(path, what string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("data: cannot read %s: %w", what, err)
	}
	return string(b), nil
}

// newCurve returns an empty light curve with room for n cadences.
func newCurve(n int) *lc.LightCurve {
	return &lc.LightCurve{
		Time:    make([]float64, 0, n),
		Flux:    make([]float64, 0, n),
		FluxErr: make([]float64, 0, n),
		Quality: make([]int32, 0, n),
	}
}

// maxQuotedBytes bounds the text of a file quoted in an error (a header line, a field): enough to recognise it,
// never a kilobyte of binary.
const maxQuotedBytes = 80

// clip cuts text taken from a file to at most maxQuotedBytes bytes on a UTF-8 boundary, with "…" appended when
// cut, for quoting with %q in an error.
func clip(s string) string {
	if len(s) <= maxQuotedBytes {
		return s
	}
	cut := maxQuotedBytes
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// RobustScatter returns the white-noise level of a flux series estimated from point-to-point differences:
// σ = 1.4826 · MAD(Δf) / √2, where Δf are the differences of consecutive finite values and MAD is the median
// absolute deviation from their median. The factor 1.4826 makes the MAD a Gaussian σ, and √2 undoes the
// doubling of variance in a difference. It is insensitive to slow trends and to a few outliers. It returns NaN
// when fewer than two finite values exist.
func RobustScatter(flux []float64) float64 {
	d := make([]float64, 0, len(flux))
	prev := math.NaN()
	for _, f := range flux {
		if !stat.Finite(f) {
			continue
		}
		if !math.IsNaN(prev) {
			d = append(d, f-prev)
		}
		prev = f
	}
	if len(d) == 0 {
		return math.NaN()
	}
	med := stat.Median(d)
	for i := range d {
		d[i] = math.Abs(d[i] - med)
	}
	return stat.MADToSigma4 * stat.Median(d) / math.Sqrt2
}

// lineErr returns the ErrFormat error for line number line of the text light curve name.
func lineErr(name string, line int, format string, a ...any) error {
	return fmt.Errorf("%s:%d: %w: %s", name, line, ErrFormat, fmt.Sprintf(format, a...))
}

// finishText sorts and checks a light curve parsed from text (finish, checkFlux) and, when fill is set, gives
// every cadence the robust point-to-point scatter of the flux as its FluxErr (fillErr).
func finishText(c *lc.LightCurve, name string, fill bool) (*lc.LightCurve, error) {
	out, err := finish(c, name)
	if err != nil {
		return nil, err
	}
	if err := checkFlux(out, name); err != nil {
		return nil, err
	}
	if fill {
		fillErr(out)
	}
	return out, nil
}
