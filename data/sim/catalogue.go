package sim

import (
	"math"
	"math/rand/v2"
)

// Kinds of catalogue entry (data.TrueStar.Catalogue).
const (
	CatalogueKIC  = "kic"
	CatalogueGaia = "gaia"
)

// catalogueStar is what a catalogue says of a star: the parameters star.json reports, and which kind of entry
// gave them.
type catalogueStar struct {
	kind                     string
	teff, logg, radius, mass float64
}

// catalogue draws the catalogue entry of the star s (stream "catalogue"), with the errors of
// Knobs.Star.Catalogue: a KIC-like entry perturbs log g and mass and derives the radius, a Gaia-like one
// perturbs radius and mass and derives log g; both perturb Teff. The reported mass is always
// 10^(log g − log g☉)·R² (SPEC A1).
func catalogue(spec Spec, k *Knobs, s star) catalogueStar {
	r := stream(spec.Seed, "catalogue")
	ck := &k.Star.Catalogue
	c := catalogueStar{}
	if r.Float64() < ck.GaiaShare {
		c.kind = CatalogueGaia
		c.radius = s.radius * math.Pow(10, ck.GaiaRadiusDex*truncNorm(r))
		c.mass = s.mass * math.Pow(10, ck.GaiaMassDex*truncNorm(r))
		c.logg = loggSun + math.Log10(c.mass/(c.radius*c.radius))
		c.teff = s.teff + ck.GaiaTeffK*truncNorm(r)
	} else {
		c.kind = CatalogueKIC
		c.logg = s.logg + ck.KICLoggDex*truncNorm(r)
		c.mass = s.mass * math.Pow(10, ck.KICMassDex*truncNorm(r))
		c.radius = math.Sqrt(c.mass / math.Pow(10, c.logg-loggSun))
		c.teff = s.teff + ck.KICTeffK*truncNorm(r)
	}
	// Round as star.json reports them, then make the mass agree with the rounded log g and radius.
	c.radius = round(c.radius, 3)
	c.logg = round(c.logg, 3)
	c.mass = round(math.Pow(10, c.logg-loggSun)*c.radius*c.radius, 3)
	c.teff = math.Round(c.teff)
	return c
}

// truncNorm draws a standard normal number truncated at ±3 (redrawn beyond).
func truncNorm(r *rand.Rand) float64 {
	for {
		if z := r.NormFloat64(); math.Abs(z) <= 3 {
			return z
		}
	}
}
