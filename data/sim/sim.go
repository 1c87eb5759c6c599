package sim

import (
	"errors"
	"fmt"
	"math"

	"transitbench/data"
	"transitbench/engine/lc"
)

// Version names the simulator's output. Any change to what Generate returns for some Spec and the default
// Knobs changes it, so data sets built by different versions are never mixed.
const Version = "sim-6"

// Spec identifies one star of a data set. The builder derives Seed from (Version, set name, set seed, Index).
// The star depends on Seed, Category, Population and ID only (ID is copied into star.json and the answer); Set
// and Index name the star in error messages.
type Spec struct {
	Set        string // set name ("dev", "A", "B", "train", ...)
	Index      int    // position in the set
	Seed       uint64 // per-star seed
	Category   string // data.CategoryInjected | CategoryUntouched | CategoryEB | CategoryConfirmed
	Population string // data.PopulationRandom | PopulationFalseAlarm for injected and untouched stars, "" otherwise
	ID         string // the star id the builder assigns
	// MESQuantile, for an injected star, places its planet's MES in Planet.MES as a quantile in (0, 1): the set
	// builder stratifies these over a set so that its share of MES ≥ 7.1 does not wander with the seed. Outside
	// (0, 1) (the zero value) the MES is drawn uniformly from the star's own stream.
	MESQuantile float64
}

// Result is one simulated star: its light curve, its star.json and its answer.
type Result struct {
	Curve  *lc.LightCurve
	Star   data.Star
	Answer data.Answer
}

// Errors of Generate.
var (
	// ErrCategory is returned for a Spec whose Category is not one of data's four categories.
	ErrCategory = errors.New("sim: unknown category")
	// ErrPopulation is returned for a Spec whose Population does not fit its Category.
	ErrPopulation = errors.New("sim: population does not fit the category")
)

// Generate simulates the star spec describes. Its star.json reports catalogue estimates of the stellar
// parameters (catalogue.go); the truth the signals were drawn with is Answer.TrueStar. Same Spec and Knobs give bit-identical output on every machine:
// each ingredient draws from its own random stream (see stream), nothing depends on map order, goroutines or
// the clock. Flux is NaN exactly on the cadences whose quality has a bit of lc.DefaultQualityMask; FluxErr is
// the per-cadence white-noise σ.
func Generate(spec Spec, k *Knobs) (*Result, error) {
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	if k == nil {
		k = DefaultKnobs()
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	res := &Result{
		Answer: data.Answer{ID: spec.ID, Category: spec.Category, Population: spec.Population},
	}
	cal, st, nz, base, m := buildBase(spec, k, &res.Answer)
	n := len(cal.time)
	signal := make([]float64, n)
	for i := range signal {
		signal[i] = 1
	}
	var err error
	switch spec.Category {
	case data.CategoryInjected:
		res.Answer.Planet, err = injectPlanet(spec.Seed, spec.MESQuantile, k, cal.time, st, m, signal)
		res.Answer.Scored = true
	case data.CategoryUntouched:
		res.Answer.Scored = true
	case data.CategoryEB:
		res.Answer.EB, err = addEB(spec, k, cal, st, m, nz, signal)
		res.Answer.Scored = res.Answer.EB != nil && res.Answer.EB.Counted
	case data.CategoryConfirmed:
		res.Answer.Confirmed, err = addConfirmed(spec, k, cal, st, m, signal)
	}
	if err != nil {
		return nil, fmt.Errorf("sim: star %q (set %s, index %d): %w", spec.ID, spec.Set, spec.Index, err)
	}

	// The flux, signal times base, is written over the signal, which is not needed after.
	curve := &lc.LightCurve{
		Time:    cal.time,
		Flux:    signal,
		FluxErr: make([]float64, n),
		Quality: cal.quality,
	}
	for i := range n {
		curve.FluxErr[i] = nz.sigma
		if !cal.valid(i) {
			curve.Flux[i] = math.NaN()
			continue
		}
		curve.Flux[i] = signal[i] * base[i]
	}
	res.Curve = curve
	cat := catalogue(spec, k, st)
	res.Answer.TrueStar = &data.TrueStar{Teff: math.Round(st.teff), Logg: round(st.logg, 3),
		RadiusRsun: round(st.radius, 3), MassMsun: round(st.mass, 3), Catalogue: cat.kind}
	res.Star = data.Star{
		ID:          spec.ID,
		Kepmag:      round(st.kepmag, 3),
		Teff:        cat.teff,
		Logg:        cat.logg,
		RadiusRsun:  cat.radius,
		MassMsun:    cat.mass,
		CDPPppm:     m.cdppTable(),
		CadenceDays: lc.CadenceDays,
		TimeSystem:  "BKJD",
	}
	return res, nil
}

// buildBase simulates the star without its planets or binary: the calendar, the star, its noise and base, the
// noise with the false alarm of a false-alarm-population star added (recorded in ans), and the meter of base,
// on which MES is measured.
func buildBase(spec Spec, k *Knobs, ans *data.Answer) (*calendar, star, *starNoise, []float64, *meter) {
	cal := newCalendar(spec, k)
	st := drawStar(spec, k)
	nz := newNoise(spec, k, cal, st)
	base := nz.flux
	var m *meter
	if fa := planFalseAlarm(spec, k); fa.kind != "" {
		base, m = plantFalseAlarm(spec, k, cal, nz, fa, ans)
	}
	if m == nil {
		m = newMeter(cal, base, k)
	}
	return cal, st, nz, base, m
}

func checkSpec(spec Spec) error {
	switch spec.Category {
	case data.CategoryInjected, data.CategoryUntouched:
		if spec.Population != data.PopulationRandom && spec.Population != data.PopulationFalseAlarm {
			return fmt.Errorf("%w: %s star %q has population %q; use %q or %q", ErrPopulation,
				spec.Category, spec.ID, spec.Population, data.PopulationRandom, data.PopulationFalseAlarm)
		}
	case data.CategoryEB, data.CategoryConfirmed:
		if spec.Population != "" {
			return fmt.Errorf("%w: %s star %q has population %q; leave it empty", ErrPopulation,
				spec.Category, spec.ID, spec.Population)
		}
	default:
		return fmt.Errorf("%w %q for star %q; use one of injected, untouched, eb, confirmed", ErrCategory,
			spec.Category, spec.ID)
	}
	return nil
}

// round rounds x to d decimals.
func round(x float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(x*p) / p
}
