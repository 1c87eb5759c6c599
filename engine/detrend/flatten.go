package detrend

import (
	"math"
	"slices"

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
	// Mask, when not nil, has one entry per cadence: a cadence marked true never contributes to a window's
	// location (as a clipped one), yet gets a trend and a flat value like every other. Masking a candidate's
	// transits this way is how its depth, MES and vetting statistics are measured (as Kepler's DV re-detrends
	// with the transits excluded): the trend runs under the transit from the flux around it, and the depth is
	// not eaten whatever the window. A mask of another length panics.
	Mask []bool
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
	if opt.Mask != nil {
		if len(opt.Mask) != len(t) {
			panic("detrend: Options.Mask and t differ in length")
		}
		use = make([]bool, len(t))
		s.clipped = make([]bool, len(t))
		for i := range t {
			use[i] = !opt.Mask[i]
			s.clipped[i] = opt.Mask[i]
		}
	}
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
		if s.clipped == nil {
			s.clipped = make([]bool, len(t))
		}
		if s.clip(use, f, trend, opt.ClipSigma) == 0 {
			break
		}
		s.markDirty(t, use, opt.WindowDays/2)
	}
	if opt.Mask != nil {
		bridgeMasked(trend, flat, t, f, opt.Mask, use, s.order, opt.WindowDays/2, opt.GapDays)
	}
	return flat, trend
}

// bridgeMasked replaces the trend over each run of masked cadences (consecutive in time, no gap longer than
// gapDays inside) by a quadratic in time fitted to the used cadences within reach days before and after the run
// in the same segment, with one round of 3σ clipping; a linear fit when one side holds fewer than minSide
// cadences, and the biweight's trend when both do. The running location is a constant fit: under a masked
// transit it takes the mean level of the flux on both sides, which misses the curvature of spot modulation by
// about half the curvature times the masked half-width squared; the quadratic follows it.
func bridgeMasked(trend, flat, t, f []float64, mask, use []bool, order []int, reach, gapDays float64) {
	const minSide = 5
	var xs, ys []float64
	for a := 0; a < len(order); {
		if !mask[order[a]] {
			a++
			continue
		}
		b := a + 1
		for b < len(order) && mask[order[b]] && t[order[b]]-t[order[b-1]] <= gapDays {
			b++
		}
		lo, hi := t[order[a]], t[order[b-1]]
		mid := (lo + hi) / 2
		xs, ys = xs[:0], ys[:0]
		before, after := 0, 0
		for k := a - 1; k >= 0 && t[order[k]] >= lo-reach && t[order[k+1]]-t[order[k]] <= gapDays; k-- {
			if i := order[k]; use[i] && !mask[i] {
				xs, ys = append(xs, t[i]-mid), append(ys, f[i])
				before++
			}
		}
		for k := b; k < len(order) && t[order[k]] <= hi+reach && t[order[k]]-t[order[k-1]] <= gapDays; k++ {
			if i := order[k]; use[i] && !mask[i] {
				xs, ys = append(xs, t[i]-mid), append(ys, f[i])
				after++
			}
		}
		deg := 2
		if before < minSide || after < minSide {
			deg = 1
		}
		if before+after >= 2*minSide {
			if c, ok := robustPoly(xs, ys, deg); ok {
				for k := a; k < b; k++ {
					i := order[k]
					x := t[i] - mid
					trend[i] = c[0] + x*(c[1]+x*c[2])
					flat[i] = f[i] / trend[i]
				}
			}
		}
		a = b
	}
}

// robustPoly fits y ≈ c0 + c1·x + c2·x² (c2 = 0 for deg 1) by least squares, drops the points more than 3
// robust σ (1.4826·MAD of the residuals) away and fits again. ok is false when the system is singular.
func robustPoly(x, y []float64, deg int) (c [3]float64, ok bool) {
	w := make([]float64, len(x))
	for i := range w {
		w[i] = 1
	}
	for round := 0; round < 2; round++ {
		if c, ok = weightedPoly(x, y, w, deg); !ok {
			return c, false
		}
		res := make([]float64, len(x))
		for i := range x {
			res[i] = math.Abs(y[i] - (c[0] + x[i]*(c[1]+x[i]*c[2])))
		}
		sigma := stat.MADToSigma4 * stat.Median(slices.Clone(res))
		for i := range x {
			w[i] = 0
			if res[i] <= 3*sigma {
				w[i] = 1
			}
		}
	}
	return c, ok
}

// weightedPoly solves the weighted normal equations of a polynomial of degree deg (1 or 2) by Gaussian
// elimination with partial pivoting.
func weightedPoly(x, y, w []float64, deg int) (c [3]float64, ok bool) {
	n := deg + 1
	var a [3][4]float64
	for i := range x {
		if w[i] == 0 {
			continue
		}
		p := [3]float64{1, x[i], x[i] * x[i]}
		for r := 0; r < n; r++ {
			for q := 0; q < n; q++ {
				a[r][q] += w[i] * p[r] * p[q]
			}
			a[r][n] += w[i] * p[r] * y[i]
		}
	}
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		if a[piv][col] == 0 {
			return c, false
		}
		a[col], a[piv] = a[piv], a[col]
		for r := 0; r < n; r++ {
			if r == col {
				continue
			}
			m := a[r][col] / a[col][col]
			for q := col; q <= n; q++ {
				a[r][q] -= m * a[col][q]
			}
		}
	}
	for r := 0; r < n; r++ {
		c[r] = a[r][n] / a[r][r]
	}
	return c, true
}

// markDirty sets s.dirty for the next pass: the cadences whose window holds a cadence clipped in this round
// (use false but not yet recorded in s.clipped). Windows never cross gaps, so marking by time distance alone
// can only mark more than needed, never less.
func (s *scratch) markDirty(t []float64, use []bool, half float64) {
	if s.dirty == nil {
		s.dirty = make([]bool, len(t))
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
