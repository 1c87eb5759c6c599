package kepref

import (
	"math"
	"path/filepath"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
)

// KOI is a DV star's row of the KOI table (its first), as a test reads it.
type KOI struct {
	KIC string // the Kepler ID, without leading zeros
	tb  testing.TB
	t   *Table
	row []string
}

// Get returns the number in column name (koi_period, koi_srad…), failing the test when it is missing.
func (k KOI) Get(name string) float64 {
	k.tb.Helper()
	v, err := k.t.Float(k.row, name)
	if err != nil {
		k.tb.Fatalf("KIC %s %s: %v", k.KIC, name, err)
	}
	return v
}

// MassMsun is the star's mass from the table's radius and log g: M/M☉ = 10^(logg − 4.438) (R/R☉)², 4.438
// being the Sun's log g.
func (k KOI) MassMsun() float64 {
	r := k.Get("koi_srad")
	return math.Pow(10, k.Get("koi_slogg")-4.438) * r * r
}

// EachDVKOI calls fn with each DV light curve (EachDV) and its star's KOI, in file order. It skips the test
// when the reference data are not available, and fails it when a light curve cannot be read or its star is
// not in the KOI table.
func EachDVKOI(tb testing.TB, fn func(k KOI, c *lc.LightCurve)) {
	tb.Helper()
	t, kois, err := KOIs()
	if err != nil {
		tb.Skipf("reference data not available: %v", err)
	}
	err = EachDV(func(kic string, c *lc.LightCurve) {
		rows := kois[kic]
		if len(rows) == 0 {
			tb.Fatalf("KIC %s is not in the KOI table", kic)
		}
		fn(KOI{KIC: kic, tb: tb, t: t, row: rows[0]}, c)
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// Kepler90KIC is Kepler-90's Kepler ID; its three long-cadence quarters (Q3–Q5) are in fits/kic011442793.
const Kepler90KIC = "11442793"

// Kepler90 returns Kepler-90's three quarters stitched (data.ReadKeplerFITS) and its KOI rows, skipping the test
// when the reference data are not available.
func Kepler90(tb testing.TB) (*lc.LightCurve, []KOI) {
	tb.Helper()
	dir, err := Dir()
	if err != nil {
		tb.Skipf("reference data not available: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fits", "kic0"+Kepler90KIC, "*.fits"))
	if len(files) != 3 {
		tb.Fatalf("want Kepler-90's three quarters, found %d", len(files))
	}
	c, err := data.ReadKeplerFITS(files...)
	if err != nil {
		tb.Fatal(err)
	}
	t, kois, err := KOIs()
	if err != nil {
		tb.Fatal(err)
	}
	var out []KOI
	for _, row := range kois[Kepler90KIC] {
		out = append(out, KOI{KIC: Kepler90KIC, tb: tb, t: t, row: row})
	}
	if len(out) == 0 {
		tb.Fatalf("Kepler-90 (KIC %s) is not in the KOI table", Kepler90KIC)
	}
	return c, out
}
