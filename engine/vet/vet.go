package vet

import (
	"math"
	"slices"
	"sort"

	"transitbench/engine/noise"
	"transitbench/engine/stat"
	"transitbench/engine/transit"
)

// Star holds what Compute may know about the host star; a zero field means unknown.
type Star struct {
	RadiusRsun float64 // stellar radius, R☉
	MassMsun   float64 // stellar mass, M☉
}

// Features are the vetting statistics of one candidate. Depths are fractions of the flux (positive for a
// dimming), times in days, phases in [0, 1) of the period from the primary's mid-time. Errors and
// significances use σ_D (noise.SigmaD at the candidate's duration, transits masked): a set of cadences
// spanning n_eff = n/m transit windows (n cadences, m = D/cadence per window) has a mean-depth error of
// σ_D/√n_eff, which counts the red noise on the transit's time scale, unlike a per-cadence error. A statistic
// that cannot be measured (no data, unknown star) is 0.
type Features struct {
	PeriodDays   float64 `json:"period_days"`
	T0Days       float64 `json:"t0_days"`
	DurationDays float64 `json:"duration_days"`

	// NTransits counts the transits with data (noise.NTransitsWithData: at least half the window covered).
	NTransits int `json:"n_transits"`
	// Depth is the baseline (median out-of-transit flux) minus the mean flux within ±D/2 of the mid-times;
	// DepthErr = σ_D/√n_eff its error, DepthSNR their ratio.
	Depth    float64 `json:"depth"`
	DepthErr float64 `json:"depth_err"`
	DepthSNR float64 `json:"depth_snr"`
	// SigmaD is the noise on the duration's time scale; MES = Depth/σ_D·√NTransits (SPEC A4, box depth).
	SigmaD float64 `json:"sigma_d"`
	MES    float64 `json:"mes"`

	// Odd and even transits (epochs k odd or even, k = round((t − t0)/P)): the depth of the fitted trapezoid
	// (see TrapezoidDepth) in each, and the significance of the difference, |odd − even| /
	// √(err_odd² + err_even²) (errors as oddEven describes). A binary folded at half its period has
	// alternating depths.
	OddDepth     float64 `json:"odd_depth"`
	EvenDepth    float64 `json:"even_depth"`
	OddEvenSigma float64 `json:"odd_even_sigma"`

	// The deepest box of the same duration at any other phase (its window clear of the primary's): its depth
	// and error, its significance on the MES scale (depth/σ_D·√n_eff, so ≥ 7.1 is a detection) and its phase.
	// A secondary eclipse repeats every orbit: when one orbit carries more than MaxSecondaryOrbitFraction of the
	// box's SNR² (one event at that phase: another planet's single transit, a flare's edge, a gap ramp), that
	// orbit is left out and the phase scanned again, at most MaxSecondaryRescans times.
	SecondaryDepth    float64 `json:"secondary_depth"`
	SecondaryDepthErr float64 `json:"secondary_depth_err"`
	SecondaryMES      float64 `json:"secondary_mes"`
	SecondaryPhase    float64 `json:"secondary_phase"`

	// Shape from a least-squares trapezoid fit to the folded transit (smoothed by the exposure): VShape is the
	// ingress fraction, T12/(T14/2), 0 for a box and 1 for a V; the fitted depth and total duration.
	VShape float64 `json:"v_shape"`
	// VShapeSigma says how strongly the data prefer a V to a box: √|Δχ²| with the sign of Δχ² = χ²(best
	// trapezoid with ingress fraction ≤ 0.3) − χ²(best with ≥ 0.7), χ² in units of the per-cadence variance
	// out of transit. Near 0 when the transit is too shallow to show its shape (VShape is then noise); large
	// and positive for a V-shaped eclipse, large and negative for a box-like transit.
	VShapeSigma           float64 `json:"v_shape_sigma"`
	TrapezoidDepth        float64 `json:"trapezoid_depth"`
	TrapezoidDurationDays float64 `json:"trapezoid_duration_days"`

	// SingleEventFraction is max_k SNR_k² / Σ_k SNR_k² over the transits with data, SNR_k being transit k's
	// depth significance (dimmings only): ≈ 1/N for a steady signal, near 1 when one event carries it.
	SingleEventFraction float64 `json:"single_event_fraction"`
	MaxSingleEventSNR   float64 `json:"max_single_event_snr"`

	// EventChi2 is the reduced χ² of the single-transit depths (the trapezoid template fitted to each transit
	// with data, see oddEven) about their weighted mean, errors σ_D·√(m/Σ s²): ≈ 1 for a steady transit in
	// noise of level σ_D, large when the "transits" differ (glitches, spots, a few unrelated events). Very deep
	// transits (single-transit SNR ≳ 30) also raise it, because a trapezoid matches a limb-darkened transit only
	// to a per cent or so of its depth and each transit samples the mismatch differently (measured on the
	// Kepler DV hot Jupiters: 3.6–240).
	EventChi2 float64 `json:"event_chi2"`
	// GapEdgeFraction is the share of the transits with data whose mid-time lies within 1 d after the end of
	// a gap longer than 0.5 d, where thermal settling ramps sit. With Kepler's monthly downlinks a steady signal
	// has about 1 d / 30 d ≈ 3 % of its transits there; ramps folded together have most of theirs.
	GapEdgeFraction float64 `json:"gap_edge_fraction"`

	// RpRs ≈ √(TrapezoidDepth): the radius ratio the depth implies for a dark disk (no limb darkening).
	RpRs float64 `json:"rp_rs"`
	// ExpectedDurationDays is the T14 of a central (b = 0) transit of a body of radius RpRs on a circular
	// orbit at this period around the star (transit.DurationT14 with transit.ARs); DurationRatio is
	// DurationDays / ExpectedDurationDays. A planet has a ratio ≤ 1 (b > 0 shortens it); much above 1 points to
	// a larger or lower-density primary than the star's, i.e. an eclipsing binary or a wrong star. 0 without
	// the star's radius and mass. (TrapezoidDurationDays / ExpectedDurationDays is the same test on the fitted
	// duration: free of a search grid's steps, but noisy below MES ≈ 15 and ≈ 5 % long for limb-darkened
	// transits.)
	ExpectedDurationDays float64 `json:"expected_duration_days"`
	DurationRatio        float64 `json:"duration_ratio"`

	// Modulation at the orbital period of the flux Compute was given (MeasureModulation). On detrended flux a
	// modulation slower than the detrending window is mostly gone; measure the flux before detrending for the
	// ellipsoidal test of a binary.
	Modulation
}

