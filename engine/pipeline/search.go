package pipeline

import (
	"errors"
	"math"
	"sort"

	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/stat"
	"transitbench/engine/transit"
)

// Star is what a pipeline may know about the host star (star.json); a zero field means unknown.
type Star struct {
	RadiusRsun float64
	MassMsun   float64
	Teff       float64
	Logg       float64
}

// Row is one output line of a pipeline: a candidate's period and a mid-transit time (days, the light curve's
// time system) and its score (higher is more confident).
type Row struct {
	PeriodDays float64
	T0Days     float64
	Score      float64
}

// ErrTooFewCadences is returned when a light curve has too few valid cadences to search.
var ErrTooFewCadences = errors.New("pipeline: too few valid cadences to search (need 100)")

// minCadences is the smallest number of valid cadences a pipeline searches.
const minCadences = 100

// Light is a light curve prepared for searching: the valid cadences (finite time and flux, no bit of
// SearchQualityMask) in time order, their flux divided by its median (Flux) with its errors (Err), the flux
// detrended by a time-windowed biweight of WindowDays (Flat = Flux/trend) and the flux errors divided alike, and
// the mid-times of the reaction-wheel desaturations (runs of cadences flagged lc.QDesaturation, which the mask
// drops).
type Light struct {
	T, Flux, Err, Flat, FlatErr []float64
	DesatTimes                  []float64
	// WindowDays is the biweight window Flat was detrended with (DetrendWindowDays, or ForStar's).
	WindowDays float64
}

// SearchQualityMask drops what lc.DefaultQualityMask drops and also the cadences flagged as impulsive outliers
// (lc.QImpulsiveOutlier): a single deep outlier otherwise makes BLS peaks at every period that puts one box on it.
const SearchQualityMask = lc.DefaultQualityMask | lc.QImpulsiveOutlier

// DetrendWindowDays is the biweight window of Prepare: detrend.WindowFor(12 h) = 1.5 d, three times the longest
// duration the search tries (Hippke et al. 2019).
var DetrendWindowDays = detrend.WindowFor(detrend.DefaultMaxDurationDays)

// Prepare keeps the valid cadences of c, normalises, detrends and finds the desaturations. Flux errors that
// are missing or not positive are replaced by the light curve's robust point-to-point scatter,
// 1.4826·median|Δf|/√2. It returns ErrTooFewCadences below 100 valid cadences.
func Prepare(c *lc.LightCurve) (*Light, error) {
	l := &Light{}
	var errs []float64
	for i := range c.Time {
		if c.Quality[i]&lc.QDesaturation != 0 && !math.IsNaN(c.Time[i]) {
			if n := len(l.DesatTimes); n > 0 && c.Time[i]-l.DesatTimes[n-1] < 0.1 {
				continue // the same desaturation flags up to a few consecutive cadences
			}
			l.DesatTimes = append(l.DesatTimes, c.Time[i])
		}
		if !c.Good(i, SearchQualityMask) {
			continue
		}
		l.T = append(l.T, c.Time[i])
		l.Flux = append(l.Flux, c.Flux[i])
		errs = append(errs, c.FluxErr[i])
	}
	if len(l.T) < minCadences {
		return nil, ErrTooFewCadences
	}
	if !sort.Float64sAreSorted(l.T) {
		return nil, errors.New("pipeline: times are not sorted")
	}
	med := median(l.Flux)
	diffs := make([]float64, 0, len(l.Flux))
	for i := range l.Flux {
		l.Flux[i] /= med
		errs[i] /= med
		if i > 0 {
			diffs = append(diffs, math.Abs(l.Flux[i]-l.Flux[i-1]))
		}
	}
	fill := stat.MADToSigma4 * median(diffs) / math.Sqrt2
	for i, e := range errs {
		if !(e > 0) || math.IsInf(e, 0) {
			errs[i] = fill
		}
	}
	l.Err = errs
	l.flatten(DetrendWindowDays)
	return l, nil
}

