package sets

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"transitbench/data"
	"transitbench/engine/lc"
	"transitbench/engine/noise"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
)

// labelAnswer makes a star's answer from its label rows.
func labelAnswer(id string, rows []labelRow, c *lc.LightCurve) (data.Answer, error) {
	r := rows[0]
	a := data.Answer{ID: id, Category: r.str("category")}
	bad := func(format string, v ...any) (data.Answer, error) {
		return data.Answer{}, fmt.Errorf("sets: label table, KIC %d (line %d): %s", r.kic, r.line, fmt.Sprintf(format, v...))
	}
	if len(rows) > 1 && a.Category != data.CategoryConfirmed && a.Category != data.CategoryLabelled {
		return bad("%d rows for a %s star; only confirmed hosts and labelled stars take one row per planet", len(rows), a.Category)
	}
	switch a.Category {
	case data.CategoryInjected, data.CategoryUntouched:
		a.Population = r.str("population")
		if a.Population == "" {
			a.Population = data.PopulationRandom
		}
		if a.Population != data.PopulationRandom && a.Population != data.PopulationFalseAlarm {
			return bad("population %q; use random or false_alarm", a.Population)
		}
		a.Scored = true
		if a.Category == data.CategoryInjected && stat.Finite(r.num("period")) {
			p, err := r.planet(c, nil)
			if err != nil {
				return bad("%v", err)
			}
			a.Planet = &p
		}
	case data.CategoryEB:
		per, t0, dur, dep := r.num("period"), r.num("t0"), r.num("duration"), r.num("depth")
		if !(per > 0) || !stat.Finite(t0) {
			return bad("an eclipsing binary needs period and t0")
		}
		counted := strings.EqualFold(r.str("counted"), "true")
		a.Scored = counted
		a.EB = &data.EB{PeriodDays: per, T0Days: t0, PrimaryDepth: orZero(dep) / 1e6,
			SecondaryDepth: orZero(r.num("secondary_depth")) / 1e6, PrimaryDurationDays: orZero(dur) / 24,
			Counted: counted, Giveaway: []string{}}
		if counted {
			a.EB.Giveaway = []string{"label"}
		}
	case data.CategoryConfirmed:
		for i, row := range rows {
			p, err := row.planet(c, otherEphemerides(rows, i))
			if err != nil {
				return data.Answer{}, fmt.Errorf("sets: label table, KIC %d (line %d): %v", row.kic, row.line, err)
			}
			a.Confirmed = append(a.Confirmed, p)
		}
		slices.SortFunc(a.Confirmed, func(x, y data.Planet) int { return cmp.Compare(x.PeriodDays, y.PeriodDays) })
	case data.CategoryLabelled:
		a.Scored = true
		a.Labelled = []data.Planet{}
		for i, row := range rows {
			p, err := row.planet(c, otherEphemerides(rows, i))
			if err != nil {
				return data.Answer{}, fmt.Errorf("sets: label table, KIC %d (line %d): %v", row.kic, row.line, err)
			}
			if p.NTransits > 0 {
				a.Labelled = append(a.Labelled, p)
			}
		}
		slices.SortFunc(a.Labelled, func(x, y data.Planet) int { return cmp.Compare(x.PeriodDays, y.PeriodDays) })
	default:
		return bad("category %q; use injected, untouched, eb, confirmed or labelled", a.Category)
	}
	return a, nil
}

func orZero(x float64) float64 {
	if stat.Finite(x) {
		return x
	}
	return 0
}

// planet makes a planet's truth from a label row: depth from ppm to a fraction, duration from hours to days,
// n_transits, and the MES (unless the row gives one) measured on the light curve as every tool measures a signal
// (engine/vet.Measure at the row's ephemeris, the star's other labelled planets in others masked): the MES of
// the data, not of the catalogue's depth, which on another light curve (a year of quarters, a rescaled flux)
// can be several times the signal the data hold.
func (r labelRow) planet(c *lc.LightCurve, others []vet.Ephemeris) (data.Planet, error) {
	p := data.Planet{PeriodDays: r.num("period"), T0Days: r.num("t0"), DurationDays: r.num("duration") / 24,
		Depth: r.num("depth") / 1e6, RpRs: orZero(r.num("rp_rs")), B: orZero(r.num("b")), MES: r.num("mes")}
	if !(p.PeriodDays > 0) || !stat.Finite(p.T0Days) || !(p.DurationDays > 0) || !(p.Depth > 0) {
		return data.Planet{}, errors.New("a planet needs period > 0, t0, duration > 0 (hours) and depth > 0 (ppm)")
	}
	p.NTransits = noise.NTransitsWithData(goodTimes(c), p.PeriodDays, p.T0Days, p.DurationDays)
	if !stat.Finite(p.MES) {
		p.MES = 0
		if p.NTransits > 0 {
			t, flux := validFlux(c)
			m := vet.Measure(t, flux, vet.Ephemeris{PeriodDays: p.PeriodDays, T0Days: p.T0Days, DurationDays: p.DurationDays}, others, nil)
			p.MES = orZero(math.Round(m.Features.MES*100) / 100)
		}
	}
	return p, nil
}

// otherEphemerides are the ephemerides of the rows other than i (those with a period, t0 and duration).
func otherEphemerides(rows []labelRow, i int) []vet.Ephemeris {
	var out []vet.Ephemeris
	for j, r := range rows {
		e := vet.Ephemeris{PeriodDays: r.num("period"), T0Days: r.num("t0"), DurationDays: r.num("duration") / 24}
		if j != i && e.PeriodDays > 0 && stat.Finite(e.T0Days) && e.DurationDays > 0 {
			out = append(out, e)
		}
	}
	return out
}

// validFlux returns the times of c and its flux, NaN where a cadence is not valid.
func validFlux(c *lc.LightCurve) (t, flux []float64) {
	flux = make([]float64, c.Len())
	for i := range flux {
		flux[i] = math.NaN()
		if c.Good(i, lc.DefaultQualityMask) {
			flux[i] = c.Flux[i]
		}
	}
	return c.Time, flux
}

// goodTimes returns the times of the valid cadences of c.
func goodTimes(c *lc.LightCurve) []float64 {
	var out []float64
	for i, x := range c.Time {
		if c.Good(i, lc.DefaultQualityMask) {
			out = append(out, x)
		}
	}
	return out
}
