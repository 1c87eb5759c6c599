package sim

import (
	"math"
	"slices"
	"strconv"

	"transitbench/engine/lc"
)

// meter measures noise on a star's planet-free flux the way SPEC A4 defines MES: the flux is detrended
// (a running Tukey biweight location, split at gaps) and σ_D is the robust scatter of its mean over windows of
// the transit duration. It keeps the valid cadences only.
type meter struct {
	t, flat   []float64 // valid cadences: time (BKJD days) and detrended relative flux − 1
	window    float64   // detrending window, days
	cache     map[float64]float64
	prefix    []float64 // prefix sums of flat
	segStart  []int     // for each valid cadence, the index of the first cadence of its segment
}

// gapDays splits the light curve into segments at gaps longer than this (days) for detrending and windows.
const gapDays = 0.5

// newMeter detrends the valid cadences of flux with a biweight window of max(MinWindowDays, WindowDurations ×
// 12 h) (the longest duration measured, CDPP's 12 h) and prepares the prefix sums σ_D needs.
func newMeter(cal *calendar, flux []float64, k *Knobs) *meter {
	m := &meter{cache: map[float64]float64{}}
	var f []float64
	for i := range cal.time {
		if cal.valid(i) && !math.IsNaN(flux[i]) {
			m.t = append(m.t, cal.time[i])
			f = append(f, flux[i])
		}
	}
	// Windows long enough to keep the longest transit durations measured (12 h for CDPP).
	m.window = math.Max(k.Measure.MinWindowDays, k.Measure.WindowDurations*0.5)
	trend := biweightTrend(m.t, f, m.window)
	m.flat = make([]float64, len(f))
	m.prefix = make([]float64, len(f)+1)
	m.segStart = make([]int, len(f))
	for i := range f {
		m.flat[i] = f[i]/trend[i] - 1
		m.prefix[i+1] = m.prefix[i] + m.flat[i]
		if i > 0 && m.t[i]-m.t[i-1] <= gapDays {
			m.segStart[i] = m.segStart[i-1]
		} else {
			m.segStart[i] = i
		}
	}
	return m
}

// sigmaD returns σ_D, the scatter of the mean of the detrended flux over windows of durationDays: the window
// starting at every valid cadence that holds at least 75 % of its expected cadences and no gap gives one mean,
// and σ_D = 1.4826 · MAD of those means (robust against the few windows holding outliers).
func (m *meter) sigmaD(durationDays float64) float64 {
	if v, ok := m.cache[durationDays]; ok {
		return v
	}
	expected := durationDays / lc.CadenceDays
	minCount := int(math.Max(1, math.Ceil(0.75*expected)))
	means := make([]float64, 0, len(m.t))
	j := 0
	for i := range m.t {
		if j < i {
			j = i
		}
		for j < len(m.t) && m.t[j] < m.t[i]+durationDays {
			j++
		}
		// Cadences i … j−1 lie in [t_i, t_i + D); the window must not cross a gap.
		if j-i < minCount || m.segStart[j-1] != m.segStart[i] {
			continue
		}
		means = append(means, (m.prefix[j]-m.prefix[i])/float64(j-i))
	}
	s := madSigma(means)
	m.cache[durationDays] = s
	return s
}

// cdppTable returns CDPP at 3, 6 and 12 h in ppm, σ_D(h) × 10⁶, rounded to 0.1 ppm, keyed as star.json wants.
func (m *meter) cdppTable() map[string]float64 {
	out := map[string]float64{}
	for _, h := range []float64{3, 6, 12} {
		out[strconv.FormatFloat(h, 'f', 1, 64)] = round(m.sigmaD(h/24)*1e6, 1)
	}
	return out
}

// madSigma returns 1.4826 · median(|x − median(x)|), the standard deviation of a normal sample estimated
// robustly. It reorders x.
func madSigma(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	slices.Sort(x)
	med := median(x)
	for i := range x {
		x[i] = math.Abs(x[i] - med)
	}
	slices.Sort(x)
	return 1.4826 * median(x)
}

