package data

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/astrogo/fitsio"

	"transitbench/engine/lc"
	"transitbench/engine/stat"
)

// KeplerHeader holds the facts of one Kepler light-curve file that a caller needs beside the light curve:
// the target (KEPLERID), the quarter and season, the stellar parameters of the primary header (NaN when the
// header leaves them blank: KEPMAG in mag, TEFF in K, LOGG in cgs dex, RADIUS in solar radii), the number of
// rows of the LIGHTCURVE table and how many of them were dropped for a NaN time, and MedianFlux, the PDCSAP
// flux (e⁻/s) the quarter was divided by when normalised.
type KeplerHeader struct {
	KeplerID   int
	Quarter    int
	Season     int
	Kepmag     float64
	Teff       float64
	Logg       float64
	RadiusRsun float64
	Rows       int
	NaNTimes   int
	MedianFlux float64
}

const fitsBlock = 2880

// ReadKeplerFITS reads one or more Kepler long-cadence files (kplr*_llc.fits), normalises each by the median
// of its valid PDCSAP flux (flux and flux_err divided by it; see ReadKeplerFITSFile for "valid"), stitches
// them and returns the cadences sorted by time, as ReadLightCurve describes. The quality column is kept; apply
// lc.DefaultQualityMask to drop flagged cadences. All files must belong to one star (the same KEPLERID).
func ReadKeplerFITS(paths ...string) (*lc.LightCurve, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("data: ReadKeplerFITS needs at least one file")
	}
	all := &lc.LightCurve{}
	firstID := 0
	for i, p := range paths {
		c, h, err := ReadKeplerFITSFile(p)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			firstID = h.KeplerID
		} else if h.KeplerID != firstID {
			return nil, fmt.Errorf("data: %s is KIC %d but %s is KIC %d; stitch the quarters of one star only",
				paths[0], firstID, p, h.KeplerID)
		}
		for i := range c.Flux {
			c.Flux[i] /= h.MedianFlux
			c.FluxErr[i] /= h.MedianFlux
		}
		all.Time = append(all.Time, c.Time...)
		all.Flux = append(all.Flux, c.Flux...)
		all.FluxErr = append(all.FluxErr, c.FluxErr...)
		all.Quality = append(all.Quality, c.Quality...)
	}
	name := paths[0]
	if len(paths) > 1 {
		name = fmt.Sprintf("%s and %d more", paths[0], len(paths)-1)
	}
	return finish(all, name)
}

// ReadKeplerFITSFile reads one Kepler long-cadence file (plain or gzip-compressed): the LIGHTCURVE extension's
// TIME (BKJD days), PDCSAP_FLUX and PDCSAP_FLUX_ERR (e⁻/s, not normalised) and SAP_QUALITY, and the header facts. Rows with a
// NaN time are dropped (counted in NaNTimes); NaN flux is kept as NaN. The result is sorted as ReadLightCurve
// describes. MedianFlux is the median PDCSAP flux over valid cadences (finite time and flux, no bit of
// lc.DefaultQualityMask set), or over all finite-flux cadences when none is valid.
//
// A damaged file (truncated, a broken header, missing columns or columns of the wrong type) gives an error
// wrapping ErrFormat and naming the file; the library that decodes FITS is kept from panicking on it. The
// data part carries no usable checksum in archive files, so flipped bytes inside the table go unnoticed.
func ReadKeplerFITSFile(path string) (*lc.LightCurve, KeplerHeader, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, KeplerHeader{}, fmt.Errorf("data: cannot read Kepler FITS file: %w", err)
	}
	if bytes.HasPrefix(raw, gzipMagic) {
		if raw, err = gunzip(raw); err != nil {
			return nil, KeplerHeader{}, fmt.Errorf("%s: %w: the file is gzip-compressed but does not decompress (%v); download it again",
				path, ErrFormat, err)
		}
	}
	return decodeKeplerFITS(raw, path)
}

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// maxFITSBytes bounds a decompressed FITS file; a Kepler long-cadence quarter is about 0.5 MB.
const maxFITSBytes = 1 << 30

// gunzip decompresses a gzip stream of at most maxFITSBytes.
func gunzip(raw []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxFITSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxFITSBytes {
		return nil, fmt.Errorf("more than %d bytes once decompressed", maxFITSBytes)
	}
	return out, nil
}

