package sim

import (
	"math"
	"slices"
	"testing"

	"transitbench/engine/stat"
)

// TestCatalogueErrors checks the error model of star.json's parameters over 4,000 stars: the share of each
// kind of entry, the spread of the errors against the sources quoted at defaultCatalogueKnobs (KIC-like:
// radius errors ≈ 25–40 %, log g ≈ 0.3 dex, Teff ≈ 200 K; Gaia-like: radius ≈ 5–10 %, Teff ≈ 150 K), and that
// the reported mass is the one the reported log g and radius imply.
func TestCatalogueErrors(t *testing.T) {
	k := DefaultKnobs()
	var kicR, kicG, kicT, gaiaR, gaiaT []float64
	for i := range 4000 {
		spec := Spec{Set: "test", Index: i, Seed: uint64(1000003 * (i + 1)), Category: "untouched", Population: "random"}
		s := drawStar(spec, k)
		c := catalogue(spec, k, s)
		if again := catalogue(spec, k, s); again != c {
			t.Fatalf("star %d: catalogue not deterministic: %+v then %+v", i, c, again)
		}
		if want := math.Pow(10, c.logg-loggSun) * c.radius * c.radius; math.Abs(c.mass-want) > 0.0015+2e-3*want {
			t.Fatalf("star %d: mass %.3f, but log g %.3f and radius %.3f give %.3f", i, c.mass, c.logg, c.radius, want)
		}
		dR := math.Abs(c.radius/s.radius - 1)
		switch c.kind {
		case CatalogueKIC:
			kicR, kicG, kicT = append(kicR, dR), append(kicG, math.Abs(c.logg-s.logg)), append(kicT, math.Abs(c.teff-s.teff))
		case CatalogueGaia:
			gaiaR, gaiaT = append(gaiaR, dR), append(gaiaT, math.Abs(c.teff-s.teff))
		default:
			t.Fatalf("star %d: catalogue kind %q", i, c.kind)
		}
	}
	if share := float64(len(gaiaR)) / 4000; math.Abs(share-0.5) > 0.03 {
		t.Errorf("Gaia-like share %.3f, want 0.5 ± 0.03", share)
	}
	// For a normal error of σ the median |error| is 0.674σ and the RMS is σ.
	rms := func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += v * v
		}
		return math.Sqrt(s / float64(len(x)))
	}
	med := func(x []float64) float64 { return stat.Median(slices.Clone(x)) }
	checks := []struct {
		name   string
		got    float64
		lo, hi float64
	}{
		{"KIC-like RMS radius error (fraction)", rms(kicR), 0.25, 0.45},
		{"KIC-like RMS log g error (dex)", rms(kicG), 0.25, 0.32},
		{"KIC-like RMS Teff error (K)", rms(kicT), 180, 220},
		{"Gaia-like RMS radius error (fraction)", rms(gaiaR), 0.05, 0.10},
		{"Gaia-like RMS Teff error (K)", rms(gaiaT), 135, 165},
		{"Gaia-like median radius error (fraction)", med(gaiaR), 0.03, 0.06},
	}
	for _, c := range checks {
		if !(c.got >= c.lo && c.got <= c.hi) {
			t.Errorf("%s = %.3f, want %.3f–%.3f", c.name, c.got, c.lo, c.hi)
		}
	}
}
