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
)

// ReadLightCurve reads the light curve at path, detecting its format:
//   - a directory is a star directory (SPEC A1), read with ReadStarDir;
//   - a file starting with the FITS magic "SIMPLE  =" is a Kepler long-cadence file, read with ReadKeplerFITS
//     (so its flux is normalised by its median); so is a gzip-compressed file (.fits.gz);
//   - a file whose first non-blank character is '\' or '|' is an IPAC table, read with ReadIPAC;
//   - anything else is plain CSV, read with ReadCSV.
//
// Every reader returns cadences sorted by time (a stable sort), drops cadences whose time is not finite, keeps
// only the first of several rows with exactly the same time, and fails with ErrNoValidCadences when no cadence
// has a finite flux. Quality masks are not applied: callers use lc.DefaultQualityMask.
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
	switch detectFormat(head) {
	case formatFITS:
		return ReadKeplerFITS(path)
	case formatIPAC:
		return ReadIPAC(path)
	default:
		return ReadCSV(path)
	}
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

// finish puts a freshly parsed light curve into the form every reader returns: cadences with a non-finite time
// removed, the rest sorted by time with a stable sort, and of several cadences with exactly equal times only
// the first (in file order) kept. It fails with ErrNoValidCadences when no cadence is left with a finite flux.
// name labels errors.
func finish(c *lc.LightCurve, name string) (*lc.LightCurve, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	idx := make([]int, 0, c.Len())
	for i, t := range c.Time {
		if !math.IsNaN(t) && !math.IsInf(t, 0) {
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
		if isFinite(c.Flux[i]) {
			nValid++
		}
	}
	if out.Len() == 0 {
		return nil, fmt.Errorf("%s: %w: no cadence has a finite time; check that the file is a light curve", name, ErrEmptyFile)
	}
	if nValid == 0 {
		return nil, fmt.Errorf("%s: %w; check the flux column", name, ErrNoValidCadences)
	}
	return out, nil
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

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// RobustScatter returns the white-noise level of a flux series estimated from point-to-point differences:
// σ = 1.4826 · MAD(Δf) / √2, where Δf are the differences of consecutive finite values and MAD is the median
// absolute deviation from their median. The factor 1.4826 makes the MAD a Gaussian σ, and √2 undoes the
// doubling of variance in a difference. It is insensitive to slow trends and to a few outliers. It returns NaN
// when fewer than two finite values exist.
func RobustScatter(flux []float64) float64 {
	d := make([]float64, 0, len(flux))
	prev := math.NaN()
	for _, f := range flux {
		if !isFinite(f) {
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
