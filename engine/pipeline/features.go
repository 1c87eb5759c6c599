package pipeline

import (
	"math"
	"sort"

	"transitbench/engine/bls"
	"transitbench/engine/fold"
	"transitbench/engine/rv"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
)

// FeatureNames are the classifier's inputs, in the order of Features.Vector. Each is described at Features.
var FeatureNames = []string{
	"log_snr", "log_depth", "log_mes", "depth_snr_over_mes", "log_period", "duty_cycle", "duration_ratio",
	"odd_even_sigma", "odd_even_log_ratio", "secondary_mes", "secondary_depth_ratio", "v_shape",
	"v_shape_sigma_over_mes", "single_event_fraction", "max_single_snr_over_mes", "log_event_chi2",
	"gap_edge_fraction", "rp_rs", "n_transits", "desat_fraction", "desat_closeness", "variability_power", "log_variability_amp", "ellipsoidal_snr_raw", "reflection_snr_raw", "rank", "snr_over_top",
	"sde", "shared_events",
}

// StrengthCap is the SNR and MES above which log_snr and log_mes stop growing: a signal that strong is simply
// strong, and what tells a planet from a binary or a false alarm there is its shape, secondary and parity, not
// how far beyond the cap it lies (the train pool's planets reach MES 200, real hot Jupiters SNR 1,000).
const StrengthCap = 100

// EventDepthFloor is the systematic floor of a single transit's depth, as a fraction of the depth, by which
// log_event_chi2 is deflated: event-to-event depth differences of one planet reach about 1–2 % of the depth on
// Kepler data (detrending, cadence phasing), which for a transit of single-event SNR s is (EventDepthFloor·s)²
// times the statistical variance. A false alarm's events scatter by tens of per cent and stay far above it.
const EventDepthFloor = 0.03

// Features are the vetting features of one BLS peak. A feature that cannot be measured is NaN (the trees send
// NaN to one side, learned like any other value).
type Features struct {
	Peak bls.Peak
	// Measured is the fitted transit (vet.Measure): the peak's period, its mid-time moved by the trapezoid's
	// offset, and T14, which every duration feature uses.
	Measured vet.Ephemeris
	Rank     int     // 0 for the strongest peak of the star
	TopSNR   float64 // the SNR of the star's strongest peak
	Vet      vet.Features
	// SDE is the peak's signal detection efficiency, (SNR − median)/spread of the periodogram it was found in
	// (Periodogram): how far it stands above the star's own crowd of noise peaks, which red noise and
	// systematics raise together with the peak. NaN without a periodogram.
	SDE float64
	// SharedEvents is the share of the peak's transits with data whose window overlaps a transit window of a
	// stronger candidate of the star: near 1 for a second peak built from the same dips at another period (a
	// spot's or a glitch's quasi-periodic events), ≈ (D + D')/P' by chance for an unrelated planet. NaN for the
	// strongest candidate.
	SharedEvents float64
	// Refined is vet.Refine at the peak: the secondary eclipse searched clear of the fitted T14 and odd/even
	// with a systematic floor, which stay near their noise values on deep real transits where Vet's formal
	// statistics grow with the depth.
	Refined vet.Refined
	// RawModulation is vet.MeasureModulation at the peak on the flux before detrending, where a binary's
	// ellipsoidal variation survives.
	RawModulation vet.Modulation
	// DesatFraction is the share of the peak's transits with data whose mid-time lies within D/2 + 0.1 d of a
	// reaction-wheel desaturation; ≈ 2(D/2 + 0.1 d)/3 d (≈ 10 %) by chance, near 1 for glitches that follow
	// every desaturation. NaN without desaturations or transits.
	DesatFraction float64
	// DesatCloseness = min over n, m ∈ 1…4 of |ln(P / (P_des·n/m))|: how close the period is to a ratio of the
	// desaturation interval P_des (the median spacing of the desaturations). NaN with fewer than 3.
	DesatCloseness float64
	// The star's variability (Variability): VarCloseness = min over n, m ∈ 1…4 of |ln(P / (P_var·n/m))|,
	// VarPower its periodogram peak, VarAmp its amplitude.
	VarCloseness, VarPower, VarAmp float64
}

