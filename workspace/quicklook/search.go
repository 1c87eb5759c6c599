package quicklook

import (
	"errors"
	"fmt"
	"math"
	"time"

	"transitbench/engine/bls"
	"transitbench/engine/multi"
	"transitbench/engine/vet"
)

// SearchOptions are the grid and reporting choices of a BLS search ('transitbench bls' flags, the agent
// server's bls options). The zero value is the quick-look search the star view shows (Search: a coarse
// periodogram whose peaks are refined); any grid option (Grid reports it) asks for the grid those options
// describe instead, on the unbinned light curve.
type SearchOptions struct {
	// PMinDays and PMaxDays bound the periods (0: 0.5 d and a third of the span).
	PMinDays, PMaxDays float64
	// Periods, when positive, takes that many periods uniform in log period instead of Ofir's grid.
	Periods int
	// Durations, when set, are tried at every period (days, ascending).
	Durations []float64
	// Oversample is Ofir's oversampling (0: 3).
	Oversample float64
	// DurMinDays and DurMaxDays bound the default durations (0: 0.5 h and MaxDurationDays of the star).
	DurMinDays, DurMaxDays float64
	// Objective scores the boxes (zero: bls.SNR); a likelihood search is a grid search.
	Objective bls.Objective
	// Peaks is how many distinct peaks to report (0: PeakCount).
	Peaks int
	// Workers share the periods (0: GOMAXPROCS).
	Workers int
	// Masks are known transits removed before the search (and masked when measuring the peaks).
	Masks []multi.Mask
}

// Grid reports whether o asks for an explicit grid rather than the quick-look search.
func (o SearchOptions) Grid() bool {
	return o.PMinDays > 0 || o.PMaxDays > 0 || o.Periods > 0 || o.Durations != nil || o.Oversample > 0 ||
		o.DurMinDays > 0 || o.DurMaxDays > 0 || o.Objective != bls.SNR
}

// longest is the longest duration o asks for explicitly (0: none, the star's MaxDurationDays).
func (o SearchOptions) longest() float64 {
	switch {
	case o.Durations != nil:
		return o.Durations[len(o.Durations)-1]
	case o.DurMaxDays > 0:
		return o.DurMaxDays
	}
	return 0
}

// GridTooLargeError refuses a grid above bls.MaxGridWork (period, duration) pairs, counted before it is built;
// What says its size. It wraps bls.ErrGridTooLarge.
type GridTooLargeError struct{ What string }

func (e *GridTooLargeError) Error() string { return "the period grid is too large: " + e.What }
func (e *GridTooLargeError) Unwrap() error { return bls.ErrGridTooLarge }

// tooLarge is a GridTooLargeError saying what.
func tooLarge(format string, args ...any) error {
	return &GridTooLargeError{What: fmt.Sprintf(format, args...)}
}

// ofirTooLarge is the GridTooLargeError of Ofir's grid at oversampling over between pmin and pmax over span
// days with up to nDur durations.
func ofirTooLarge(pmin, pmax, span, over float64, nDur int) error {
	return tooLarge("%.3g periods (%g–%.4g d) × up to %d durations for a %.4g d span", bls.OfirCount(pmin, pmax, span, over, 1, 1),
		pmin, pmax, nDur, span)
}