// decodeKeplerFITS decodes the bytes of a Kepler light-curve file; path labels errors.
func decodeKeplerFITS(raw []byte, path string) (c *lc.LightCurve, h KeplerHeader, err error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w: %s; the file is not a readable Kepler light curve (download it again from MAST)",
			path, ErrFormat, printable(fmt.Sprintf(format, a...), maxDetailBytes))
	}
	if len(raw) == 0 {
		return nil, h, fmt.Errorf("%s: %w: the file is empty; download it again from MAST", path, ErrEmptyFile)
	}
	if !bytes.HasPrefix(raw, []byte("SIMPLE  =")) {
		return nil, h, fmt.Errorf("%s: %w: not a FITS file (it starts with %q, not the FITS magic 'SIMPLE  ='); give a Kepler kplr*_llc.fits file",
			path, ErrFormat, printable(string(raw[:min(len(raw), 80)]), 80))
	}
	end, err := fitsLayout(raw, "LIGHTCURVE")
	if err != nil {
		return nil, h, bad("%v", err)
	}
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, bad("the FITS decoder failed: %v", r)
		}
	}()
	f, err := fitsio.Open(bytes.NewReader(raw[:end]))
	if err != nil {
		return nil, h, bad("%v", err)
	}
	defer f.Close()
	hdus := f.HDUs()
	if len(hdus) < 2 {
		return nil, h, bad("no LIGHTCURVE extension")
	}
	prim := hdus[0].Header()
	h.KeplerID = int(cardFloat(prim, "KEPLERID"))
	h.Quarter = int(cardFloat(prim, "QUARTER"))
	h.Season = int(cardFloat(prim, "SEASON"))
	h.Kepmag = cardFloat(prim, "KEPMAG")
	h.Teff = cardFloat(prim, "TEFF")
	h.Logg = cardFloat(prim, "LOGG")
	h.RadiusRsun = cardFloat(prim, "RADIUS")
	if math.IsNaN(cardFloat(prim, "KEPLERID")) {
		return nil, h, bad("the primary header has no KEPLERID")
	}
	tbl, ok := f.Get("LIGHTCURVE").(*fitsio.Table)
	if !ok {
		return nil, h, bad("the LIGHTCURVE extension is not a binary table")
	}
	h.Rows = int(tbl.NumRows())
	cols, err := readColumns(tbl, "TIME", "PDCSAP_FLUX", "PDCSAP_FLUX_ERR", "SAP_QUALITY")
	if err != nil {
		return nil, h, bad("%v", err)
	}
	c = &lc.LightCurve{Time: cols[0], Flux: cols[1], FluxErr: cols[2], Quality: make([]int32, h.Rows)}
	for i, q := range cols[3] {
		c.Quality[i] = int32(q)
	}
	for _, t := range c.Time {
		if math.IsNaN(t) {
			h.NaNTimes++
		}
	}
	c, err = finish(c, path)
	if err != nil {
		return nil, h, err
	}
	h.MedianFlux = medianFlux(c)
	if !(h.MedianFlux > 0) {
		return nil, h, bad("the median PDCSAP flux is %g, not positive", h.MedianFlux)
	}
	return c, h, nil
}

// maxDetailBytes bounds the part of a FITS error that comes from the file or the decoder: a damaged header
// can make the decoder list every keyword it saw (kilobytes of escaped bytes), which says nothing more.
const maxDetailBytes = 160

// printable returns s with every byte outside printable ASCII replaced by '.', cut to at most n bytes with
// "…" appended when cut, so an error built from a file's bytes stays one short readable line.
func printable(s string, n int) string {
	b := make([]byte, 0, min(len(s), n))
	for i := 0; i < len(s) && len(b) < n; i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		b = append(b, c)
	}
	if len(s) > n {
		return string(b) + "…"
	}
	return string(b)
}

// medianFlux is the median flux over valid cadences, or over finite-flux cadences when none is valid.
func medianFlux(c *lc.LightCurve) float64 {
	v := make([]float64, 0, c.Len())
	for i := range c.Flux {
		if c.Good(i, lc.DefaultQualityMask) {
			v = append(v, c.Flux[i])
		}
	}
	if len(v) == 0 {
		for _, f := range c.Flux {
			if stat.Finite(f) {
				v = append(v, f)
			}
		}
	}
	return stat.Median(v)
}

// cardFloat returns a numeric header card's value, or NaN when the card is missing or not a number.
func cardFloat(hdr *fitsio.Header, name string) float64 {
	card := hdr.Get(name)
	if card == nil {
		return math.NaN()
	}
	switch v := card.Value.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return math.NaN()
}