// Variability is the dominant periodicity of a star's flux before detrending: the highest peak of the
// generalised Lomb–Scargle periodogram (engine/rv.GLS) between 0.3 and 30 d of the flux binned to 0.1 d, each
// stretch between gaps longer than 0.5 d divided by its own median first (so quarter offsets and downlink jumps
// do not pass for variability). Power is the share of variance the sinusoid explains (0–1) and AmpFrac the
// binned flux's standard deviation, a fraction of the flux. PeriodDays is NaN when there are too few bins.
type Variability struct {
	PeriodDays, Power, AmpFrac float64
}

// MeasureVariability computes the Variability of l.
func MeasureVariability(l *Light) Variability {
	const bin, gap = 0.1, 0.5
	v := Variability{PeriodDays: math.NaN(), Power: math.NaN(), AmpFrac: math.NaN()}
	var bt, bf []float64
	start := 0
	for i := 1; i <= len(l.T); i++ {
		if i < len(l.T) && l.T[i]-l.T[i-1] <= gap {
			continue
		}
		seg := l.Flux[start:i]
		med := median(seg)
		for j := start; j < i; {
			k := j
			var s float64
			for k < i && l.T[k] < l.T[j]+bin {
				s += l.Flux[k]
				k++
			}
			bt = append(bt, (l.T[j]+l.T[k-1])/2)
			bf = append(bf, s/float64(k-j)/med-1)
			j = k
		}
		start = i
	}
	if len(bt) < 50 {
		return v
	}
	var mean, ss float64
	for _, f := range bf {
		mean += f
	}
	mean /= float64(len(bf))
	for _, f := range bf {
		ss += (f - mean) * (f - mean)
	}
	v.AmpFrac = math.Sqrt(ss / float64(len(bf)))
	dy := make([]float64, len(bf))
	for i := range dy {
		dy[i] = 1
	}
	freq := rv.FrequencyGrid(bt[len(bt)-1]-bt[0], 0.3, 30, 5)
	pow := rv.GLS(nil, bt, bf, dy, freq)
	best := -1
	for i, p := range pow {
		if !math.IsNaN(p) && (best < 0 || p > pow[best]) {
			best = i
		}
	}
	if best >= 0 {
		v.PeriodDays, v.Power = 1/freq[best], pow[best]
	}
	return v
}

// ratioCloseness returns min over n, m ∈ 1…4 of |ln(p/(ref·n/m))|, NaN when ref is not a positive number.
func ratioCloseness(p, ref float64) float64 {
	if !(ref > 0) || !(p > 0) {
		return math.NaN()
	}
	best := math.Inf(1)
	for n := 1; n <= 4; n++ {
		for m := 1; m <= 4; m++ {
			best = math.Min(best, math.Abs(math.Log(p/(ref*float64(n)/float64(m)))))
		}
	}
	return best
}

// desatInterval returns the median spacing of the desaturation times, NaN with fewer than 3.
func desatInterval(times []float64) float64 {
	if len(times) < 3 {
		return math.NaN()
	}
	d := make([]float64, 0, len(times)-1)
	for i := 1; i < len(times); i++ {
		d = append(d, times[i]-times[i-1])
	}
	sort.Float64s(d)
	return d[len(d)/2]
}

// transitMids returns the mid-times of the transits with data: a valid cadence (t, sorted) within D/2 of the
// mid-time.
func transitMids(t []float64, period, t0, duration float64) []float64 {
	if len(t) == 0 || !(period > 0) {
		return nil
	}
	kMin := int(math.Floor((t[0]-t0)/period + 0.5))
	kMax := int(math.Floor((t[len(t)-1]-t0)/period + 0.5))
	var mids []float64
	for k := kMin; k <= kMax; k++ {
		mid := t0 + float64(k)*period
		if i := sort.SearchFloat64s(t, mid-duration/2); i < len(t) && t[i] <= mid+duration/2 {
			mids = append(mids, mid)
		}
	}
	return mids
}

// desatFraction returns the share of the transits with data whose mid-time lies within D/2 + 0.1 d of a
// desaturation time; NaN when there is no such transit or desaturation.
func desatFraction(t, desat []float64, period, t0, duration float64) float64 {
	mids := transitMids(t, period, t0, duration)
	if len(desat) == 0 || len(mids) == 0 {
		return math.NaN()
	}
	near := 0
	for _, mid := range mids {
		j := sort.SearchFloat64s(desat, mid-duration/2-0.1)
		if j < len(desat) && desat[j] <= mid+duration/2+0.1 {
			near++
		}
	}
	return float64(near) / float64(len(mids))
}

