package quicklook

import (
	"fmt"
	"math"
	"time"

	"transitbench/engine/bls"
	"transitbench/engine/multi"
	"transitbench/engine/vet"
)

// Planet is one signal FindPlanets found: the search's peak, fit and mask (engine/multi.Planet), and its
// measurement with every other found signal masked. A single event (multi.Planet.Single: fewer than
// multi.DefaultMinTransits transits) has no period: it is reported by its Events, each at its own mid-time
// with data under it, never as a periodic planet.
type Planet struct {
	multi.Planet
	// Measurement is the signal measured (Measure) with the masks and every other found signal masked; its
	// Ephemeris is the fitted one. For a single event it is measured at the search's box.
	Measurement vet.Measurement
	// Events are a single event's transits with data, measured one by one (engine/vet.Events on the
	// measurement's flux); nil for a planet.
	Events []vet.Event
}

// Ephemeris is the planet's fitted ephemeris, labelled label (a single event's: its search box).
func (p Planet) Ephemeris(label string) Ephemeris {
	e := p.Measurement.Ephemeris
	if !(e.PeriodDays > 0) {
		e = vet.Ephemeris{PeriodDays: p.Peak.PeriodDays, T0Days: p.Peak.T0Days, DurationDays: p.Peak.DurationDays}
	}
	return Ephemeris{Label: label, PeriodDays: e.PeriodDays, T0Days: e.T0Days, DurationDays: e.DurationDays}
}

// masks are the windows another signal's measurement leaves out for p: a planet's fitted transits, or each
// of a single event's events on its own (its search box when it has none).
func (p Planet) masks() []vet.Ephemeris {
	if p.Single && len(p.Events) > 0 {
		out := make([]vet.Ephemeris, len(p.Events))
		for i, e := range p.Events {
			out[i] = vet.Ephemeris{PeriodDays: SinglePeriodDays, T0Days: e.T0Days, DurationDays: e.DurationDays}
		}
		return out
	}
	return []vet.Ephemeris{vetEphemeris(p.Ephemeris(""))}
}

// DefaultMinMES is the MES (vet.Measure's, at the best peak of a search with the signals found before it
// masked) below which FindPlanets stops. It is chosen from its false-alarm rate: on the 35 untouched stars of
// the random population of the dev set (no planet, no binary), the quick-look search's best peak measured MES
// ≥ 10 on 4 (11 %; Wilson 95 % interval 5–26 %), ≥ 7.1 on 8 (23 %) and ≥ 12 on 3 (9 %); on the 34 untouched
// stars of the false-alarm population (chosen for their systematics) ≥ 10 on 20. Kepler's 7.1 assumes one
// search of white noise; a search picks the strongest of about 10⁵ trials in noise with systematics, so its
// best noise peak passes 7.1 on a star in four. The cost: an injected planet whose measured MES lies between
// 7.1 and 10 is reported among the peaks but not as a planet (README, "Planets one after another").
const DefaultMinMES = 10.0

// PlanetOptions steer FindPlanets.
type PlanetOptions struct {
	// Planets is the most planets to find (at least 1).
	Planets int
	// MinMES stops the search at the first best peak whose MES is below it (0: DefaultMinMES).
	MinMES float64
	// Search is each search's grid (the zero value: the quick-look search), its masks removed first.
	Search SearchOptions
}

