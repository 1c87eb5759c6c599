package vet

import (
	"math"
	"slices"

	"transitbench/engine/noise"
	"transitbench/engine/stat"
)

// Trapezoid is a trapezoid fitted to a folded transit: its total duration T14, ingress fraction
// T12/(T14/2) (0 for a box, 1 for a V), depth (a fraction of the flux) and the offset of its mid-time from the
// t0 it was fitted at (days). A zero T14Days means no fit (too few cadences near the transit).
type Trapezoid struct {
	T14Days         float64 `json:"t14_days"`
	IngressFraction float64 `json:"ingress_fraction"`
	Depth           float64 `json:"depth"`
	OffsetDays      float64 `json:"offset_days"`
}

// FitTrapezoid fits a trapezoid, smoothed by the exposure (one cadence), to the transit of the candidate
// (periodDays, t0Days, durationDays: a search's box, often shorter than T14) on the detrended flux flat (NaN:
// not valid). The fold within ±2 D of the mid-times is binned in D/20-wide bins (the baseline is the median
// flux beyond); the depth is fitted by linear least squares for each shape, weighted by the bins' counts, and
// the shape by a grid: T14 over 0.5–2.5 D, the ingress fraction over 0.02–1 and the mid-time offset over
// ±0.25 D, coarse (steps 0.1 D, 0.1, 0.05 D) then fine around the coarse optimum (0.02 D, 0.02, 0.01 D).
// Unlike Compute's shape fit (T14 within 0.5–1.5 D at the given t0), the range reaches the T14 of a deep
// limb-darkened transit whose best box is much shorter, and a t0 off by a phase bin.
func FitTrapezoid(t, flat []float64, periodDays, t0Days, durationDays float64) Trapezoid {
	var fit Trapezoid
	if len(t) != len(flat) || !(periodDays > 0) || !(durationDays > 0) || !(durationDays < periodDays) {
		return fit
	}
	half := math.Min(2*durationDays, periodDays/2)
	c := newCurve(t, flat, periodDays, t0Days, 2*half-2*noise.CadenceDays(t))
	if c == nil {
		return fit
	}
	const perD = 20
	width := durationDays / perD
	nb := int(2 * half / width)
	sum := make([]float64, nb)
	cnt := make([]float64, nb)
	for i, dt := range c.dt {
		j := int(math.Floor((dt + half) / width))
		if j >= 0 && j < nb {
			sum[j] += c.y[i]
			cnt[j]++
		}
	}
	var xs, ys, ws []float64
	for j := range nb {
		if cnt[j] > 0 {
			xs = append(xs, -half+(float64(j)+0.5)*width)
			ys = append(ys, sum[j]/cnt[j])
			ws = append(ws, cnt[j])
		}
	}
	if len(xs) < 6 {
		return fit
	}
	s := make([]float64, len(xs))
	best := math.Inf(1)
	try := func(tRel, ingress, off float64) {
		if tRel < 0.5-1e-9 || tRel > 2.5+1e-9 || ingress < 0.02-1e-9 || ingress > 1+1e-9 || math.Abs(off) > 0.25+1e-9 {
			return
		}
		total := tRel * durationDays
		depth, chi2, ok := fitTrapezoidDepth(xs, ys, ws, s, off*durationDays, total, ingress, c.cadence)
		if !ok {
			return
		}
		if chi2 < best {
			best = chi2
			fit = Trapezoid{T14Days: total, IngressFraction: ingress, Depth: depth, OffsetDays: off * durationDays}
		}
	}
	for i := 0; i <= 20; i++ {
		for j := 0; j <= 10; j++ {
			for k := -5; k <= 5; k++ {
				try(0.5+0.1*float64(i), math.Max(0.02, 0.1*float64(j)), 0.05*float64(k))
			}
		}
	}
	if math.IsInf(best, 1) {
		return Trapezoid{}
	}
	t1, f1, o1 := fit.T14Days/durationDays, fit.IngressFraction, fit.OffsetDays/durationDays
	for i := -5; i <= 5; i++ {
		for j := -5; j <= 5; j++ {
			for k := -5; k <= 5; k++ {
				try(t1+0.02*float64(i), f1+0.02*float64(j), o1+0.01*float64(k))
			}
		}
	}
	return fit
}

