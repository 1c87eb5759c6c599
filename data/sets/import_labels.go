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
			p, err := r.planet(c)
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
		for _, row := range rows {
			p, err := row.planet(c)
			if err != nil {
				return data.Answer{}, fmt.Errorf("sets: label table, KIC %d (line %d): %v", row.kic, row.line, err)
			}
			a.Confirmed = append(a.Confirmed, p)
		}
		slices.SortFunc(a.Confirmed, func(x, y data.Planet) int { return cmp.Compare(x.PeriodDays, y.PeriodDays) })
	case data.CategoryLabelled:
		a.Scored = true
		a.Labelled = []data.Planet{}
		for _, row := range rows {
			p, err := row.planet(c)
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
// n_transits and (unless given) MES measured on the light curve.
func (r labelRow) planet(c *lc.LightCurve) (data.Planet, error) {
	p := data.Planet{PeriodDays: r.num("period"), T0Days: r.num("t0"), DurationDays: r.num("duration") / 24,
		Depth: r.num("depth") / 1e6, RpRs: orZero(r.num("rp_rs")), B: orZero(r.num("b")), MES: r.num("mes")}
	if !(p.PeriodDays > 0) || !stat.Finite(p.T0Days) || !(p.DurationDays > 0) || !(p.Depth > 0) {
		return data.Planet{}, errors.New("a planet needs period > 0, t0, duration > 0 (hours) and depth > 0 (ppm)")
	}
	t, flat := flattened(c)
	model := make([]float64, len(t))
	for i, x := range t {
		model[i] = 1
		k := math.Round((x - p.T0Days) / p.PeriodDays)
		if math.Abs(x-p.T0Days-k*p.PeriodDays) <= p.DurationDays/2 {
			model[i] = 1 - p.Depth
		}
	}
	sig := noise.MES(t, flat, model, p.PeriodDays, p.T0Days, p.DurationDays)
	p.NTransits = sig.NTransits
	if !stat.Finite(p.MES) {
		p.MES = orZero(math.Round(sig.MES*100) / 100)
	}
	return p, nil
}
