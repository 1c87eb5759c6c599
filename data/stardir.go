package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"transitbench/engine/lc"
)

// File names inside a star directory (SPEC A1).
const (
	LightCurveFile = "lightcurve.csv"
	StarFile       = "star.json"
)

// maxStarJSONBytes bounds star.json; the file holds a dozen numbers (≈ 300 bytes).
const maxStarJSONBytes = 1 << 20

// ReadStarDir reads a star directory (SPEC A1): lightcurve.csv through ReadCSV (times and flux checked as
// ReadLightCurve describes) and star.json, which must be a JSON object of at most 1 MiB whose time_system, when
// given, is "BKJD" and whose cadence_days, radius_rsun, mass_msun and cdpp_ppm values are not negative.
func ReadStarDir(dir string) (*lc.LightCurve, *Star, error) {
	c, err := ReadCSV(filepath.Join(dir, LightCurveFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("data: %s is not a star directory: it has no %s", dir, LightCurveFile)
		}
		return nil, nil, err
	}
	path := filepath.Join(dir, StarFile)
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxStarJSONBytes {
		return nil, nil, fmt.Errorf("%s: %w: %d bytes, more than %d; star.json holds a dozen numbers", path, ErrFormat, fi.Size(), maxStarJSONBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("data: %s is not a star directory: it has no %s", dir, StarFile)
		}
		return nil, nil, fmt.Errorf("data: cannot read star description: %w", err)
	}
	s, err := parseStar(b, path)
	if err != nil {
		return nil, nil, err
	}
	return c, s, nil
}

// parseStar decodes and checks star.json's bytes; path labels errors.
func parseStar(b []byte, path string) (*Star, error) {
	var s Star
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w: %v; it must be a JSON object as SPEC A1 describes", path, ErrFormat, err)
	}
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%s: %w: %s = %v; %s", path, ErrFormat, field, v, want)
	}
	if s.TimeSystem != "" && s.TimeSystem != "BKJD" {
		return nil, bad("time_system", fmt.Sprintf("%q", clip(s.TimeSystem)), `lightcurve.csv times must be BKJD days and time_system "BKJD"`)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"cadence_days", s.CadenceDays}, {"radius_rsun", s.RadiusRsun}, {"mass_msun", s.MassMsun}} {
		if f.v < 0 {
			return nil, bad(f.name, f.v, "give a positive number, or 0 when unknown")
		}
	}
	for k, v := range s.CDPPppm {
		if v < 0 {
			return nil, bad("cdpp_ppm."+k, v, "give a positive number of ppm")
		}
	}
	return &s, nil
}

// WriteStarDir writes a star directory (SPEC A1) at dir, creating it when needed: lightcurve.csv as AppendCSV
// formats it and star.json as JSON indented by two spaces with a final newline. Existing files are replaced.
// The bytes written are a pure function of (c, s), so data-set fingerprints can hash them. The light curve is
// written as given: no sorting or masking.
func WriteStarDir(dir string, c *lc.LightCurve, s *Star) error {
	if c == nil || s == nil {
		return fmt.Errorf("data: WriteStarDir %s: light curve and star must both be given", dir)
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("data: WriteStarDir %s: %w", dir, err)
	}
	js, err := encodeStar(s)
	if err != nil {
		return fmt.Errorf("data: WriteStarDir %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("data: cannot create star directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, LightCurveFile), encodeCSV(c), 0o644); err != nil {
		return fmt.Errorf("data: cannot write star directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, StarFile), js, 0o644); err != nil {
		return fmt.Errorf("data: cannot write star directory: %w", err)
	}
	return nil
}

// encodeStar returns star.json's bytes. encoding/json sorts map keys, so the output is deterministic.
func encodeStar(s *Star) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// EncodeStar returns the bytes WriteStarDir writes for star.json.
func EncodeStar(s *Star) ([]byte, error) { return encodeStar(s) }

// EncodeStarDir returns the exact bytes WriteStarDir would write for lightcurve.csv and star.json, for callers
// that hash or archive a star without touching the disk.
func EncodeStarDir(c *lc.LightCurve, s *Star) (csv, star []byte, err error) {
	return AppendStarDir(csvBuffer(c), c, s)
}

// AppendStarDir is EncodeStarDir with lightcurve.csv appended to buf, so that a caller making many stars can
// reuse one buffer (a year's CSV is about a megabyte); csv is buf extended, also when err is not nil.
func AppendStarDir(buf []byte, c *lc.LightCurve, s *Star) (csv, star []byte, err error) {
	if err := c.Validate(); err != nil {
		return buf, nil, err
	}
	star, err = encodeStar(s)
	if err != nil {
		return buf, nil, err
	}
	return AppendCSV(buf, c), star, nil
}