// OddEvenFloor is the systematic floor of a parity's depth in Refine, as a fraction of the transit's depth,
// added in quadrature to its statistical error. Odd and even transits of one planet differ beyond the noise
// by a few parts per thousand to about 1 % of the depth on Kepler data: each parity samples ingress and egress
// at its own phases of the 29.4-min exposure (for P not a whole number of cadences), a trapezoid matches a
// limb-darkened transit only to about 1 % of its depth so that differently sampled transits fit to slightly
// different depths, and the biweight detrending removes a share of a deep transit that depends on its
// neighbourhood (gaps, quarter ends). Measured at the catalogue ephemerides of the five Kepler DV hot Jupiters
// on one year (BKJD 170–540), with outlier transits left out (robustParity), |odd − even| reaches 1.6 % of the
// depth (Kepler-427 b; 0.3–0.7 % on the others) where the statistical error of the difference is 0.3–0.9 %, so
// those differences were 2.6σ without a floor (and up to 7.5σ, Kepler-40 b, before leaving out two transits
// the detrending flattened). A floor of 1.5 % per parity (2.1 % on the difference) keeps them below 1σ; the
// price is that an eclipsing binary folded at twice its period is flagged by odd/even only when its two
// eclipse depths differ by more than about 6 % (3 × 2.1 %); its secondary at the true period still flags it.
const OddEvenFloor = 0.015

// Refined holds the vetting statistics measured at the fitted transit rather than at the search's box: the
// trapezoid fit (its T14 is the reported duration), the secondary eclipse searched with boxes T14 wide whose
// windows stay clear of the primary's full T14, and odd/even as a depth ratio with a systematic floor.
type Refined struct {
	Fit Trapezoid `json:"fit"`
	// DurationDays is the duration the statistics below use: Fit.T14Days, or the given duration without a fit.
	DurationDays float64 `json:"duration_days"`
	// SigmaD is noise.SigmaD at DurationDays with the transits masked.
	SigmaD float64 `json:"sigma_d"`
	// The deepest box of width DurationDays at any phase whose window stays clear of the primary's (centres
	// from DurationDays to P − DurationDays after the fitted mid-time): depth, error, MES (≥ 7.1 is a
	// detection) and phase.
	SecondaryDepth    float64 `json:"secondary_depth"`
	SecondaryDepthErr float64 `json:"secondary_depth_err"`
	SecondaryMES      float64 `json:"secondary_mes"`
	SecondaryPhase    float64 `json:"secondary_phase"`
	// The fitted trapezoid's depth in the odd and in the even transits (Compute's template fit) with their
	// errors: each the statistical error (Features.OddDepth's) and OddEvenFloor × Fit.Depth in quadrature.
	OddDepth     float64 `json:"odd_depth"`
	OddDepthErr  float64 `json:"odd_depth_err"`
	EvenDepth    float64 `json:"even_depth"`
	EvenDepthErr float64 `json:"even_depth_err"`
	// OddEvenRatio = OddDepth / EvenDepth and its error (propagated; 0 and 0 unless both depths are
	// positive); OddEvenSigma = |OddDepth − EvenDepth| / √(OddDepthErr² + EvenDepthErr²), ≥ 3 flags a binary.
	OddEvenRatio    float64 `json:"odd_even_ratio"`
	OddEvenRatioErr float64 `json:"odd_even_ratio_err"`
	OddEvenSigma    float64 `json:"odd_even_sigma"`
	// RejectedTransits counts the whole transits left out of the odd and even depths as outliers (see
	// robustParity).
	RejectedTransits int `json:"rejected_transits"`
}

