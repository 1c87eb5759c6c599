package quicklook

import (
	"fmt"
	"math"
	"sort"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/pipeline"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
	"transitbench/workspace"
)

// Analysis is a star's light curve with its detrended flux and BLS search.
type Analysis struct {
	// Star is the star's metadata (its radius and mass bound the search's durations); nil when unknown.
	Star *data.Star
	// Time, Raw and Flat have one entry per cadence: times in BKJD days, the relative flux and the flux
	// detrended by engine/detrend for the search (WindowDays); Flat is NaN where the cadence is not valid
	// (Flagged, or a NaN flux).
	Time, Raw, Flat []float64
	// Flagged marks the cadences that are not valid: a quality flag of lc.DefaultQualityMask, or a time or
	// flux that is not finite.
	Flagged []bool
	// WindowDays is the biweight window of Flat: detrend.WindowFor(MaxDurationDays(Star, span)), so that the
	// detrending keeps every duration the search tries; 0 when the flux was not detrended (Prepare's
	// NoDetrend).
	WindowDays float64
	// Periods and Power are the BLS periodogram (SNR objective) on the valid cadences; Peaks its PeakCount
	// strongest distinct peaks, strongest first, each refined on the unbinned light curve. A peak is measured
	// when it is shown (Measure, FoldAt): each measurement re-detrends the whole light curve.
	Periods, Power []float64
	Peaks          []bls.Peak
	// Err is the flux error of each cadence as the search weighted it (1 where c had none; NaN where not
	// valid), for the searches after masking (Planets).
	Err []float64
	// Others are the signals found on the star (FindPlanets; set with WithPlanets): every measurement masks
	// those of them that are not the signal measured.
	Others []vet.Ephemeris

	fluxErr []float64 // the light curve's flux errors, for a detrending again (ForDuration)
}

// PeakCount is how many BLS peaks Analyse keeps.
const PeakCount = 5

// The BLS search trades period resolution for speed, so that a star is analysed in about a second: the
// periodogram is computed on Ofir's grid with oversampling SearchOversample instead of the default 3, durations
// from SearchDurMinDays (1 h instead of 0.5 h; the phase bins are a fraction of the shortest duration, so this
// halves them) in steps of SearchDurStep instead of 1.25, and SearchPhaseOversample phase bins per shortest
// duration instead of 5, on the light curve averaged over runs of SearchBin consecutive cadences (the search's
// cost grows with the number of points; a 59-minute bin still resolves the 1-hour shortest box); then each of
// the strongest peaks is refined on the unbinned light curve by a search from 0.5 h at the default duration
// step over a fine grid of RefinePeriods periods between its two neighbours on the coarse grid. The
// periodogram is the coarse one; the peaks are the refined ones.
const (
	SearchOversample      = 1.0
	SearchDurStep         = 1.5
	SearchPhaseOversample = 3
	SearchDurMinDays      = 1.0 / 24
	SearchBin             = 2
	RefinePeriods         = 64
)

// MaxDurationDays is the longest transit duration searched for the star over a span of spanDays:
// engine/pipeline.SearchMaxDurationDays, the reference pipelines' own (12 h, longer for a low-density star).
func MaxDurationDays(star *data.Star, spanDays float64) float64 {
	var s pipeline.Star
	if star != nil {
		s = pipeline.Star{RadiusRsun: star.RadiusRsun, MassMsun: star.MassMsun, Teff: star.Teff, Logg: star.Logg}
	}
	return pipeline.SearchMaxDurationDays(s, spanDays)
}

// PrepareOptions steer Prepare.
type PrepareOptions struct {
	// NoDetrend keeps the flux as read ('transitbench bls --no-detrend'): Flat is the valid flux.
	NoDetrend bool
	// MaxDurationDays, when longer than the star's MaxDurationDays, widens the detrending window to keep it
	// (a search of explicit longer durations).
	MaxDurationDays float64
	// WindowDays, when positive, is the biweight window, whatever durations it keeps (the star view's choice
	// of window, as lightkurve's flatten takes one).
	WindowDays float64
}

