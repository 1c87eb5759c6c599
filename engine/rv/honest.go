package rv

import (
	"math"
	"sort"
)

// Kipping (2013)'s Beta prior on the eccentricities of radial-velocity planets: Beta(KippingA, KippingB).
const (
	KippingA = 0.867
	KippingB = 3.03
	// kippingFloor is where the prior's ln e term is held flat: Beta(0.867, ·) diverges at e = 0 (mildly,
	// e^−0.133), which a least-squares step cannot use; below 0.01 the orbit is circular for any RV data.
	kippingFloor = 0.01
	// kippingShift keeps kippingPenalty + kippingShift > 0, so that its square root is a least-squares residual.
	kippingShift = 2.0
)

// kippingPenalty returns −2 ln Beta(e; KippingA, KippingB) up to a constant (the ln e term held flat below
// kippingFloor): (2 − 2a) ln max(e, 0.01) + (2 − 2b) ln(1 − e). It is −1.2 for a circular orbit, 1.1 at
// e = 0.3 and 12.1 at e = 0.95: a planet must gain 13 in χ² to sit at e = 0.95 rather than on a circle.
func kippingPenalty(e float64) float64 {
	e = math.Min(e, 0.999)
	return (2-2*KippingA)*math.Log(math.Max(e, kippingFloor)) + (2-2*KippingB)*math.Log1p(-e)
}

// kippingSlope is d kippingPenalty / de.
func kippingSlope(e float64) float64 {
	e = math.Min(e, 0.999)
	s := (2*KippingB - 2) / (1 - e)
	if e > kippingFloor {
		s += (2 - 2*KippingA) / e
	}
	return s
}

// kippingNormal adds the prior to the Levenberg–Marquardt normal equations as one extra residual per planet,
// ρ = √(kippingPenalty(e) + kippingShift) with e = |(h, k)|: g += ρ ∇ρ and a += ∇ρ ∇ρᵀ on its (h, k) block
// (the Gauss–Newton form, positive semi-definite).
func (f *fitter) kippingNormal(theta []float64) {
	m := 5 * f.np
	for j := range f.np {
		h, k := theta[5*j+2], theta[5*j+3]
		e := math.Hypot(h, k)
		if e < 1e-9 {
			continue
		}
		rho := math.Sqrt(math.Max(kippingPenalty(e)+kippingShift, 1e-9))
		ds := kippingSlope(e) / (2 * rho)
		grad := [2]float64{ds * h / e, ds * k / e}
		idx := [2]int{5*j + 2, 5*j + 3}
		for a := range 2 {
			f.g[idx[a]] += rho * grad[a]
			for b := 0; b <= a; b++ {
				f.a[idx[a]*m+idx[b]] += grad[a] * grad[b]
			}
		}
	}
}

// EvaluateInst is Evaluate with one jitter per instrument (jitters indexed as d.Instruments).
func (d *Data) EvaluateInst(model, jitters []float64) Eval {
	n := d.Len()
	ev := Eval{Offsets: make([]float64, len(d.Instruments)), Residuals: make([]float64, n)}
	sw := make([]float64, len(d.Instruments))
	v := make([]float64, n)
	for i := range n {
		r := d.RVs[i]
		if model != nil {
			r -= model[i]
		}
		s := jitters[d.Inst[i]]
		v[i] = d.Sigmas[i]*d.Sigmas[i] + s*s
		ev.Residuals[i] = r
		ev.Offsets[d.Inst[i]] += r / v[i]
		sw[d.Inst[i]] += 1 / v[i]
	}
	ev.removeOffsets(d, sw, func(i int) float64 { return v[i] })
	return ev
}

// bestInstJitter returns, for a fixed model, each instrument's jitter of greatest likelihood (the offsets
// profiled). The likelihood is a sum over instruments, each term depending on its own offset and jitter only,
// so each is a one-dimensional golden-section search on √s over [0, √(3 · max(σ, RMS))] of its points. On a
// sparse series each is held at its instrument's median quoted error or above (jitterFloor).
func bestInstJitter(d *Data, model []float64) []float64 {
	out := make([]float64, len(d.Instruments))
	for k := range d.Instruments {
		var r, s []float64
		for i := range d.Times {
			if d.Inst[i] == k {
				x := d.RVs[i]
				if model != nil {
					x -= model[i]
				}
				r, s = append(r, x), append(s, d.Sigmas[i])
			}
		}
		out[k] = math.Max(jitterOf(r, s), jitterFloor(d.Len(), s))
	}
	return out
}