// sharedEvents returns the share of p's transits with data whose window (mid ± D/2) overlaps a transit window
// of one of the stronger peaks; NaN when there is no stronger peak or no transit.
func sharedEvents(t []float64, p bls.Peak, stronger []bls.Peak) float64 {
	mids := transitMids(t, p.PeriodDays, p.T0Days, p.DurationDays)
	if len(stronger) == 0 || len(mids) == 0 {
		return math.NaN()
	}
	shared := make([]bool, len(mids))
	for _, s := range stronger {
		for i, ph := range fold.Phase(mids, s.PeriodDays, s.T0Days) {
			shared[i] = shared[i] || math.Abs(ph) <= (p.DurationDays+s.DurationDays)/2
		}
	}
	n := 0
	for _, sh := range shared {
		if sh {
			n++
		}
	}
	return float64(n) / float64(len(mids))
}

// Periodogram summarises the BLS periodogram a peak was found in: the median and the robust spread
// (1.4826 × the median absolute deviation) of the power over the trial periods with a dipping box.
type Periodogram struct {
	Median, Spread float64
}

// SummarisePeriodogram computes the Periodogram of a search result; NaN fields when fewer than 10 periods
// have a dipping box.
func SummarisePeriodogram(r *bls.Result) Periodogram {
	var pw []float64
	if r != nil {
		for _, p := range r.Power {
			if p > 0 {
				pw = append(pw, p)
			}
		}
	}
	if len(pw) < 10 {
		return Periodogram{math.NaN(), math.NaN()}
	}
	med := median(pw)
	for i, p := range pw {
		pw[i] = math.Abs(p - med)
	}
	return Periodogram{Median: med, Spread: stat.MADToSigma4 * median(pw)}
}

// Context is what Compute needs to know about the peak's star and search besides the peak itself.
type Context struct {
	Rank        int         // the peak's rank among the star's candidates, 0 for the strongest
	TopSNR      float64     // the SNR of the star's strongest candidate
	Variability Variability // the star's variability (MeasureVariability)
	Periodogram Periodogram // the periodogram the peak was found in
	Stronger    []bls.Peak  // the star's stronger candidates
	// Others are the star's other candidates, stronger and weaker: their transits are masked in the
	// re-detrending and left out of the peak's statistics (vet.Measure).
	Others []vet.Ephemeris
}

// Compute measures the Features of peak on l, given the star as vet needs it and the Context: vet.Measure on
// l's flux before detrending, with the peak's and c.Others' transits masked, at the fitted transit.
func Compute(l *Light, star Star, peak bls.Peak, c Context) Features {
	var vs *vet.Star
	if star.RadiusRsun > 0 && star.MassMsun > 0 {
		vs = &vet.Star{RadiusRsun: star.RadiusRsun, MassMsun: star.MassMsun}
	}
	v := c.Variability
	f := Features{Peak: peak, Rank: c.Rank, TopSNR: c.TopSNR}
	f.SDE = math.NaN()
	if c.Periodogram.Spread > 0 {
		f.SDE = (peak.SNR - c.Periodogram.Median) / c.Periodogram.Spread
	}
	f.SharedEvents = sharedEvents(l.T, peak, c.Stronger)
	m := vet.Measure(l.T, l.Flux, ephemeris(peak), c.Others, vs)
	e := m.Ephemeris
	f.Measured, f.Vet, f.Refined = e, m.Features, m.Refined
	f.RawModulation = vet.MeasureModulation(l.T, l.Flux, e.PeriodDays, e.T0Days, e.DurationDays)
	f.DesatFraction = desatFraction(l.T, l.DesatTimes, e.PeriodDays, e.T0Days, e.DurationDays)
	f.DesatCloseness = ratioCloseness(peak.PeriodDays, desatInterval(l.DesatTimes))
	f.VarCloseness = ratioCloseness(peak.PeriodDays, v.PeriodDays)
	f.VarPower, f.VarAmp = v.Power, v.AmpFrac
	return f
}