// Prepare flags the invalid cadences of c and detrends the rest (engine/detrend.Flatten with the window
// detrend.WindowFor(MaxDurationDays(star, span)), which keeps every duration the search tries), without
// searching. star may be nil. The analysis shares c's Time and Flux slices.
func Prepare(c *lc.LightCurve, star *data.Star, opt PrepareOptions) *Analysis {
	n := len(c.Time)
	flagged := make([]bool, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range c.Time {
		flagged[i] = (i < len(c.Quality) && c.Quality[i]&lc.DefaultQualityMask != 0) || !stat.Finite(c.Flux[i]) ||
			!stat.Finite(c.Time[i])
		if !flagged[i] {
			lo, hi = math.Min(lo, c.Time[i]), math.Max(hi, c.Time[i])
		}
	}
	window := 0.0
	switch {
	case opt.NoDetrend:
	case opt.WindowDays > 0:
		window = opt.WindowDays
	default:
		window = windowFor(math.Max(MaxDurationDays(star, math.Max(hi-lo, 0)), opt.MaxDurationDays))
	}
	return prepare(c.Time, c.Flux, c.FluxErr, flagged, star, window)
}

// windowFor is the detrending window that keeps durations up to maxDur days.
func windowFor(maxDur float64) float64 { return detrend.WindowFor(maxDur) }

// prepare detrends the valid cadences of (t, flux) with a biweight window wide (0: not detrended).
func prepare(t, flux, fluxErr []float64, flagged []bool, star *data.Star, window float64) *Analysis {
	n := len(t)
	a := &Analysis{Star: star, Time: t, Raw: flux, Flagged: flagged, Flat: make([]float64, n), Err: make([]float64, n),
		WindowDays: window, fluxErr: fluxErr}
	masked := make([]float64, n)
	for i := range t {
		masked[i] = flux[i]
		if flagged[i] {
			masked[i] = math.NaN()
		}
	}
	flat, trend := masked, []float64(nil)
	if window > 0 {
		flat, trend = detrend.Flatten(t, masked, detrend.Options{WindowDays: window})
	}
	copy(a.Flat, flat)
	for i := range t {
		a.Err[i] = math.NaN()
		if flagged[i] || math.IsNaN(flat[i]) {
			continue
		}
		e := 1.0
		if i < len(fluxErr) && fluxErr[i] > 0 && stat.Finite(fluxErr[i]) {
			e = fluxErr[i]
			if trend != nil && trend[i] > 0 {
				e /= trend[i]
			}
		}
		a.Err[i] = e
	}
	return a
}

// reprepare is a detrended again for durations up to maxDur days (no search).
func (a *Analysis) reprepare(maxDur float64) *Analysis {
	return prepare(a.Time, a.Raw, a.fluxErr, a.Flagged, a.Star, windowFor(maxDur))
}

// Analyse prepares c (Prepare, detrended for the star's longest duration) and runs Search on the valid
// detrended cadences with up to workers goroutines (0: GOMAXPROCS). The peaks are not measured here: a front
// end measures what it shows (FoldAt, Measure), so that a star's page or view costs one re-detrending per
// signal shown, not one per peak. star may be nil. The analysis shares c's Time and Flux slices.
func Analyse(c *lc.LightCurve, star *data.Star, workers int) (*Analysis, error) {
	return AnalyseWith(c, star, PrepareOptions{}, workers)
}

// AnalyseWith is Analyse with c prepared as opt says (a detrending window of the caller's choice, say).
func AnalyseWith(c *lc.LightCurve, star *data.Star, opt PrepareOptions, workers int) (*Analysis, error) {
	a := Prepare(c, star, opt)
	vt, vf, ve := a.points()
	var err error
	a.Periods, a.Power, a.Peaks, err = Search(vt, vf, ve, star, workers)
	return a, err
}

// points returns the valid cadences of a: times, detrended flux and errors.
func (a *Analysis) points() (t, y, dy []float64) {
	for i, v := range a.Flat {
		if !a.Flagged[i] && !math.IsNaN(v) {
			t, y, dy = append(t, a.Time[i]), append(y, v), append(dy, a.Err[i])
		}
	}
	return t, y, dy
}

// span is the time between the first and the last valid cadence of a.
func (a *Analysis) span() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, x := range a.Time {
		if !a.Flagged[i] {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return math.Max(hi-lo, 0)
}

// Search is Analyse's BLS search on the points (t, y, dy) (dy nil: unit errors): the coarse periodogram and
// its PeakCount strongest peaks, refined (see SearchOversample). Durations run up to MaxDurationDays of the
// star; star, when not nil, bounds them by its density.
func Search(t, y, dy []float64, star *data.Star, workers int) (periods, power []float64, peaks []bls.Peak, err error) {
	return searchK(t, y, dy, star, workers, PeakCount)
}

// coarseGrid is Search's periodogram grid on the times t.
func coarseGrid(t []float64, star *data.Star) (bls.Grid, error) {
	opt := bls.GridOptions{Oversample: SearchOversample, DurStep: SearchDurStep, DurMinDays: SearchDurMinDays}
	if star != nil {
		opt.RStarRsun, opt.MStarMsun = star.RadiusRsun, star.MassMsun
	}
	if len(t) > 1 {
		opt.DurMaxDays = MaxDurationDays(star, t[len(t)-1]-t[0])
	}
	return bls.DefaultGrid(t, opt)
}

// searchK is Search keeping k peaks.
func searchK(t, y, dy []float64, star *data.Star, workers, k int) (periods, power []float64, peaks []bls.Peak, err error) {
	g, err := coarseGrid(t, star)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("BLS search: %w", err)
	}
	g.Workers, g.PhaseOversample = workers, SearchPhaseOversample
	bt, by, bdy := binRuns(t, y, dy, SearchBin)
	res, err := bls.Search(bt, by, bdy, g, bls.SNR)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("BLS search: %w", err)
	}
	for _, pk := range res.Peaks(k) {
		peaks = append(peaks, refinePeak(t, y, dy, res.Periods, pk, workers, g.Durations[len(g.Durations)-1]))
	}
	return res.Periods, res.Power, peaks, nil
}

