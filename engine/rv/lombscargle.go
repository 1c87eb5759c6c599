package rv

import (
	"math"
	"sort"
)

// FrequencyGrid returns a uniform grid of frequencies (1/day) from 1/maxPeriodDays to 1/minPeriodDays with step
// 1/(samplesPerPeak · span), span = max(t) − min(t): the grid astropy's LombScargle.autopower builds, so every
// peak (width ≈ 1/span) is sampled samplesPerPeak times.
func FrequencyGrid(span, minPeriodDays, maxPeriodDays float64, samplesPerPeak int) []float64 {
	if span <= 0 || minPeriodDays <= 0 || maxPeriodDays <= minPeriodDays || samplesPerPeak < 1 {
		return nil
	}
	df := 1 / (float64(samplesPerPeak) * span)
	fmin, fmax := 1/maxPeriodDays, 1/minPeriodDays
	n := int(math.Floor((fmax-fmin)/df)) + 1
	f := make([]float64, n)
	for i := range f {
		f[i] = fmin + float64(i)*df
	}
	return f
}

// GLS computes the generalised Lomb–Scargle periodogram (Zechmeister & Kürster 2009, eqs. 4–20) of y with
// errors dy at frequencies freq (1/day, uniformly spaced: the sines and cosines are stepped by rotation), into
// dst (allocated when nil or short). With weights w_i = σ_i^−2 / Σσ^−2 and sums over w,
//
//	YY = Σ w y² − Y², YC = Σ w y cos − Y C, YS = Σ w y sin − Y S, CC = Σ w cos² − C², SS = Σ w sin² − S²,
//	CS = Σ w cos sin − C S, p(f) = (SS·YC² + CC·YS² − 2·CS·YC·YS) / (YY · (CC·SS − CS²)),
//
// the fraction of the weighted variance a sinusoid plus offset at f explains (0 ≤ p ≤ 1; astropy's
// "standard" normalisation with fit_mean). Arguments of the trigonometric functions use t − t[0].
func GLS(dst, t, y, dy, freq []float64) []float64 {
	nf := len(freq)
	if cap(dst) < nf {
		dst = make([]float64, nf)
	}
	dst = dst[:nf]
	if nf == 0 || len(t) == 0 {
		return dst
	}
	W, Y, YYs := 0.0, 0.0, 0.0
	for i := range t {
		w := 1 / (dy[i] * dy[i])
		W += w
		Y += w * y[i]
		YYs += w * y[i] * y[i]
	}
	Y /= W
	YY := YYs/W - Y*Y
	// Frequency-major: each point carries its (cos, sin) at the current frequency and its rotation per step.
	n := len(t)
	w := make([]float64, n)
	wy := make([]float64, n)
	c := make([]float64, n)
	s := make([]float64, n)
	dc := make([]float64, n)
	ds := make([]float64, n)
	f0 := freq[0]
	df := 0.0
	if nf > 1 {
		df = freq[1] - freq[0]
	}
	t0 := t[0]
	reset := func(k int) {
		for i := range t {
			s[i], c[i] = math.Sincos(2 * math.Pi * (f0 + float64(k)*df) * (t[i] - t0))
		}
	}
	for i := range t {
		w[i] = 1 / (dy[i] * dy[i]) / W
		wy[i] = w[i] * y[i]
		ds[i], dc[i] = math.Sincos(2 * math.Pi * df * (t[i] - t0))
	}
	reset(0)
	for k := range nf {
		if k > 0 && k&1023 == 0 {
			reset(k) // against drift of the rotation recurrence
		}
		var C, S, YC, YS, CCs, CSs float64
		for i := range c {
			ci, si, wi := c[i], s[i], w[i]
			C += wi * ci
			S += wi * si
			YC += wy[i] * ci
			YS += wy[i] * si
			CCs += wi * ci * ci
			CSs += wi * ci * si
			c[i], s[i] = ci*dc[i]-si*ds[i], si*dc[i]+ci*ds[i]
		}
		YC -= Y * C
		YS -= Y * S
		CC := CCs - C*C
		SS := (1 - CCs) - S*S // Σ w sin² = 1 − Σ w cos²
		CS := CSs - C*S
		D := CC*SS - CS*CS
		p := 0.0
		if D > 0 && YY > 0 {
			p = (SS*YC*YC + CC*YS*YS - 2*CS*YC*YS) / (YY * D)
		}
		dst[k] = p
	}
	return dst
}

// FAP returns the false-alarm probability of a GLS peak of power p in a search over a band of width
// bandwidth (1/day) on n points spanning span days: FAP = 1 − (1 − (1 − p)^((n−3)/2))^M with M = span ·
// bandwidth independent frequencies (Zechmeister & Kürster 2009, eq. 24 and §2.3).
func FAP(p float64, n int, span, bandwidth float64) float64 {
	if p <= 0 {
		return 1
	}
	if p >= 1 || n <= 3 {
		return 0
	}
	single := math.Pow(1-p, float64(n-3)/2)
	M := math.Max(1, span*bandwidth)
	// 1 − (1 − x)^M computed without cancellation for small x.
	return -math.Expm1(M * math.Log1p(-single))
}

// Peak is a local maximum of a periodogram.
type Peak struct {
	PeriodDays float64
	Freq       float64 // 1/day
	Power      float64
}

// TopPeaks returns up to k local maxima of power over freq, strongest first, skipping any whose period lies
// within minLogSep (in ln P) of one already taken.
func TopPeaks(freq, power []float64, k int, minLogSep float64) []Peak {
	var cand []int
	for i := range power {
		if (i == 0 || power[i] >= power[i-1]) && (i == len(power)-1 || power[i] > power[i+1]) {
			cand = append(cand, i)
		}
	}
	sort.Slice(cand, func(a, b int) bool { return power[cand[a]] > power[cand[b]] })
	return separatedPeaks(cand, freq, power, k, minLogSep)
}

// separatedPeaks takes the grid points order names, in that order, skipping any whose period 1/freq lies
// within minLogSep (in ln P) of one already taken, up to k of them.
func separatedPeaks(order []int, freq, power []float64, k int, minLogSep float64) []Peak {
	var out []Peak
	for _, i := range order {
		p := 1 / freq[i]
		ok := true
		for _, q := range out {
			if math.Abs(math.Log(p/q.PeriodDays)) < minLogSep {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, Peak{PeriodDays: p, Freq: freq[i], Power: power[i]})
			if len(out) == k {
				break
			}
		}
	}
	return out
}
