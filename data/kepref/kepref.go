// Package kepref reads the real Kepler reference data the tests compare against: the tables and the
// whole-mission DV light curves of ../shared/data/kepler beside the module root (see ../shared/data/README.md).
// It is for tests; nothing in the benchmark's own path reads these files.
package kepref

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"transitbench/data"
	"transitbench/engine/lc"
)

// Dir returns ../shared/data/kepler beside the module root (the directory holding go.mod above the working
// directory), or an error saying it is not there.
func Dir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("kepref: no go.mod above the working directory")
		}
		dir = parent
	}
	k := filepath.Join(dir, "..", "shared", "data", "kepler")
	if _, err := os.Stat(k); err != nil {
		return "", fmt.Errorf("kepref: the shared Kepler data are not here: %w", err)
	}
	return k, nil
}

// Table is a CSV table whose lines starting with '#' are comments: the column numbers of its header and its rows.
type Table struct {
	Col  map[string]int
	Rows [][]string
}

// ReadTable reads the CSV table at path (relative paths are taken in Dir: "tables/koi_cumulative.csv").
func ReadTable(path string) (*Table, error) {
	if !filepath.IsAbs(path) {
		dir, err := Dir()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("kepref: %s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("kepref: %s has no header line", path)
	}
	t := &Table{Col: map[string]int{}, Rows: rows[1:]}
	for i, name := range rows[0] {
		t.Col[name] = i
	}
	return t, nil
}

// Float returns the number in column name of row, or an error when the column or the number is missing.
func (t *Table) Float(row []string, name string) (float64, error) {
	i, ok := t.Col[name]
	if !ok || i >= len(row) {
		return 0, fmt.Errorf("kepref: no column %s", name)
	}
	return strconv.ParseFloat(row[i], 64)
}

// KOIs reads the cumulative KOI table (tables/koi_cumulative.csv) and returns its rows by Kepler ID (without
// leading zeros), in file order.
func KOIs() (*Table, map[string][][]string, error) {
	t, err := ReadTable(filepath.Join("tables", "koi_cumulative.csv"))
	if err != nil {
		return nil, nil, err
	}
	byKIC := map[string][][]string{}
	for _, row := range t.Rows {
		id := row[t.Col["kepid"]]
		byKIC[id] = append(byKIC[id], row)
	}
	return t, byKIC, nil
}

// DVFiles returns the whole-mission DV light curves (dv/KIC*.tbl), which must be five.
func DVFiles() ([]string, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "dv", "KIC*.tbl"))
	if err == nil && len(files) != 5 {
		err = fmt.Errorf("kepref: found %d DV light curves in %s, want 5", len(files), dir)
	}
	return files, err
}

// KIC returns the Kepler ID, without leading zeros, of a DV light curve's path (dv/KIC008359498.tbl: 8359498).
func KIC(path string) string {
	return strings.TrimLeft(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "KIC"), ".tbl"), "0")
}

// EachDV reads the five DV light curves (DVFiles) with data.ReadLightCurve and calls fn with each one's Kepler
// ID (KIC) and light curve, in file order. It stops at the first file it cannot read.
func EachDV(fn func(kic string, c *lc.LightCurve)) error {
	files, err := DVFiles()
	if err != nil {
		return err
	}
	for _, path := range files {
		c, err := data.ReadLightCurve(path)
		if err != nil {
			return err
		}
		fn(KIC(path), c)
	}
	return nil
}

// Window returns the cadences of c with time in [lo, hi), in order: the real-data tests cut one year (BKJD
// 170–540) of a whole-mission light curve with it.
func Window(c *lc.LightCurve, lo, hi float64) *lc.LightCurve {
	out := &lc.LightCurve{}
	for i, t := range c.Time {
		if t >= lo && t < hi {
			out.Time = append(out.Time, t)
			out.Flux = append(out.Flux, c.Flux[i])
			out.FluxErr = append(out.FluxErr, c.FluxErr[i])
			out.Quality = append(out.Quality, c.Quality[i])
		}
	}
	return out
}