// binRuns averages runs of up to n consecutive points whose times lie within n cadences of the run's first:
// the mean time and flux, and the error of the mean, √(Σ dy²)/k for k points (unit errors when dy is nil).
// Points across a gap start a new run, so no bin straddles one.
func binRuns(t, y, dy []float64, n int) (bt, by, bdy []float64) {
	for i := 0; i < len(t); {
		j := i + 1
		for j < len(t) && j-i < n && t[j]-t[i] < float64(n)*lc.CadenceDays {
			j++
		}
		var st, sy, se float64
		for k := i; k < j; k++ {
			e := 1.0
			if dy != nil {
				e = dy[k]
			}
			st, sy, se = st+t[k], sy+y[k], se+e*e
		}
		k := float64(j - i)
		bt, by, bdy = append(bt, st/k), append(by, sy/k), append(bdy, math.Sqrt(se)/k)
		i = j
	}
	return bt, by, bdy
}

// refinePeak searches a fine grid of periods between the coarse grid's neighbours of pk's period, at the
// default duration step (durations up to the coarse grid's longest, at most 15 % of the period, as the default
// grid allows), and returns the best
// box found there, or pk when the refined search finds nothing stronger.
func refinePeak(t, y, dy, coarse []float64, pk bls.Peak, workers int, longest float64) bls.Peak {
	i := sort.SearchFloat64s(coarse, pk.PeriodDays)
	if i >= len(coarse) || !sort.Float64sAreSorted(coarse) {
		return pk
	}
	lo, hi := coarse[max(i-1, 0)], coarse[min(i+1, len(coarse)-1)]
	if !(hi > lo) {
		return pk
	}
	dmax := math.Min(math.Max(bls.DefaultDurMaxDays, longest), 0.15*lo)
	if !(dmax > bls.DefaultDurMinDays) {
		return pk
	}
	g := bls.Grid{
		Periods:   bls.LogPeriodGrid(lo, hi, RefinePeriods),
		Durations: bls.LogDurations(bls.DefaultDurMinDays, dmax, bls.DefaultDurStep),
		Workers:   workers,
	}
	res, err := bls.Search(t, y, dy, g, bls.SNR)
	if err != nil {
		return pk
	}
	best := res.Peaks(1)
	if len(best) == 0 || best[0].Power < pk.Power {
		return pk
	}
	return best[0]
}

// Star reads star id of set and analyses it with up to workers goroutines. A star of a hidden set is refused
// (workspace.ErrHiddenStar) before anything of it is read.
func Star(set *sets.Set, id string, workers int) (*Analysis, error) {
	c, star, err := readStar(set, id)
	if err != nil {
		return nil, err
	}
	return Analyse(c, star, workers)
}

// PrepareStar reads star id of set and prepares it as Star does (Prepare: flagged, detrended for the star's
// longest duration), without the search: the analysis a front end folds at ephemerides it has (the results
// site's star cache keeps the peaks). A star of a hidden set is refused as Star refuses it.
func PrepareStar(set *sets.Set, id string) (*Analysis, error) {
	c, star, err := readStar(set, id)
	if err != nil {
		return nil, err
	}
	return Prepare(c, star, PrepareOptions{}), nil
}

// readStar reads star id of set, refusing a hidden star before anything of it is read.
func readStar(set *sets.Set, id string) (*lc.LightCurve, *data.Star, error) {
	if workspace.IsHiddenStar(id) || sets.IsHidden(set.Name) || set.Hidden() {
		return nil, nil, fmt.Errorf("star %s of set %s: %w", id, set.Name, workspace.ErrHiddenStar)
	}
	c, star, err := set.Star(id)
	if err != nil {
		return nil, nil, fmt.Errorf("star %s of set %s: %w", id, set.Name, err)
	}
	return c, star, nil
}