// readColumns reads whole numeric columns of a binary table as float64, checking that each exists and is a
// scalar of a numeric type.
func readColumns(tbl *fitsio.Table, names ...string) ([][]float64, error) {
	fields := make([]reflect.StructField, len(names))
	for i, n := range names {
		k := tbl.Index(n)
		if k < 0 {
			return nil, fmt.Errorf("the LIGHTCURVE table has no %s column", n)
		}
		typ := tbl.Col(k).Type()
		switch typ.Kind() {
		case reflect.Float32, reflect.Float64, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint8:
		default:
			return nil, fmt.Errorf("column %s has type %v, want a number", n, typ)
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: typ, Tag: reflect.StructTag(`fits:"` + n + `"`)}
	}
	rowType := reflect.StructOf(fields)
	nrows := tbl.NumRows()
	out := make([][]float64, len(names))
	for i := range out {
		out[i] = make([]float64, 0, nrows)
	}
	rows, err := tbl.Read(0, nrows)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	row := reflect.New(rowType)
	for rows.Next() {
		if err := rows.Scan(row.Interface()); err != nil {
			return nil, err
		}
		v := row.Elem()
		for i := range names {
			f := v.Field(i)
			switch {
			case f.CanFloat():
				out[i] = append(out[i], f.Float())
			case f.CanInt():
				out[i] = append(out[i], float64(f.Int()))
			default:
				out[i] = append(out[i], float64(f.Uint()))
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// fitsLayout walks the header-data units of a FITS file held in raw and returns the byte offset where the HDU
// named want (EXTNAME) ends. It checks what the decoder takes on trust: every header is complete and ends with
// END, and every data part (|BITPIX|/8 · GCOUNT · (PCOUNT + NAXIS1·…·NAXISn) bytes, padded to 2880) lies
// inside the file. It reads at most what it needs, so damage after the wanted HDU does not matter.
func fitsLayout(raw []byte, want string) (int, error) {
	off := 0
	for hdu := 0; off < len(raw); hdu++ {
		cards := map[string]string{}
		ended := false
		for !ended {
			if off+fitsBlock > len(raw) {
				return 0, fmt.Errorf("truncated: header %d ends after %d bytes, in the middle of a 2880-byte block", hdu, len(raw))
			}
			block := raw[off : off+fitsBlock]
			off += fitsBlock
			for i := 0; i < fitsBlock; i += 80 {
				card := block[i : i+80]
				key := strings.TrimSpace(string(card[:8]))
				if key == "END" {
					ended = true
					break
				}
				if string(card[8:10]) == "= " {
					cards[key] = cardValue(string(card[10:]))
				}
			}
		}
		if hdu == 0 && cards["SIMPLE"] != "T" {
			return 0, fmt.Errorf("the primary header does not say SIMPLE = T")
		}
		size, err := fitsDataSize(cards)
		if err != nil {
			return 0, fmt.Errorf("header %d: %v", hdu, err)
		}
		if v, ok := cards["TFIELDS"]; ok {
			// The decoder allocates per field before reading any; the FITS standard allows at most 999.
			if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 999 {
				return 0, fmt.Errorf("header %d: card TFIELDS = %q is not a field count between 0 and 999", hdu, v)
			}
		}
		padded := (size + fitsBlock - 1) / fitsBlock * fitsBlock
		if padded > int64(len(raw)-off) {
			return 0, fmt.Errorf("truncated: HDU %d needs %d data bytes but only %d remain", hdu, size, len(raw)-off)
		}
		off += int(padded)
		if cards["EXTNAME"] == want {
			return off, nil
		}
	}
	return 0, fmt.Errorf("no %s extension in the file's %d bytes (it may be truncated)", want, len(raw))
}

// cardValue returns the value of a header card from the text after "= ": a quoted string without its quotes
// and trailing blanks (a doubled quote stands for one), or the text before a '/' comment, trimmed.
func cardValue(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "'") {
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[:j]
		}
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			break
		}
		b.WriteByte(s[i])
	}
	return strings.TrimRight(b.String(), " ")
}

// fitsDataSize is the byte size of an HDU's data part from its header cards.
func fitsDataSize(cards map[string]string) (int64, error) {
	geti := func(k string, def int64) (int64, error) {
		s, ok := cards[k]
		if !ok {
			return def, nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 && k != "BITPIX" {
			return 0, fmt.Errorf("card %s = %q is not a valid integer", k, s)
		}
		return v, nil
	}
	bitpix, err := geti("BITPIX", -1)
	if err != nil {
		return 0, err
	}
	switch bitpix {
	case 8, 16, 32, 64, -32, -64:
	default:
		return 0, fmt.Errorf("card BITPIX = %d is not a FITS pixel size", bitpix)
	}
	naxis, err := geti("NAXIS", -1)
	if err != nil || naxis < 0 || naxis > 999 {
		return 0, fmt.Errorf("card NAXIS is missing or invalid")
	}
	if naxis == 0 {
		return 0, nil
	}
	const limit = 1 << 40 // far beyond any light curve; guards the products below against overflow
	n := int64(1)
	for i := int64(1); i <= naxis; i++ {
		v, err := geti(fmt.Sprintf("NAXIS%d", i), -1)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("card NAXIS%d is missing or invalid", i)
		}
		if v > 0 && n > limit/v {
			return 0, fmt.Errorf("the data size NAXIS1·…·NAXIS%d is implausibly large", naxis)
		}
		n *= v
	}
	pcount, err := geti("PCOUNT", 0)
	if err != nil {
		return 0, err
	}
	gcount, err := geti("GCOUNT", 1)
	if err != nil {
		return 0, err
	}
	if pcount > limit || gcount > limit || gcount > 0 && (n+pcount) > limit/gcount {
		return 0, fmt.Errorf("the data size is implausibly large")
	}
	b := bitpix
	if b < 0 {
		b = -b
	}
	return b / 8 * gcount * (n + pcount), nil
}