// Compute returns the Features of the candidate (periodDays, t0Days, durationDays = T14) on a light curve:
// t the times in days (sorted), flat the detrended flux (median ≈ 1; NaN marks a cadence that is not valid).
// star may be nil. It panics if len(t) != len(flat).
func Compute(t, flat []float64, periodDays, t0Days, durationDays float64, star *Star) Features {
	f := Features{PeriodDays: periodDays, T0Days: t0Days, DurationDays: durationDays}
	if len(t) != len(flat) {
		panic("vet: time and flux differ in length")
	}
	if !(periodDays > 0) || !(durationDays > 0) {
		return f
	}
	c := newCurve(t, flat, periodDays, t0Days, durationDays)
	if c == nil {
		return f
	}
	f.NTransits = noise.NTransitsWithData(c.t, periodDays, t0Days, durationDays)
	f.SigmaD = noise.SigmaD(c.t, c.masked(), durationDays)
	if !(f.SigmaD > 0) {
		f.SigmaD = 0
		return f
	}

	c.primary(&f)
	c.secondary(&f)
	c.shape(&f)
	c.oddEven(&f)
	f.Modulation = MeasureModulation(t, flat, periodDays, t0Days, durationDays)
	if f.TrapezoidDepth > 0 {
		f.RpRs = math.Sqrt(f.TrapezoidDepth)
	}
	if star != nil && star.RadiusRsun > 0 && star.MassMsun > 0 {
		aRs := transit.ARs(periodDays, star.MassMsun, star.RadiusRsun)
		f.ExpectedDurationDays = transit.DurationT14(periodDays, aRs, f.RpRs, 0)
		if f.ExpectedDurationDays > 0 {
			f.DurationRatio = durationDays / f.ExpectedDurationDays
		}
	}
	return f
}

