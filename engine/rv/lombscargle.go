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
	sC := make([]float64, nf)
	sS := make([]float64, nf)
	sYC := make([]float64, nf)
	sYS := make([]float64, nf)
	sCC := make([]float64, nf)
	sCS := make([]float64, nf)
	f0 := freq[0]
	df := 0.0
	if nf > 1 {
		df = freq[1] - freq[0]
	}
	t0 := t[0]
	for i := range t {
		w := 1 / (dy[i] * dy[i]) / W
		wy := w * y[i]
		tt := t[i] - t0
		s, c := math.Sincos(2 * math.Pi * f0 * tt)
		ds, dc := math.Sincos(2 * math.Pi * df * tt)
		for k := range nf {
			sC[k] += w * c
			sS[k] += w * s
			sYC[k] += wy * c
			sYS[k] += wy * s
			sCC[k] += w * c * c
			sCS[k] += w * c * s
			// Rotate (c, s) by the frequency step; renormalise now and then against drift.
			c, s = c*dc-s*ds, s*dc+c*ds
			if k&1023 == 1023 {
				s, c = math.Sincos(2 * math.Pi * (f0 + float64(k+1)*df) * tt)
			}
		}
	}
	for k := range nf {
		C, S := sC[k], sS[k]
		YC := sYC[k] - Y*C
		YS := sYS[k] - Y*S
		CC := sCC[k] - C*C
		SS := (1 - sCC[k]) - S*S // Σ w sin² = 1 − Σ w cos²
		CS := sCS[k] - C*S
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
	var out []Peak
	for _, i := range cand {
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