// Refine fits the transit's trapezoid (FitTrapezoid) at the candidate (the search's period, mid-time and box
// duration) and measures the secondary eclipse and odd/even at the fitted mid-time and T14 (see Refined). It
// is the statistics the vet, bls and fold commands and the star view report beside Compute's; Compute itself
// is unchanged; the learned vetter takes both (engine/pipeline's features).
func Refine(t, flat []float64, periodDays, t0Days, durationDays float64) Refined {
	var r Refined
	if len(t) != len(flat) || !(periodDays > 0) || !(durationDays > 0) {
		return r
	}
	r.Fit = FitTrapezoid(t, flat, periodDays, t0Days, durationDays)
	r.DurationDays = durationDays
	t0 := t0Days
	if r.Fit.T14Days > 0 && r.Fit.T14Days < periodDays/2 {
		r.DurationDays = r.Fit.T14Days
		t0 += r.Fit.OffsetDays
	}
	c := newCurve(t, flat, periodDays, t0, r.DurationDays)
	if c == nil {
		return r
	}
	f := Features{SigmaD: noise.SigmaD(c.t, c.masked(), r.DurationDays)}
	if !(f.SigmaD > 0) {
		return r
	}
	r.SigmaD = f.SigmaD
	c.secondary(&f)
	r.SecondaryDepth, r.SecondaryDepthErr, r.SecondaryMES, r.SecondaryPhase = f.SecondaryDepth, f.SecondaryDepthErr, f.SecondaryMES, f.SecondaryPhase
	if r.Fit.T14Days == 0 {
		return r
	}
	sys := OddEvenFloor * math.Abs(r.Fit.Depth)
	depth, err, rejected, ok := c.robustParity(r.Fit, r.SigmaD)
	if !ok {
		return r
	}
	r.EvenDepth, r.OddDepth, r.RejectedTransits = depth[0], depth[1], rejected
	r.EvenDepthErr = math.Hypot(err[0], sys)
	r.OddDepthErr = math.Hypot(err[1], sys)
	r.OddEvenSigma = math.Abs(r.OddDepth-r.EvenDepth) / math.Hypot(r.OddDepthErr, r.EvenDepthErr)
	if r.OddDepth > 0 && r.EvenDepth > 0 {
		r.OddEvenRatio = r.OddDepth / r.EvenDepth
		r.OddEvenRatioErr = r.OddEvenRatio * math.Hypot(r.OddDepthErr/r.OddDepth, r.EvenDepthErr/r.EvenDepth)
	}
	return r
}

// outlierTransitSigma is how far (in robust σ of the single-transit depths about their median) a transit's
// depth must lie to be left out of the odd/even depths.
const outlierTransitSigma = 5

// robustParity fits the trapezoid fit (centred on c's t0) to the even and odd transits as oddEven does, but
// first leaves out the whole transits whose own template depth lies more than outlierTransitSigma robust σ
// (1.4826·MAD of all whole transits' depths) from their median: a transit lost in a gap's ramp or flattened
// by the detrending would otherwise pull its parity's mean. An eclipsing binary folded at twice its period
// keeps all its transits, since its two groups of depths make the MAD half the depth difference. It returns
// the even (0) and odd (1) depths, their statistical errors, the number left out and whether both parities
// have data.
func (c *curve) robustParity(fit Trapezoid, sigmaD float64) (depth, err [2]float64, rejected int, ok bool) {
	type acc struct{ sy, ss float64 }
	events := make([]acc, c.nEpochs())
	for i, dt := range c.dt {
		s := smoothedTrapezoid(dt, fit.T14Days, fit.IngressFraction, c.cadence)
		if s == 0 {
			continue
		}
		e := &events[c.epoch[i]-c.kMin]
		e.sy += s * c.y[i]
		e.ss += s * s
	}
	var full float64
	for _, e := range events {
		full = math.Max(full, e.ss)
	}
	var whole []float64
	for _, e := range events {
		if e.ss > 0 && e.ss >= full/2 {
			whole = append(whole, e.sy/e.ss)
		}
	}
	med, spread := math.NaN(), 0.0
	if len(whole) >= 5 {
		sorted := slices.Clone(whole)
		med = stat.Median(sorted)
		spread = stat.MADToSigma * stat.MAD(sorted)
	}
	var parity [2]acc
	var single [2][]float64
	for j, e := range events {
		if e.ss == 0 {
			continue
		}
		k := c.kMin + j
		d := e.sy / e.ss
		if e.ss >= full/2 {
			if spread > 0 && math.Abs(d-med) > outlierTransitSigma*spread {
				rejected++
				continue
			}
			single[k&1] = append(single[k&1], d)
		}
		parity[k&1].sy += e.sy
		parity[k&1].ss += e.ss
	}
	if parity[0].ss == 0 || parity[1].ss == 0 {
		return depth, err, rejected, false
	}
	depth, err = parityDepths(parity[0].sy, parity[0].ss, parity[1].sy, parity[1].ss, c.m, sigmaD, single)
	return depth, err, rejected, true
}
