package sim

import (
	"math"
	"slices"
	"strconv"
)

// meter measures noise on a star's planet-free flux the way SPEC A4 defines MES: the flux is detrended
// (a running Tukey biweight location, split at gaps) and σ_D is engine/noise's SigmaD of the detrended flux. It
// keeps the valid cadences only.
type meter struct {
	t, flat []float64 // valid cadences: time (BKJD days) and detrended relative flux (median ≈ 1)
	window  float64   // detrending window, days
	cad     float64   // the cadence as engine/noise finds it: the median spacing of t
	cache   map[float64]float64

	// scratch buffers
	model, tv, fv, work []float64
}

// gapDays splits the light curve into segments at gaps longer than this (days) for detrending.
const gapDays = 0.5

// newMeter detrends the valid cadences of flux with a biweight window of max(MinWindowDays, WindowDurations ×
// 12 h) (the longest duration measured is CDPP's 12 h).
func newMeter(cal *calendar, flux []float64, k *Knobs) *meter {
	var t, f []float64
	for i := range cal.time {
		if cal.valid(i) && !math.IsNaN(flux[i]) {
			t = append(t, cal.time[i])
			f = append(f, flux[i])
		}
	}
	return meterFrom(t, f, k)
}

// meterFrom returns the meter of valid cadences at times t (sorted) with flux f.
func meterFrom(t, f []float64, k *Knobs) *meter {
	m := &meter{t: t, cache: map[float64]float64{}}
	m.window = math.Max(k.Measure.MinWindowDays, k.Measure.WindowDurations*0.5)
	trend := biweightTrend(m.t, f, m.window)
	m.flat = make([]float64, len(f))
	for i := range f {
		m.flat[i] = f[i] / trend[i]
	}
	m.init()
	return m
}

// init measures the cadence and allocates the scratch buffers.
func (m *meter) init() {
	n := len(m.t)
	m.model = make([]float64, n)
	m.tv = make([]float64, 0, n)
	m.fv = make([]float64, 0, n)
	m.work = make([]float64, 0, n+1)
	if n > 1 {
		d := m.work[:n-1]
		for i := range d {
			d[i] = m.t[i+1] - m.t[i]
		}
		m.cad = medianSelect(d)
	}
}

// sigmaD returns σ_D of the meter's flux over windows of durationDays (as engine/noise.SigmaD), cached.
func (m *meter) sigmaD(durationDays float64) float64 {
	if v, ok := m.cache[durationDays]; ok {
		return v
	}
	s := m.sigmaDOf(m.t, m.flat, durationDays)
	m.cache[durationDays] = s
	return s
}

// sigmaDOf computes engine/noise.SigmaD(tv, fv, durationDays) for finite, sorted tv and finite fv, with the
// meter's cadence and selection instead of sorting (the same value, several times faster):
// m = max(1, round(D/c)) cadences per window, windows [tᵢ, tᵢ + (m − ½)c) with at least ⌈m/2⌉ cadences,
// σ_D = 1.4826 · MAD of the window means of f − median(f); NaN with fewer than 10 windows.
func (m *meter) sigmaDOf(tv, fv []float64, durationDays float64) float64 {
	const madToSigma = 1.482602218505602 // as engine/noise
	if len(tv) < 2 || !(durationDays > 0) {
		return math.NaN()
	}
	c := m.cad
	nw := max(1, int(math.Round(durationDays/c)))
	span := (float64(nw) - 0.5) * c
	need := (nw + 1) / 2
	w := append(m.work[:0], fv...)
	med := medianSelect(w)
	cum := append(m.work[:0], 0)
	for i, f := range fv {
		cum = append(cum, cum[i]+(f-med))
	}
	means := make([]float64, 0, len(tv))
	j := 0
	for i := range tv {
		for j < len(tv) && tv[j] < tv[i]+span {
			j++
		}
		if n := j - i; n >= need {
			means = append(means, (cum[j]-cum[i])/float64(n))
		}
	}
	if len(means) < 10 {
		return math.NaN()
	}
	mm := medianSelect(means)
	for i := range means {
		means[i] = math.Abs(means[i] - mm)
	}
	return madToSigma * medianSelect(means)
}

// cdppTable returns CDPP at 3, 6 and 12 h in ppm (engine/noise.CDPP, σ_D(h) × 10⁶), rounded to 0.1 ppm, keyed
// as star.json wants.
func (m *meter) cdppTable() map[string]float64 {
	out := map[string]float64{}
	for _, h := range []float64{3, 6, 12} {
		out[strconv.FormatFloat(h, 'f', 1, 64)] = round(m.sigmaD(h/24)*1e6, 1)
	}
	return out
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
	loc := medianSelect(x)
	d := (*dev)[:0]
	for _, v := range x {
		d = append(d, math.Abs(v-loc))
	}
	mad := medianSelect(d)
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

// newRawMeter is a meter on the undetrended flux: each quarter divided by its median. Its σ_D keeps
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
			m.flat[i] /= med
		}
		s = e
	}
	m.init()
	return m
}