// flatten detrends l.Flux with a biweight window of windowDays into l.Flat and l.FlatErr.
func (l *Light) flatten(windowDays float64) {
	flat, trend := detrend.Flatten(l.T, l.Flux, detrend.Options{WindowDays: windowDays})
	l.Flat, l.WindowDays = flat, windowDays
	l.FlatErr = make([]float64, len(l.Err))
	for i := range l.Err {
		l.FlatErr[i] = l.Err[i] / trend[i]
	}
}

// ForStar returns l detrended for the star's search: when the longest duration searched for the star
// (SearchMaxDurationDays) is above 12 h, Flat is recomputed with the window detrend.WindowFor of it, so that
// the detrending keeps every duration the search tries (Hippke et al. 2019); otherwise l itself.
func (l *Light) ForStar(star Star) *Light {
	w := detrend.WindowFor(SearchMaxDurationDays(star, l.span()))
	if w <= l.WindowDays {
		return l
	}
	out := *l
	out.flatten(w)
	return &out
}

// span returns the time span of l in days.
func (l *Light) span() float64 {
	if len(l.T) < 2 {
		return 0
	}
	return l.T[len(l.T)-1] - l.T[0]
}

// SearchMaxDurationDays is the longest transit duration the search tries for the star: bls's default 12 h, or
// for a star whose catalogue density makes longer transits possible, 1.4 × the central-transit T14 of a planet
// with Rp/R★ = 0.1 at the longest period searched (a third of the span), up to 1 d. The factor 1.4 covers a
// catalogue density 2.7 times too high (a KIC-like log g 0.3 dex off: T14 ∝ ρ^(−1/3), 2.7^(1/3) = 1.4). An
// unknown star gets 12 h.
func SearchMaxDurationDays(star Star, spanDays float64) float64 {
	const longest = 1.0
	d := bls.DefaultDurMaxDays
	if star.RadiusRsun > 0 && star.MassMsun > 0 && spanDays > 0 {
		p := spanDays / bls.DefaultMinTransits
		if t14 := transit.DurationT14(p, transit.ARs(p, star.MassMsun, star.RadiusRsun), 0.1, 0); t14 > 0 {
			d = math.Max(d, math.Min(1.4*t14, longest))
		}
	}
	return d
}

// Grid choices of the search: Ofir's period sampling at oversampling SearchOversample for the star's radius
// and mass, periods from 0.5 d to a third of the span (three transits), durations 0.5 h to
// SearchMaxDurationDays (12 h for most stars) in steps of the
// ratio SearchDurationStep inside the physical window of bls.DefaultGrid. Oversampling 2 keeps a transit's
// phase drift over the year under half its duration (Ofir 2014); a duration step of 1.4 keeps a matched
// box's SNR within (1.4)^(−1/4) = 92 %. Both are coarser than the engine's defaults (3, 1.25), which makes the
// search about twice as fast, for a loss of a few per cent of SNR.
const (
	SearchOversample   = 2.0
	SearchDurationStep = 1.4
)

// Search runs the BLS search (SNR objective, grid as above) on the prepared light curve, detrended for the star
// (ForStar), and returns up to k distinct peaks, strongest first (bls.Result.Peaks: aliases of stronger peaks
// removed).
func (l *Light) Search(star Star, k int) ([]bls.Peak, error) {
	res, err := l.ForStar(star).periodogram(star)
	if err != nil || res == nil {
		return nil, err
	}
	return res.Peaks(k), nil
}

// periodogram runs the search of Search and returns the whole periodogram (nil when the grid is empty).
func (l *Light) periodogram(star Star) (*bls.Result, error) {
	g, err := bls.DefaultGrid(l.T, bls.GridOptions{RStarRsun: star.RadiusRsun, MStarMsun: star.MassMsun,
		Oversample: SearchOversample, DurStep: SearchDurationStep, DurMaxDays: SearchMaxDurationDays(star, l.span())})
	if err != nil {
		return nil, err
	}
	if len(g.Periods) == 0 {
		return nil, nil
	}
	return bls.Search(l.T, l.Flat, l.FlatErr, g, bls.SNR)
}

// median returns the median of the finite values of x (NaN when there is none), leaving x as it is.
func median(x []float64) float64 {
	s := make([]float64, 0, len(x))
	for _, v := range x {
		if stat.Finite(v) {
			s = append(s, v)
		}
	}
	return stat.Median(s)
}