// curve is the valid part of a light curve with each cadence's place relative to the candidate.
type curve struct {
	t, y     []float64 // valid cadences: time and dimming, baseline − flux
	dt       []float64 // time from the nearest mid-transit, in [−P/2, P/2)
	epoch    []int     // k of the nearest mid-transit t0 + kP
	kMin     int       // smallest and largest epoch
	kMax     int
	period   float64
	t0       float64
	duration float64
	cadence  float64
	m        float64 // cadences in a full transit window, D / cadence
	sigma    float64 // per-cadence scatter out of transit, 1.4826·MAD; 0 when unknown
}

// newCurve keeps the valid cadences and measures the baseline (median flux outside the transit windows).
func newCurve(t, flat []float64, period, t0, duration float64) *curve {
	c := &curve{period: period, t0: t0, duration: duration, t: make([]float64, 0, len(t))}
	flux := make([]float64, 0, len(t))
	for i := range t {
		if stat.Finite(t[i]) && stat.Finite(flat[i]) {
			c.t = append(c.t, t[i])
			flux = append(flux, flat[i])
		}
	}
	if len(c.t) < 3 {
		return nil
	}
	c.cadence = noise.CadenceDays(c.t)
	c.m = math.Max(1, duration/c.cadence)
	c.dt = make([]float64, len(c.t))
	c.epoch = make([]int, len(c.t))
	out := make([]float64, 0, len(c.t))
	for i, ti := range c.t {
		k := math.Floor((ti-t0)/period + 0.5)
		c.epoch[i] = int(k)
		if i == 0 || c.epoch[i] < c.kMin {
			c.kMin = c.epoch[i]
		}
		if i == 0 || c.epoch[i] > c.kMax {
			c.kMax = c.epoch[i]
		}
		c.dt[i] = ti - t0 - k*period
		if math.Abs(c.dt[i]) > duration/2+c.cadence {
			out = append(out, flux[i])
		}
	}
	base := stat.Median(out)
	if len(out) == 0 {
		base = stat.Median(slices.Clone(flux))
	} else {
		for i := range out {
			out[i] = math.Abs(out[i] - base)
		}
		c.sigma = stat.MADToSigma * stat.Median(out)
	}
	c.y = make([]float64, len(flux))
	for i := range flux {
		c.y[i] = base - flux[i]
	}
	return c
}

// nEpochs returns the number of epochs from the earliest cadence's to the latest's (c.kMin onwards).
func (c *curve) nEpochs() int { return c.kMax - c.kMin + 1 }

// masked returns the flux (as −dimming) with the transit windows set to NaN, for σ_D.
func (c *curve) masked() []float64 {
	out := make([]float64, len(c.y))
	for i := range c.y {
		out[i] = -c.y[i]
		if math.Abs(c.dt[i]) <= c.duration/2+c.cadence {
			out[i] = math.NaN()
		}
	}
	return out
}

// errFor returns the error of a mean depth over n cadences: σ_D/√(n/m).
func (c *curve) errFor(sigmaD float64, n int) float64 {
	return sigmaD / math.Sqrt(float64(n)/c.m)
}