// FindPlanets finds up to o.Planets planets of the analysed star one after another (engine/multi.Iterate):
// search; stop when the best peak's MES (Measure, the signals found so far and the masks masked) is below
// o.MinMES; mask the peak's transits over multi.DefaultWindowFactor × its fitted T14; search again. Peaks with
// fewer than three transits are masked on the way whatever their MES (they do not end the search) and returned
// with Single set and their Events when their MES reaches o.MinMES. Each
// signal is then measured with every other one masked. It returns the signals in the order found and the
// first search (its periodogram and peaks, measured).
func FindPlanets(a *Analysis, o PlanetOptions) ([]Planet, *BLSResult, error) {
	if o.Planets < 1 {
		return nil, nil, fmt.Errorf("quicklook: %d planets asked for; ask for at least 1", o.Planets)
	}
	minMES := o.MinMES
	if minMES == 0 {
		minMES = DefaultMinMES
	}
	if l := o.Search.longest(); l > 0 {
		a = a.ForDuration(l)
	}
	a = a.withMasks(o.Search.Masks)
	t, y, dy := a.points()
	res := &BLSResult{}
	search, err := a.searcher(t, dy, o.Search, res)
	if err != nil {
		return nil, nil, err
	}
	var first *BLSResult
	counted := func(y []float64) ([]bls.Peak, error) {
		start := time.Now()
		peaks, err := search(y)
		if first == nil && err == nil {
			r := *res
			r.Peaks, r.Seconds = peaks, time.Since(start).Seconds()
			first = &r
		}
		return peaks, err
	}
	flux := a.flux()
	star := a.starOf()
	strength := func(pk bls.Peak, found []multi.Planet) float64 {
		if pk.NTransits < multi.DefaultMinTransits {
			return math.Inf(1) // a few-transit event is masked whatever its MES, so that it does not end the search
		}
		v := vet.Ephemeris{PeriodDays: pk.PeriodDays, T0Days: pk.T0Days, DurationDays: pk.DurationDays}
		others := append([]vet.Ephemeris(nil), a.Others...)
		for _, f := range found {
			others = append(others, Planet{Planet: f}.masks()...)
		}
		return vet.Measure(a.Time, flux, v, others, star).Features.MES
	}
	found, err := multi.Iterate(t, y, counted, multi.Options{Planets: o.Planets, MinSNR: minMES, Strength: strength, Masks: o.Search.Masks})
	if first != nil {
		first.Measured = a.measurePeaks(first.Peaks)
		first.Events = singleEvents(a.Time, first.Peaks, first.Measured)
	}
	if len(found) == 0 {
		return nil, first, err
	}
	out := make([]Planet, 0, len(found))
	for _, f := range found {
		out = append(out, Planet{Planet: f})
	}
	othersOf := func(i int) []vet.Ephemeris {
		others := append([]vet.Ephemeris(nil), a.Others...)
		for j, p := range out {
			if j != i {
				others = append(others, p.masks()...)
			}
		}
		return others
	}
	// Single events first: their events are what the others mask.
	for i, p := range out {
		if p.Single {
			v := vet.Ephemeris{PeriodDays: p.Peak.PeriodDays, T0Days: p.Peak.T0Days, DurationDays: p.Peak.DurationDays}
			m := vet.Measure(a.Time, flux, v, othersOf(i), star)
			out[i].Measurement = m
			out[i].Events = SingleEvents(a.Time, m)
		}
	}
	for i, p := range out {
		if !p.Single {
			v := vet.Ephemeris{PeriodDays: p.Peak.PeriodDays, T0Days: p.Peak.T0Days, DurationDays: p.Peak.DurationDays}
			out[i].Measurement = vet.Measure(a.Time, flux, v, othersOf(i), star)
		}
	}
	// A single event below the stop rule is not reported (it was masked so that the search went on).
	kept := out[:0]
	for _, p := range out {
		if !p.Single || p.Measurement.Features.MES >= minMES {
			kept = append(kept, p)
		}
	}
	return kept, first, err
}

// SingleEventMinMES is the event MES (depth over σ_D) a transit of a single event needs to be reported as one
// of its events: a predicted transit of a few-transit peak with data under it but no dip is not an event.
const SingleEventMinMES = 3.0

// SingleEvents are the events of a few-transit signal measured as m on a light curve of times t: its transits
// with data measured one by one on the measured flux (engine/vet.Events), those of event MES ≥
// SingleEventMinMES, or the strongest one when none is.
func SingleEvents(t []float64, m vet.Measurement) []vet.Event {
	ev := vet.Events(t, m.Flat, m.Ephemeris)
	var out []vet.Event
	best := -1
	for i, e := range ev {
		if e.MES >= SingleEventMinMES {
			out = append(out, e)
		}
		if best < 0 || e.MES > ev[best].MES {
			best = i
		}
	}
	if out == nil && best >= 0 {
		out = []vet.Event{ev[best]}
	}
	return out
}

// Planets is FindPlanets with the quick-look search on up to workers goroutines and the default stop rule.
// Planets(a, 2)'s second planet is "the next planet after masking" the star view shows.
func Planets(a *Analysis, n, workers int) ([]Planet, error) {
	found, _, err := FindPlanets(a, PlanetOptions{Planets: n, Search: SearchOptions{Workers: workers}})
	return found, err
}