// median returns the median of sorted x.
func median(x []float64) float64 {
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// biweightTrend returns a running Tukey biweight location of f over windows of windowDays, split into
// segments at gaps longer than gapDays. For speed the location is computed at knots spaced windowDays/8 apart
// (and at each segment's ends) and interpolated linearly between them; each knot's location starts at the
// window's median and takes five biweight iterations with c = 5 (in units of the MAD).
func biweightTrend(t, f []float64, windowDays float64) []float64 {
	trend := make([]float64, len(f))
	buf := make([]float64, 0, 256)
	dev := make([]float64, 0, 256)
	for s := 0; s < len(t); {
		e := s + 1
		for e < len(t) && t[e]-t[e-1] <= gapDays {
			e++
		}
		// Segment s … e−1.
		step := windowDays / 8
		var kt, kv []float64
		lo, hi := s, s
		for x := t[s]; ; x += step {
			if x > t[e-1] {
				x = t[e-1]
			}
			for lo < e && t[lo] < x-windowDays/2 {
				lo++
			}
			for hi < e && t[hi] <= x+windowDays/2 {
				hi++
			}
			buf = append(buf[:0], f[lo:hi]...)
			kt = append(kt, x)
			kv = append(kv, biweightLocation(buf, &dev))
			if x == t[e-1] {
				break
			}
		}
		k := 0
		for i := s; i < e; i++ {
			for k+1 < len(kt)-1 && kt[k+1] < t[i] {
				k++
			}
			if len(kt) == 1 {
				trend[i] = kv[0]
				continue
			}
			w := (t[i] - kt[k]) / (kt[k+1] - kt[k])
			trend[i] = kv[k] + w*(kv[k+1]-kv[k])
		}
		s = e
	}
	return trend
}

// biweightLocation returns Tukey's biweight location of x (reordered), c = 5: starting from the median M and
// with the median absolute deviation MAD about it, five iterations of
// loc ← Σ wᵢxᵢ / Σ wᵢ, wᵢ = (1 − uᵢ²)² for |uᵢ| < 1, uᵢ = (xᵢ − loc)/(5·MAD).
func biweightLocation(x []float64, dev *[]float64) float64 {
	slices.Sort(x)
	loc := median(x)
	d := (*dev)[:0]
	for _, v := range x {
		d = append(d, math.Abs(v-loc))
	}
	slices.Sort(d)
	mad := median(d)
	*dev = d
	if mad == 0 {
		return loc
	}
	for range 5 {
		var num, den float64
		for _, v := range x {
			u := (v - loc) / (5 * mad)
			if u*u < 1 {
				w := (1 - u*u) * (1 - u*u)
				num += w * v
				den += w
			}
		}
		if den == 0 {
			return loc
		}
		loc = num / den
	}
	return loc
}

// newRawMeter is a meter on the undetrended flux: each quarter divided by its median, minus 1. Its σ_D keeps
// the slow variability (spots, trends) a detrended meter removes.
func newRawMeter(cal *calendar, flux []float64) *meter {
	m := &meter{cache: map[float64]float64{}}
	var q []int8
	for i := range cal.time {
		if cal.valid(i) && !math.IsNaN(flux[i]) {
			m.t = append(m.t, cal.time[i])
			m.flat = append(m.flat, flux[i])
			q = append(q, cal.quarter[i])
		}
	}
	for s := 0; s < len(q); {
		e := s
		for e < len(q) && q[e] == q[s] {
			e++
		}
		med := median(slices.Sorted(slices.Values(m.flat[s:e])))
		for i := s; i < e; i++ {
			m.flat[i] = m.flat[i]/med - 1
		}
		s = e
	}
	m.prefix = make([]float64, len(m.flat)+1)
	m.segStart = make([]int, len(m.flat))
	for i := range m.flat {
		m.prefix[i+1] = m.prefix[i] + m.flat[i]
		if i > 0 && m.t[i]-m.t[i-1] <= gapDays {
			m.segStart[i] = m.segStart[i-1]
		} else {
			m.segStart[i] = i
		}
	}
	return m
}