// primary measures the depth and the single-event statistics.
func (c *curve) primary(f *Features) {
	type acc struct {
		sum float64
		n   int
	}
	var all acc
	events := make([]acc, c.nEpochs()) // indexed by k − first epoch, so sums run in time order
	for i, dt := range c.dt {
		if math.Abs(dt) > c.duration/2 {
			continue
		}
		y := c.y[i]
		all.sum += y
		all.n++
		e := &events[c.epoch[i]-c.kMin]
		e.sum += y
		e.n++
	}
	if all.n == 0 {
		return
	}
	f.Depth = all.sum / float64(all.n)
	f.DepthErr = c.errFor(f.SigmaD, all.n)
	f.DepthSNR = f.Depth / f.DepthErr
	f.MES = f.Depth / f.SigmaD * math.Sqrt(float64(f.NTransits))

	need := max(1, int(math.Ceil(c.m/2-1e-9)))
	var sum2, max2 float64
	for _, e := range events {
		if e.n == 0 || e.n < need {
			continue
		}
		snr := e.sum / float64(e.n) / c.errFor(f.SigmaD, e.n)
		if snr <= 0 {
			continue
		}
		sum2 += snr * snr
		if snr*snr > max2 {
			max2 = snr * snr
			f.MaxSingleEventSNR = snr
		}
	}
	if sum2 > 0 {
		f.SingleEventFraction = max2 / sum2
	}

	// Transits just after a gap: gap ends are sorted, so a binary search finds the last one before each mid-time.
	const minGap, settle = 0.5, 1.0 // days
	var gapEnds []float64
	for i := 1; i < len(c.t); i++ {
		if c.t[i]-c.t[i-1] > minGap {
			gapEnds = append(gapEnds, c.t[i])
		}
	}
	withData, nearGap := 0, 0
	for j, e := range events {
		if e.n == 0 || e.n < need {
			continue
		}
		withData++
		mid := c.t0 + float64(c.kMin+j)*c.period
		g := sort.SearchFloat64s(gapEnds, mid) // gapEnds[g-1] < mid ≤ gapEnds[g]
		if g > 0 && mid-gapEnds[g-1] <= settle {
			nearGap++
		}
	}
	if withData > 0 {
		f.GapEdgeFraction = float64(nearGap) / float64(withData)
	}
}

// MaxSecondaryOrbitFraction is the largest share of the secondary box's SNR² one orbit may carry; above it the
// orbit is left out of the secondary scan (a secondary seen in n orbits gives ≈ 1/n; two orbits, ≈ 1/2). After
// MaxSecondaryRescans orbits left out, the last scan's box stands.
const MaxSecondaryOrbitFraction = 0.75

// MaxSecondaryRescans is how many single-orbit events the secondary scan leaves out at most.
const MaxSecondaryRescans = 3

// secondary scans the phase for the deepest box of the primary's duration whose window stays clear of the
// primary's (centres from D to P − D after the primary), in steps of D/4. The cadences are accumulated in
// phase bins D/8 wide, and a box is 8 consecutive bins, so the scan costs O(n + P/D). An orbit runs from one
// mid-transit to the next; when the deepest box's SNR² comes mostly from one orbit (MaxSecondaryOrbitFraction),
// that orbit is left out and the scan repeated.
func (c *curve) secondary(f *Features) {
	var skip []int
	for range MaxSecondaryRescans + 1 {
		lo, hi, ok := c.secondaryScan(f, skip)
		if !ok {
			return
		}
		o, frac := c.secondaryOrbit(lo, hi)
		if frac <= MaxSecondaryOrbitFraction {
			return
		}
		skip = append(skip, o)
	}
}

// orbit returns the orbit of cadence i (the epoch of the mid-transit before it) and its phase time x in [0, P).
func (c *curve) orbit(i int) (int, float64) {
	if x := c.dt[i]; x >= 0 {
		return c.epoch[i], x
	} else {
		return c.epoch[i] - 1, x + c.period
	}
}