// Vector returns the features in the order of FeatureNames, every value finite or NaN. They are scale-free
// where they can be, so that the depth or strength of a signal alone does not decide its class:
//
//	log_snr                  log10 of the BLS SNR, capped at StrengthCap
//	log_depth                log10 of the BLS depth (fraction)
//	log_mes                  log10 of vet's MES, capped at StrengthCap
//	depth_snr_over_mes       vet's depth significance (red noise counted through σ_D) over its MES
//	log_period, duty_cycle   log10 P (days), T14/P (the fitted T14)
//	duration_ratio           fitted T14 over the central-transit T14 for the star's catalogue density (NaN unknown)
//	odd_even_sigma           refined odd/even depth difference in σ, with vet.OddEvenFloor (vet.Refine)
//	odd_even_log_ratio       |ln| of the refined odd/even depth ratio (NaN unless both depths are positive)
//	secondary_mes            refined secondary eclipse's MES, boxes T14 wide clear of the fitted transit
//	secondary_depth_ratio    its depth over the fitted transit depth, floored at 1/StrengthCap
//	v_shape                  trapezoid ingress fraction (vet.Compute)
//	v_shape_sigma_over_mes   the significance of V over box over the MES (the shape, not the strength)
//	single_event_fraction    share of SNR² in the strongest single transit
//	max_single_snr_over_mes  the strongest single transit's SNR over the MES
//	log_event_chi2           log10 of the reduced χ² of the single-transit depths over 1 + (EventDepthFloor·s)²,
//	                         s = MES/√n_transits the single-event SNR
//	gap_edge_fraction        share of transits within 1 d after a gap
//	rp_rs                    √(trapezoid depth)
//	n_transits               transits with data
//	desat_fraction           share of transits at a desaturation
//	desat_closeness          |ln| distance of P to a ratio n/m of the desaturation interval
//	variability_power        GLS power of the variability (0–1)
//	log_variability_amp      log10 of the variability's amplitude (fraction)
//	ellipsoidal_snr_raw      ellipsoidal modulation SNR at P before detrending
//	reflection_snr_raw       reflection modulation SNR at P before detrending
//	rank                     0, 1, 2: the peak's rank among the star's peaks
//	snr_over_top             SNR over the star's strongest peak's SNR
//	sde                      (SNR − median)/spread of the peak's periodogram
//	shared_events            share of transits overlapping a stronger peak's (NaN for rank 0)
func (f *Features) Vector() []float64 {
	v, r := f.Vet, f.Refined
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return math.NaN()
		}
		return a / b
	}
	lg := func(x float64) float64 {
		if !(x > 0) {
			return math.NaN()
		}
		return math.Log10(x)
	}
	durRatio := v.DurationRatio
	if durRatio == 0 {
		durRatio = math.NaN()
	}
	oeRatio, oeSigma := math.NaN(), math.NaN()
	if r.OddEvenRatio > 0 {
		oeRatio = math.Abs(math.Log(r.OddEvenRatio))
	}
	if r.OddDepthErr > 0 {
		oeSigma = r.OddEvenSigma
	}
	secMES, secRatio := math.NaN(), math.NaN()
	if r.SigmaD > 0 {
		// The ratio floored at 1/StrengthCap, as the MES is capped: a secondary at the noise of a transit
		// far above the cap (a real hot Jupiter, MES ≈ 1,000) would otherwise give ratios of 0.001 that no
		// planet of the train pool reaches, and mark it as the deep object a binary is.
		secMES, secRatio = r.SecondaryMES, math.Max(ratio(r.SecondaryDepth, r.Fit.Depth), 1.0/StrengthCap)
	}
	chi2 := math.NaN()
	if v.NTransits > 0 {
		s := EventDepthFloor * v.MES / math.Sqrt(float64(v.NTransits))
		chi2 = lg(v.EventChi2 / (1 + s*s))
	}
	out := []float64{
		lg(math.Min(f.Peak.SNR, StrengthCap)), lg(f.Peak.Depth), lg(math.Min(v.MES, StrengthCap)), ratio(v.DepthSNR, v.MES),
		lg(f.Peak.PeriodDays), f.Measured.DurationDays / f.Peak.PeriodDays, durRatio, oeSigma, oeRatio, secMES, secRatio,
		v.VShape, ratio(v.VShapeSigma, v.MES), v.SingleEventFraction, ratio(v.MaxSingleEventSNR, v.MES), chi2,
		v.GapEdgeFraction, v.RpRs, float64(v.NTransits), f.DesatFraction, f.DesatCloseness, f.VarPower, lg(f.VarAmp), f.RawModulation.EllipsoidalSNR, f.RawModulation.ReflectionSNR, float64(f.Rank),
		ratio(f.Peak.SNR, f.TopSNR), f.SDE, f.SharedEvents,
	}
	for i, x := range out {
		if math.IsInf(x, 0) {
			out[i] = math.NaN()
		}
	}
	return out
}
