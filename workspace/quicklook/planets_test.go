package quicklook

import (
	"math"
	"path/filepath"
	"testing"

	"transitbench/data"
	"transitbench/data/kepref"
)

// TestPlanetsKepler90 analyses Kepler-90's quarters 3–5 as the star view does and asks for the planets one
// after another: the deep few-transit events of the outer planets are masked first (Single), then Kepler-90 d
// (59.74 d) must come out as a planet, with a fitted T14 near the catalogue's 8.0 h, and the next planet after
// masking it is Kepler-90 c (8.72 d), its T14 fitted with the others masked (catalogue 3.75 h).
func TestPlanetsKepler90(t *testing.T) {
	dir, err := kepref.Dir()
	if err != nil {
		t.Skipf("reference data not available: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "fits", "kic011442793", "*.fits"))
	c, err := data.ReadKeplerFITS(files...)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyse(c, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	found, err := Planets(a, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	var d *int
	for i, p := range found {
		t.Logf("P %8.4f d  SNR %6.1f  transits %2d  T14 %.2f h  single %v", p.Peak.PeriodDays, p.Peak.SNR, p.Peak.NTransits, 24*p.Fit.T14Days, p.Single)
		if !p.Single && math.Abs(p.Peak.PeriodDays/59.737-1) < 0.01 {
			d = &i
		}
	}
	if d == nil {
		t.Fatalf("Kepler-90 d not among %d signals", len(found))
	}
	p := found[*d]
	if math.Abs(24*p.Fit.T14Days/8.0-1) > 0.25 {
		t.Errorf("d's fitted T14 %.2f h, catalogue 8.0 h", 24*p.Fit.T14Days)
	}
	next := found[len(found)-1]
	if *d == len(found)-1 || next.Single || math.Abs(next.Peak.PeriodDays/8.7198-1) > 0.002 {
		t.Fatalf("the planet after d: %+v, want Kepler-90 c", next.Peak)
	}
	if math.Abs(24*next.Fit.T14Days/3.745-1) > 0.3 {
		t.Errorf("c's fitted T14 %.2f h, catalogue 3.75 h", 24*next.Fit.T14Days)
	}
}