// secondaryBins is the bin layout of the secondary scan: bins of D/8, 8 to a box.
func (c *curve) secondaryBins() (width float64, nb int) {
	width = c.duration / secondaryPerBox
	return width, int(math.Ceil(c.period / width))
}

const secondaryPerBox = 8

// secondaryScan runs the scan without the orbits in skip, sets f's secondary fields to the deepest box and
// returns its bins [lo, hi); false when no box has enough cadences.
func (c *curve) secondaryScan(f *Features, skip []int) (lo, hi int, ok bool) {
	const perBox = secondaryPerBox
	width, nb := c.secondaryBins()
	if nb < 3*perBox {
		return 0, 0, false
	}
	sum := make([]float64, nb+1)
	cnt := make([]int, nb+1)
	for i, dt := range c.dt {
		if math.Abs(dt) <= c.duration/2+c.cadence {
			continue
		}
		o, x := c.orbit(i)
		if slices.Contains(skip, o) {
			continue
		}
		j := min(int(x/width), nb-1)
		sum[j+1] += c.y[i]
		cnt[j+1]++
	}
	for j := 1; j <= nb; j++ { // prefix sums: bins [a, b) hold sum[b] − sum[a]
		sum[j] += sum[j-1]
		cnt[j] += cnt[j-1]
	}
	need := max(1, int(math.Ceil(c.m/2-1e-9)))
	best := math.Inf(-1)
	for l := perBox / 2; l+perBox <= nb-perBox/2; l += perBox / 4 {
		h := l + perBox
		n := cnt[h] - cnt[l]
		if n < need {
			continue
		}
		depth := (sum[h] - sum[l]) / float64(n)
		errD := c.errFor(f.SigmaD, n)
		if snr := depth / errD; snr > best {
			best, lo, hi, ok = snr, l, h, true
			f.SecondaryDepth, f.SecondaryDepthErr, f.SecondaryMES = depth, errD, snr
			f.SecondaryPhase = (float64(l) + perBox/2) * width / c.period
		}
	}
	return lo, hi, ok
}

// secondaryOrbit returns the orbit carrying the largest share of the box's dimming in bins [lo, hi), and that
// share: per orbit k with n_k cadences summing to s_k > 0 in the box, SNR²_k ∝ s_k²/n_k, against the sum of
// SNR²_k over the orbits that dim. A secondary seen in n orbits gives ≈ 1/n, noise ≈ a few over the number of
// orbits, one event ≈ 1. A share 0 when no orbit dims.
func (c *curve) secondaryOrbit(lo, hi int) (int, float64) {
	width, _ := c.secondaryBins()
	sum := map[int]float64{}
	cnt := map[int]int{}
	for i, dt := range c.dt {
		if math.Abs(dt) <= c.duration/2+c.cadence {
			continue
		}
		o, x := c.orbit(i)
		if j := int(x / width); j < lo || j >= hi {
			continue
		}
		sum[o] += c.y[i]
		cnt[o]++
	}
	var all float64
	for o, s := range sum {
		if s > 0 {
			all += s * s / float64(cnt[o])
		}
	}
	if !(all > 0) {
		return 0, 0
	}
	best, share := 0, 0.0
	for o, s := range sum {
		if s <= 0 {
			continue
		}
		if v := s * s / float64(cnt[o]) / all; v > share || v == share && o < best {
			best, share = o, v
		}
	}
	return best, share
}

