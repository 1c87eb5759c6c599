package multi

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"transitbench/engine/bls"
	"transitbench/engine/vet"
)

// Mask is the transits of one known planet: a period and a mid-transit time (days) and the full width of the
// window masked around each transit (days).
type Mask struct {
	PeriodDays float64 `json:"period_days"`
	T0Days     float64 `json:"t0_days"`
	WindowDays float64 `json:"window_days"`
}

// Check returns an error when the mask is not a positive period with a positive window shorter than it and a
// finite mid-time.
func (m Mask) Check() error {
	if !(m.PeriodDays > 0) || math.IsInf(m.PeriodDays, 0) || !(m.WindowDays > 0) || !(m.WindowDays < m.PeriodDays) ||
		math.IsNaN(m.T0Days) || math.IsInf(m.T0Days, 0) {
		return fmt.Errorf("%w: period %g d, t0 %g, window %g d (want period > window > 0)", ErrBadMask, m.PeriodDays, m.T0Days, m.WindowDays)
	}
	return nil
}

// ErrBadMask is returned for a mask that Check refuses.
var ErrBadMask = errors.New("multi: invalid mask")

// Masked reports whether time x lies within half a window of a transit of m.
func (m Mask) Masked(x float64) bool {
	return math.Abs(math.Remainder(x-m.T0Days, m.PeriodDays)) <= m.WindowDays/2
}

// Apply returns a copy of y with the cadences (times t) inside any mask's windows set to NaN, which the BLS
// search skips. It panics if len(t) != len(y).
func Apply(t, y []float64, masks []Mask) []float64 {
	if len(t) != len(y) {
		panic("multi: time and flux differ in length")
	}
	out := slices.Clone(y)
	for _, m := range masks {
		for i, x := range t {
			if m.Masked(x) {
				out[i] = math.NaN()
			}
		}
	}
	return out
}

// Defaults of Options.
const (
	// DefaultWindowFactor is the masked window in units of the fitted T14: twice T14 leaves half a T14 on each
	// side for the period's error over the data (a BLS period is good to about a duration over the span) and
	// for the trapezoid's, as TLS masks found planets (Hippke & Heller 2019).
	DefaultWindowFactor = 2.0
	// DefaultMinSNR is the BLS SNR below which the iteration stops: the 7.1 of Kepler's detections.
	DefaultMinSNR = 7.1
)

// Options steer Iterate.
type Options struct {
	// Planets is the most planets to find (at least 1).
	Planets int
	// MinSNR stops the iteration at the first best peak whose strength is below it (0: DefaultMinSNR): its
	// SNR, or Strength's value when Strength is set.
	MinSNR float64
	// Strength, when set, is what the stop rule compares with MinSNR instead of the peak's SNR: for instance
	// the MES measured at the peak with the signals found before it masked (found), which a threshold chosen
	// from its false-alarm rate can be stated in.
	Strength func(pk bls.Peak, found []Planet) float64
	// WindowFactor is the window masked around each found planet's transits, in units of its fitted T14 (0:
	// DefaultWindowFactor).
	WindowFactor float64
	// Masks are known transits masked before the first search.
	Masks []Mask
	// MinTransits is the fewest transits (bls.Peak.NTransits) a peak needs to count as a planet (0:
	// DefaultMinTransits). A stronger peak with fewer — one or two deep events, such as the transits of planets
	// whose periods are longer than the search's — is masked like a planet and returned as Single, so that
	// it does not hide the periodic signals under it.
	MinTransits int
}

// DefaultMinTransits is Options.MinTransits' default: a period needs three transits, as the default BLS grid
// asks (bls.DefaultMinTransits). Two unrelated deep single events (the single transits of two long-period
// planets) pair up at the period between them; Kepler-90's quarters 3–5 show it.
const DefaultMinTransits = 3

// maxSingles bounds the single events Iterate masks, so that a light curve full of glitches ends.
const maxSingles = 10

// Searcher searches the flux y (NaN: masked) at the caller's times and returns its peaks, strongest first.
type Searcher func(y []float64) ([]bls.Peak, error)

// Planet is one signal the iteration found: the search's peak, the trapezoid fitted to it on the flux with
// the earlier signals masked (Fit.T14Days is 0 when the fit failed; the mask then uses the box's duration),
// the mask its transits got, and Next, the peaks of the same search after the strongest (what was competing).
// Single is true for a peak with fewer than Options.MinTransits transits (a few deep events), masked but not
// counted as a planet.
type Planet struct {
	Peak   bls.Peak
	Fit    vet.Trapezoid
	Mask   Mask
	Next   []bls.Peak
	Single bool
}

// Iterate masks opt.Masks in the flux flat (detrended, at times t), then repeats: search; stop when there is no
// peak or its strength (SNR, or opt.Strength) is below opt.MinSNR; fit its T14 (vet.FitTrapezoid at the peak) and mask its transits over
// opt.WindowFactor × T14; until opt.Planets planets are found. It returns the signals in the order found, the
// single events (Planet.Single) among them (at most 10; the stopping peak is not one), and the first search
// error. A search that fails because too little is left
// unmasked ends the iteration without error when some planets were found.
func Iterate(t, flat []float64, search Searcher, opt Options) ([]Planet, error) {
	if len(t) != len(flat) {
		return nil, errors.New("multi: time and flux differ in length")
	}
	if opt.Planets < 1 {
		return nil, fmt.Errorf("multi: %d planets asked for; ask for at least 1", opt.Planets)
	}
	for _, m := range opt.Masks {
		if err := m.Check(); err != nil {
			return nil, err
		}
	}
	minSNR, factor := opt.MinSNR, opt.WindowFactor
	if minSNR == 0 {
		minSNR = DefaultMinSNR
	}
	if factor <= 0 {
		factor = DefaultWindowFactor
	}
	minTransits := opt.MinTransits
	if minTransits <= 0 {
		minTransits = DefaultMinTransits
	}
	y := Apply(t, flat, opt.Masks)
	var found []Planet
	for planets, singles := 0, 0; planets < opt.Planets && singles <= maxSingles; {
		peaks, err := search(y)
		if err != nil {
			if len(found) > 0 && (errors.Is(err, bls.ErrTooFewPoints) || errors.Is(err, bls.ErrSpanTooShort)) {
				return found, nil
			}
			return found, err
		}
		if len(peaks) == 0 {
			return found, nil
		}
		strength := peaks[0].SNR
		if opt.Strength != nil {
			strength = opt.Strength(peaks[0], found)
		}
		if !(strength >= minSNR) {
			return found, nil
		}
		pk := peaks[0]
		p := Planet{Peak: pk, Fit: vet.FitTrapezoid(t, y, pk.PeriodDays, pk.T0Days, pk.DurationDays), Next: peaks[1:],
			Single: pk.NTransits < minTransits}
		if p.Single {
			singles++
		} else {
			planets++
		}
		t14 := pk.DurationDays
		if p.Fit.T14Days > 0 {
			t14 = p.Fit.T14Days
		}
		p.Mask = Mask{PeriodDays: pk.PeriodDays, T0Days: pk.T0Days + p.Fit.OffsetDays,
			WindowDays: math.Min(factor*t14, 0.5*pk.PeriodDays)}
		found = append(found, p)
		y = Apply(t, y, []Mask{p.Mask})
	}
	return found, nil
}
