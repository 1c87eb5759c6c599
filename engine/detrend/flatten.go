package detrend

import (
	"math"

	"transitbench/engine/stat"
)

// DefaultMaxDurationDays is the longest transit duration, in days (12 h), that Flatten protects when
// Options.WindowDays is zero: the default window is WindowFor(DefaultMaxDurationDays) = 1.5 d.
const DefaultMaxDurationDays = 0.5

// Defaults of the sigma clipping in Flatten.
const (
	DefaultClipSigma      = 3.0
	DefaultClipIterations = 3
)

// WindowFor returns the biweight window, in days, that keeps transits up to maxDurationDays long:
// three times the duration, the choice Hippke et al. (2019, AJ 158, 143, §3.3) recommend as the
// compromise between preserving the transit depth and following stellar variability.
func WindowFor(maxDurationDays float64) float64 { return 3 * maxDurationDays }

// Options configures Flatten. The zero value gives the documented defaults.
type Options struct {
	// WindowDays is the full width of the biweight window in days; 0 means WindowFor(DefaultMaxDurationDays).
	WindowDays float64
	// GapDays splits the light curve into segments at gaps longer than this, in days; 0 means DefaultGapDays.
	GapDays float64
	// ClipSigma is the clipping threshold in robust standard deviations of the cadence's own window
	// (1.4826·MAD of the flux in the window); 0 means DefaultClipSigma. Both sides are clipped (transits and
	// flares).
	ClipSigma float64
	// ClipIterations is the largest number of clip-and-refit rounds; 0 means DefaultClipIterations and a
	// negative value disables clipping (a single biweight pass).
	ClipIterations int
}

func (o Options) withDefaults() Options {
	if o.WindowDays <= 0 {
		o.WindowDays = WindowFor(DefaultMaxDurationDays)
	}
	if o.GapDays <= 0 {
		o.GapDays = DefaultGapDays
	}
	if o.ClipSigma <= 0 {
		o.ClipSigma = DefaultClipSigma
	}
	if o.ClipIterations == 0 {
		o.ClipIterations = DefaultClipIterations
	}
	return o
}

// Flatten removes the trend of f: flat[i] = f[i] / trend[i], where trend is the running biweight of Biweight
// (window opt.WindowDays, segments split at gaps longer than opt.GapDays). After each pass, the cadences with
// |f − trend| > ClipSigma·σ, σ = 1.4826·MAD of the flux in their own window, stop contributing to the trend,
// and the trend is computed again where a window lost a cadence, until no new cadence is clipped or
// ClipIterations rounds have run. Measuring σ per window makes the clipping follow the local scatter: a slow
// bias of the trend, as at a segment end on a steep slope, stays well inside it and cannot start a cascade
// of clips. Clipping only shields the trend from transits, flares and outliers: every cadence with finite
// time and flux gets a trend and a flat value (a clipped cadence takes the location of its neighbours'
// window, or an interpolation when its window holds no unclipped cadence). NaN or infinite inputs give NaN
// outputs. Flux is expected to be positive and near 1 (relative flux); for zero-mean flux subtract the trend
// instead of dividing.
func Flatten(t, f []float64, opt Options) (flat, trend []float64) {
	opt = opt.withDefaults()
	trend = make([]float64, len(t))
	flat = make([]float64, len(t))
	var s scratch
	var use []bool
	for it := 0; ; it++ {
		s.trend(trend, t, f, use, opt.WindowDays, opt.GapDays)
		for i := range f {
			flat[i] = f[i] / trend[i]
		}
		if it >= opt.ClipIterations {
			break
		}
		if use == nil {
			use = make([]bool, len(t))
			for _, i := range s.order {
				use[i] = true
			}
		}
		if s.clip(use, f, trend, opt.ClipSigma) == 0 {
			break
		}
		s.markDirty(t, use, opt.WindowDays/2)
	}
	return flat, trend
}

// markDirty sets s.dirty for the next pass: the cadences whose window holds a cadence clipped in this round
// (use false but not yet recorded in s.clipped). Windows never cross gaps, so marking by time distance alone
// can only mark more than needed, never less.
func (s *scratch) markDirty(t []float64, use []bool, half float64) {
	if s.dirty == nil {
		s.dirty = make([]bool, len(t))
		s.clipped = make([]bool, len(t))
	}
	clear(s.dirty)
	// Sweep the cadences in time order keeping the times of newly clipped cadences within ±half.
	lo, hi := 0, 0
	var newly []float64 // times of newly clipped cadences, in time order
	for _, i := range s.order {
		if !use[i] && !s.clipped[i] {
			s.clipped[i] = true
			newly = append(newly, t[i])
		}
	}
	for _, i := range s.order {
		for hi < len(newly) && newly[hi] <= t[i]+half {
			hi++
		}
		for lo < hi && newly[lo] < t[i]-half {
			lo++
		}
		s.dirty[i] = hi > lo
	}
}

// clip marks as unused every used cadence whose flux lies more than k robust standard deviations of its
// window (1.4826·MAD) from its trend, and returns how many it marked.
func (s *scratch) clip(use []bool, f, trend []float64, k float64) int {
	n := 0
	for i, u := range use {
		if u && math.Abs(f[i]-trend[i]) > k*stat.MADToSigma4*s.mad[i] {
			use[i] = false
			n++
		}
	}
	return n
}