// jitterOf maximises the likelihood of residuals r (errors s, one free offset) over a jitter.
func jitterOf(r, s []float64) float64 {
	negLnL := func(x float64) float64 {
		j2 := x * x * x * x
		var sw, swr float64
		for i := range r {
			w := 1 / (s[i]*s[i] + j2)
			sw += w
			swr += w * r[i]
		}
		mu := swr / sw
		l := 0.0
		for i := range r {
			v := s[i]*s[i] + j2
			l += (r[i]-mu)*(r[i]-mu)/v + math.Log(v)
		}
		return l
	}
	hi := 0.0
	mean := 0.0
	for i := range r {
		hi = math.Max(hi, s[i])
		mean += r[i] / float64(len(r))
	}
	for i := range r {
		hi = math.Max(hi, math.Abs(r[i]-mean))
	}
	return minJitter(negLnL, hi, 50)
}

// effectiveSigmas returns √(σ_i² + s_k²) for every point, s_k its instrument's jitter.
func effectiveSigmas(d *Data, jitters []float64) []float64 {
	out := make([]float64, d.Len())
	for i, s := range d.Sigmas {
		j := jitters[d.Inst[i]]
		out[i] = math.Sqrt(s*s + j*j)
	}
	return out
}

// honestObjective is what the honest search minimises and compares: −2 lnL (per-instrument jitters and offsets
// in the likelihood) plus the eccentricity prior's penalty of every planet.
func honestObjective(f *FitResult) float64 {
	o := -2 * f.LnL
	for _, p := range f.Planets {
		o += kippingPenalty(p.E)
	}
	return o
}

// sortByObjective orders fits by honestObjective, best first.
func sortByObjective(fits []*FitResult) {
	sort.SliceStable(fits, func(a, b int) bool { return honestObjective(fits[a]) < honestObjective(fits[b]) })
}

// EmpiricalFAP returns the false-alarm probability of the highest peak of a GLS periodogram (power over a
// uniform frequency grid sampled samplesPerPeak times per peak width) from the periodogram's own distribution,
// as Howard & Fulton (2016) and Rosenthal et al. (2021) calibrate theirs: with z = −ln(1 − p), the fraction
// S(z) of grid frequencies reaching z is fitted by ln S = a + b z between the 50th and 95th percentiles of z,
// and extrapolated to the highest peak; FAP = 1 − (1 − S)^M with M = len(power)/samplesPerPeak independent
// frequencies. Under white noise ln S falls with slope −(N − 3)/2, as the analytic FAP assumes; residuals that
// hold unmodelled correlated noise raise the whole periodogram, flatten the slope and so the FAP of a given
// peak rises. It returns 1 when the periodogram is too short or flat to fit.
func EmpiricalFAP(power []float64, samplesPerPeak int) float64 {
	n := len(power)
	if n < 40 || samplesPerPeak < 1 {
		return 1
	}
	z := make([]float64, n)
	for i, p := range power {
		z[i] = -math.Log1p(-math.Min(math.Max(p, 0), 1-1e-15))
	}
	sort.Float64s(z)
	lo, hi := n/2, n*95/100
	var sx, sy, sxx, sxy, m float64
	for i := lo; i < hi; i++ {
		x, y := z[i], math.Log(float64(n-i)/float64(n))
		sx, sy, sxx, sxy, m = sx+x, sy+y, sxx+x*x, sxy+x*y, m+1
	}
	den := m*sxx - sx*sx
	if m < 3 || den <= 0 {
		return 1
	}
	b := (m*sxy - sx*sy) / den
	a := (sy - b*sx) / m
	if b >= 0 {
		return 1
	}
	s := math.Exp(a + b*z[n-1])
	M := math.Max(1, float64(n)/float64(samplesPerPeak))
	return -math.Expm1(M * math.Log1p(-math.Min(s, 1)))
}
