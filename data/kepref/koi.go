package kepref

import (
	"math"
	"testing"

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