// MakeGrid builds the grid o describes on the times t for the star of a: Ofir's grid (o.Oversample, the
// star's density bounding the durations from o.DurMinDays to o.DurMaxDays, or MaxDurationDays) between
// o.PMinDays and o.PMaxDays; or o.Periods periods uniform in log period, and/or exactly o.Durations at every
// period. A grid above bls.MaxGridWork (period, duration) pairs is refused with a GridTooLargeError saying its
// size, counted before it is built.
func (a *Analysis) MakeGrid(t []float64, o SearchOptions) (bls.Grid, error) {
	if len(t) < 2 {
		return bls.Grid{}, bls.ErrTooFewPoints
	}
	span := t[len(t)-1] - t[0]
	pmin, pmax := o.PMinDays, o.PMaxDays
	if pmin == 0 {
		pmin = bls.DefaultPMinDays
	}
	if pmax == 0 {
		pmax = span / bls.DefaultMinTransits
	}
	over := o.Oversample
	if over == 0 {
		over = bls.DefaultOversample
	}
	dmin, dmax := o.DurMinDays, o.DurMaxDays
	if dmin == 0 {
		dmin = bls.DefaultDurMinDays
	}
	if dmax == 0 {
		dmax = MaxDurationDays(a.Star, span)
	}
	if o.Periods == 0 && o.Durations == nil {
		opt := bls.GridOptions{PMinDays: o.PMinDays, PMaxDays: o.PMaxDays, Oversample: o.Oversample, DurMinDays: dmin, DurMaxDays: dmax}
		if a.Star != nil {
			opt.RStarRsun, opt.MStarMsun = a.Star.RadiusRsun, a.Star.MassMsun
		}
		g, err := bls.DefaultGrid(t, opt)
		if errors.Is(err, bls.ErrGridTooLarge) && pmin < pmax {
			return g, ofirTooLarge(pmin, pmax, span, over, len(bls.LogDurations(dmin, dmax, bls.DefaultDurStep)))
		}
		return g, err
	}
	if !(pmin < pmax) {
		return bls.Grid{}, fmt.Errorf("%w: period range %g–%g d is empty for a %.1f d span", bls.ErrBadGrid, pmin, pmax, span)
	}
	nDur := max(len(o.Durations), 1)
	var g bls.Grid
	if o.Periods > 0 {
		if float64(o.Periods)*float64(nDur) > bls.MaxGridWork {
			return g, tooLarge("%d periods × %d durations", o.Periods, nDur)
		}
		g.Periods = bls.LogPeriodGrid(pmin, pmax, o.Periods)
	} else {
		if n := bls.OfirCount(pmin, pmax, span, over, 1, 1); n*float64(nDur) > bls.MaxGridWork {
			return g, tooLarge("%.3g periods (%g–%.4g d) × %d durations for a %.4g d span", n, pmin, pmax, nDur, span)
		}
		g.Periods = bls.OfirPeriods(pmin, pmax, span, over, 1, 1)
	}
	if o.Durations != nil {
		g.Durations = o.Durations
		return g, nil
	}
	g.Durations = bls.LogDurations(dmin, dmax, bls.DefaultDurStep)
	periods := g.Periods
	g.Periods = nil
	for _, p := range periods {
		lo, hi := bls.DurationRange(p, g.Durations, bls.DefaultDurStep)
		if lo < hi {
			g.Periods = append(g.Periods, p)
			g.DurLo = append(g.DurLo, lo)
			g.DurHi = append(g.DurHi, hi)
		}
	}
	if w := bls.GridWork(g); w > bls.MaxGridWork {
		return bls.Grid{}, tooLarge("%d periods, %d (period, duration) pairs", len(g.Periods), w)
	}
	return g, nil
}

// BLSResult is a search's outcome: the grid's size, the points searched, the peaks, strongest first, and each
// peak measured (Measure, the masks and the star's other found signals masked).
type BLSResult struct {
	NPoints, NPeriods, NDurations int
	Objective                     bls.Objective
	// Seconds is the search alone (not the detrending or the measurements).
	Seconds  float64
	Peaks    []bls.Peak
	Measured []vet.Measurement
	// Events[i], for a peak with fewer than multi.DefaultMinTransits transits, are its transits with data
	// measured one by one (a single event has no period: SingleEvents); nil for a periodic peak.
	Events [][]vet.Event
	// Periods and Power are the periodogram.
	Periods, Power []float64
}

// ForDuration returns a prepared for a search of durations up to maxDur days: a itself when its detrending
// window keeps them (or a is not detrended), else a re-detrended with detrend.WindowFor(maxDur).
func (a *Analysis) ForDuration(maxDur float64) *Analysis {
	if a.WindowDays == 0 || !(maxDur > 0) || windowFor(maxDur) <= a.WindowDays {
		return a
	}
	out := a.reprepare(maxDur)
	out.Others = a.Others
	return out
}