// shape fits a trapezoid, smoothed by the exposure (one cadence), to the folded transit binned in D/30-wide
// bins over ±D, the depth by linear least squares for each shape. The total duration T runs over 0.5–1.5 D
// and the ingress fraction over 0.02–1, first on a coarse grid (steps 0.1 D and 0.1), then on a fine one
// (steps 0.02 D and 0.02) around the coarse optimum. The bins are weighted by their counts.
func (c *curve) shape(f *Features) {
	const nb = 60
	width := 2 * c.duration / nb
	var sum [nb]float64
	var cnt [nb]float64
	for i, dt := range c.dt {
		j := int(math.Floor((dt + c.duration) / width))
		if j < 0 || j >= nb {
			continue
		}
		sum[j] += c.y[i]
		cnt[j]++
	}
	var xs, ys, ws []float64
	for j := range nb {
		if cnt[j] > 0 {
			xs = append(xs, -c.duration+(float64(j)+0.5)*width)
			ys = append(ys, sum[j]/cnt[j])
			ws = append(ws, cnt[j])
		}
	}
	if len(xs) < 4 {
		return
	}
	s := make([]float64, len(xs))
	bestChi2 := math.Inf(1)
	var bestT, bestF float64 // T in units of D, ingress fraction
	lastChi2 := math.Inf(1)  // χ² of the latest shape tried
	try := func(tRel, ingress float64) {
		lastChi2 = math.Inf(1)
		if tRel < 0.5-1e-9 || tRel > 1.5+1e-9 || ingress < 0.02-1e-9 || ingress > 1+1e-9 {
			return
		}
		total := tRel * c.duration
		depth, chi2, ok := fitTrapezoidDepth(xs, ys, ws, s, 0, total, ingress, c.cadence)
		if !ok {
			return
		}
		lastChi2 = chi2
		if chi2 < bestChi2 {
			bestChi2, bestT, bestF = chi2, tRel, ingress
			f.VShape, f.TrapezoidDepth, f.TrapezoidDurationDays = ingress, depth, total
		}
	}
	chiBox, chiV := math.Inf(1), math.Inf(1)
	for i := 0; i <= 10; i++ {
		for j := 0; j <= 10; j++ {
			ingress := math.Max(0.02, 0.1*float64(j))
			try(0.5+0.1*float64(i), ingress)
			switch {
			case j <= 3:
				chiBox = math.Min(chiBox, lastChi2)
			case j >= 7:
				chiV = math.Min(chiV, lastChi2)
			}
		}
	}
	if c.sigma > 0 && !math.IsInf(chiBox, 0) && !math.IsInf(chiV, 0) {
		d := (chiBox - chiV) / (c.sigma * c.sigma)
		f.VShapeSigma = math.Copysign(math.Sqrt(math.Abs(d)), d)
	}
	t0, f0 := bestT, bestF
	for i := -5; i <= 5; i++ {
		for j := -5; j <= 5; j++ {
			try(t0+0.02*float64(i), f0+0.02*float64(j))
		}
	}
}

// oddEven fits the depth of the trapezoid found by shape to the odd and to the even transits separately, and
// to each transit for EventChi2:
// δ = Σ s·y / Σ s² over the parity's cadences, s the template at each cadence's phase. Fitting the template
// rather than averaging a box keeps the phase sampling of each transit (how many cadences fall on ingress)
// out of the depths, which matters at high SNR. Each depth's error is the larger of σ_D·√(m/Σ s²) (the
// noise) and the scatter of the single-transit template depths (1.4826·MAD) over √(their number) (anything
// else that varies from transit to transit), the latter when at least 3 transits of the parity have at least
// half the fullest transit's template weight.
func (c *curve) oddEven(f *Features) {
	if f.TrapezoidDurationDays == 0 || f.TrapezoidDepth == 0 {
		return
	}
	type acc struct{ sy, ss float64 }
	var parity [2]acc
	events := make([]acc, c.nEpochs())
	for i, dt := range c.dt {
		s := smoothedTrapezoid(dt, f.TrapezoidDurationDays, f.VShape, c.cadence)
		if s == 0 {
			continue
		}
		k := c.epoch[i]
		p := &parity[k&1] // k&1 is 1 for odd k, negative ones included
		p.sy += s * c.y[i]
		p.ss += s * s
		e := &events[k-c.kMin]
		e.sy += s * c.y[i]
		e.ss += s * s
	}
	if parity[0].ss == 0 || parity[1].ss == 0 {
		return
	}
	var full float64
	for _, e := range events {
		full = math.Max(full, e.ss)
	}
	var single [2][]float64
	var sw, swd, swd2 float64 // Σ w, Σ w·δ, Σ w·δ² with w = 1/σ_k², for the event χ²
	nEvents := 0
	for j, e := range events {
		if e.ss > 0 && e.ss >= full/2 {
			k := c.kMin + j
			d := e.sy / e.ss
			single[k&1] = append(single[k&1], d)
			w := e.ss / (c.m * f.SigmaD * f.SigmaD)
			sw += w
			swd += w * d
			swd2 += w * d * d
			nEvents++
		}
	}
	if nEvents >= 2 {
		// Σ w (δ − δ̄)² = Σ wδ² − (Σ wδ)²/Σ w.
		f.EventChi2 = math.Max(0, swd2-swd*swd/sw) / float64(nEvents-1)
	}
	depth, err := parityDepths(parity[0].sy, parity[0].ss, parity[1].sy, parity[1].ss, c.m, f.SigmaD, single)
	f.EvenDepth, f.OddDepth = depth[0], depth[1]
	f.OddEvenSigma = math.Abs(depth[1]-depth[0]) / math.Hypot(err[0], err[1])
}

