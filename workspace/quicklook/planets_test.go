package quicklook

import (
	"math"
	"path/filepath"
	"testing"

	"transitbench/data"
	"transitbench/data/kepref"
)

// TestPlanetsKepler90 analyses Kepler-90's quarters 3–5 as the star view does and asks for the planets one
// after another down to MES 7.1: the deep few-transit events of the outer planets are masked first and reported
// as single events (each at its own mid-time, with data under it, no period), then Kepler-90 d (59.74 d) must
// come out as a planet, with a fitted T14 near the catalogue's 8.0 h, and the next planet after it is
// Kepler-90 c (8.72 d), measured with the others masked. With the default stop rule
// (DefaultMinMES) the search stops before c only if c's measured MES is below it.
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
	found, first, err := FindPlanets(a, PlanetOptions{Planets: 2, MinMES: 7.1, Search: SearchOptions{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if first == nil || len(first.Peaks) == 0 || first.Peaks[0] != a.Peaks[0] || len(first.Measured) != len(first.Peaks) {
		t.Fatalf("the first search %+v is not the analysis' (%+v)", first, a.Peaks)
	}
	var d *int
	for i, p := range found {
		m := p.Measurement
		t.Logf("P %8.4f d  SNR %6.1f  box %.2f h fit %.2f h transits %2d  T14 %.2f h  MES %.1f  single %v  events %+v", p.Peak.PeriodDays, p.Peak.SNR, 24*p.Peak.DurationDays, 24*p.Fit.T14Days,
			p.Peak.NTransits, 24*m.Ephemeris.DurationDays, m.Features.MES, p.Single, p.Events)
		if p.Single {
			if len(p.Events) == 0 || len(p.Events) >= 3 {
				t.Errorf("single event %d has %d events", i, len(p.Events))
			}
			for _, e := range p.Events {
				if n := cadencesWithin(a, e.T0Days, e.DurationDays/2); n < int(math.Ceil(e.DurationDays/2/0.0204)) || !(e.Depth > 0) {
					t.Errorf("event at %.3f: %d valid cadences within T14/2, depth %g", e.T0Days, n, e.Depth)
				}
			}
			continue
		}
		if math.Abs(p.Peak.PeriodDays/59.737-1) < 0.01 {
			d = &i
		}
	}
	if d == nil {
		t.Fatalf("Kepler-90 d not among %d signals", len(found))
	}
	p := found[*d]
	if t14 := p.Measurement.Ephemeris.DurationDays; math.Abs(24*t14/8.0-1) > 0.25 {
		t.Errorf("d's fitted T14 %.2f h, catalogue 8.0 h", 24*t14)
	}
	next := found[len(found)-1]
	if *d == len(found)-1 || next.Single || math.Abs(next.Peak.PeriodDays/8.7198-1) > 0.002 {
		t.Fatalf("the planet after d: %+v, want Kepler-90 c", next.Peak)
	}
	// c is measured with the others masked at MES ≈ 10, where the trapezoid's T14 is loosely constrained (its
	// search box is 4.7 h; the catalogue's T14 3.75 h): only its MES is checked against the stop rule.
	if mes := next.Measurement.Features.MES; mes < 7.1 {
		t.Errorf("c measured at MES %.1f, below the stop rule it passed", mes)
	}
	def, _, err := FindPlanets(a, PlanetOptions{Planets: 2, Search: SearchOptions{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if cMES := next.Measurement.Features.MES; cMES >= DefaultMinMES && len(def) != len(found) {
		t.Errorf("c's MES %.1f passes the default stop rule, but the default search found %d signals, not %d", cMES, len(def), len(found))
	}
}

// cadencesWithin counts the valid cadences of a within half of t0.
func cadencesWithin(a *Analysis, t0, half float64) int {
	n := 0
	for i, x := range a.Time {
		if !a.Flagged[i] && math.Abs(x-t0) <= half {
			n++
		}
	}
	return n
}