// searcher returns the search o describes on the valid cadences of a (their times t and errors dy), as a
// function of the masked flux: the quick-look Search for the zero options, else the grid search. It records the
// grid's size in res, and the returned function the last search's periodogram and points.
func (a *Analysis) searcher(t, dy []float64, o SearchOptions, res *BLSResult) (multi.Searcher, error) {
	k := o.Peaks
	if k == 0 {
		k = PeakCount
	}
	res.Objective = o.Objective
	if !o.Grid() {
		g, err := coarseGrid(t, a.Star)
		if errors.Is(err, bls.ErrGridTooLarge) {
			span := t[len(t)-1] - t[0]
			return nil, ofirTooLarge(bls.DefaultPMinDays, span/bls.DefaultMinTransits, span, SearchOversample,
				len(bls.LogDurations(SearchDurMinDays, MaxDurationDays(a.Star, span), SearchDurStep)))
		}
		if err != nil {
			return nil, err
		}
		res.NPeriods, res.NDurations = len(g.Periods), len(g.Durations)
		return func(y []float64) ([]bls.Peak, error) {
			tt, yy, ee := validOf(t, y, dy)
			periods, power, peaks, err := searchK(tt, yy, ee, a.Star, o.Workers, k)
			res.Periods, res.Power, res.NPoints = periods, power, len(tt)
			return peaks, err
		}, nil
	}
	g, err := a.MakeGrid(t, o)
	if err != nil {
		return nil, err
	}
	g.Workers = o.Workers
	res.NPeriods, res.NDurations = len(g.Periods), len(g.Durations)
	return func(y []float64) ([]bls.Peak, error) {
		r, err := bls.Search(t, y, dy, g, o.Objective)
		if err != nil {
			return nil, err
		}
		res.Periods, res.Power, res.NPoints = r.Periods, r.Power, r.NPoints
		return r.Peaks(k), nil
	}, nil
}

// validOf returns the points of (t, y, dy) whose y is not NaN.
func validOf(t, y, dy []float64) (tt, yy, ee []float64) {
	for i, v := range y {
		if !math.IsNaN(v) {
			tt, yy, ee = append(tt, t[i]), append(yy, v), append(ee, dy[i])
		}
	}
	return tt, yy, ee
}

// BLS searches a as o describes (o.Masks removed first) and measures each peak with the masks and a's Others
// masked. The detrending is widened first when o searches longer durations than a was detrended for
// (ForDuration), so a command and the agent server that search one star with the same options report the same
// peaks.
func (a *Analysis) BLS(o SearchOptions) (*BLSResult, error) {
	for _, m := range o.Masks {
		if err := m.Check(); err != nil {
			return nil, err
		}
	}
	if l := o.longest(); l > 0 {
		a = a.ForDuration(l)
	}
	t, y, dy := a.points()
	res := &BLSResult{}
	search, err := a.searcher(t, dy, o, res)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res.Peaks, err = search(multi.Apply(t, y, o.Masks))
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		return nil, err
	}
	m := a.withMasks(o.Masks)
	res.Measured = m.measurePeaks(res.Peaks)
	res.Events = singleEvents(m.Time, res.Peaks, res.Measured)
	return res, nil
}

// withMasks returns a copy of a whose Others also hold the masks (each a window of vet.MaskFactor durations).
func (a *Analysis) withMasks(masks []multi.Mask) *Analysis {
	if len(masks) == 0 {
		return a
	}
	out := *a
	out.Others = append([]vet.Ephemeris(nil), a.Others...)
	for _, m := range masks {
		out.Others = append(out.Others, vet.Ephemeris{PeriodDays: m.PeriodDays, T0Days: m.T0Days, DurationDays: m.WindowDays / vet.MaskFactor})
	}
	return &out
}

// singleEvents are the events of each peak with fewer than multi.DefaultMinTransits transits (SingleEvents on
// its measurement), nil for the others.
func singleEvents(t []float64, peaks []bls.Peak, measured []vet.Measurement) [][]vet.Event {
	out := make([][]vet.Event, len(peaks))
	for i, pk := range peaks {
		if pk.NTransits < multi.DefaultMinTransits {
			out[i] = SingleEvents(t, measured[i])
		}
	}
	return out
}