// parityDepths returns the even (index 0) and odd (1) template depths Σ s·y / Σ s² and their errors (see
// oddEven), given each parity's sums and single-transit depths.
func parityDepths(sy0, ss0, sy1, ss1, m, sigmaD float64, single [2][]float64) (depth, err [2]float64) {
	sy, ss := [2]float64{sy0, sy1}, [2]float64{ss0, ss1}
	for p := range 2 {
		depth[p] = sy[p] / ss[p]
		err[p] = sigmaD * math.Sqrt(m/ss[p])
		if n := len(single[p]); n >= 3 {
			err[p] = math.Max(err[p], stat.MADToSigma*stat.MAD(single[p])/math.Sqrt(float64(n)))
		}
	}
	return depth, err
}

// fitTrapezoidDepth fills s with the smoothed trapezoid (total T14, ingress fraction, exposure) centred at
// shift on the folded times xs and fits the depth of ys ≈ depth·s by weighted linear least squares (weights
// ws), returning the depth and the weighted χ² of the residuals; ok is false when the shape misses every bin.
func fitTrapezoidDepth(xs, ys, ws, s []float64, shift, total, ingress, exposure float64) (depth, chi2 float64, ok bool) {
	var sy, ss float64
	for j, x := range xs {
		s[j] = smoothedTrapezoid(x-shift, total, ingress, exposure)
		sy += ws[j] * s[j] * ys[j]
		ss += ws[j] * s[j] * s[j]
	}
	if ss == 0 {
		return 0, 0, false
	}
	depth = sy / ss
	for j := range xs {
		r := ys[j] - depth*s[j]
		chi2 += ws[j] * r * r
	}
	return depth, chi2, true
}

// smoothedTrapezoid is the unit-depth trapezoid of total duration total and ingress fraction ingress
// (ingress time = ingress · total/2), averaged over an exposure of the given length with 5 midpoint samples.
func smoothedTrapezoid(x, total, ingress, exposure float64) float64 {
	const n = 5
	var s float64
	for j := range n {
		s += trapezoid(x+exposure*((float64(j)+0.5)/n-0.5), total, ingress)
	}
	return s / n
}

// trapezoid is 1 on the flat bottom |x| ≤ total/2 − τ, falls linearly to 0 at |x| = total/2, τ = ingress·total/2.
func trapezoid(x, total, ingress float64) float64 {
	half := total / 2
	tau := ingress * half
	ax := math.Abs(x)
	switch {
	case ax >= half:
		return 0
	case ax <= half-tau:
		return 1
	}
	return (half - ax) / tau
}
