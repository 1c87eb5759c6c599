package noise

import (
	"math"
	"sort"

	"transitbench/engine/stat"
)

// Signal holds the detection statistics of a transit signal (SPEC A4).
type Signal struct {
	MES       float64 `json:"mes"`        // multiple-event statistic, MeanDepth / SigmaD · √NTransits
	MeanDepth float64 `json:"mean_depth"` // mean in-transit depth of the model, fractional
	SigmaD    float64 `json:"sigma_d"`    // scatter of duration-long means of the flux with transits masked, fractional
	NTransits int     `json:"n_transits"` // transits with data (see NTransitsWithData)
}

// MES returns the multiple-event statistic of SPEC A4 for a transit model on a light curve,
//
//	MES = (mean in-transit depth of the model) / σ_D × √N,
//
// where the mean depth is MeanInTransitDepth of model over the valid cadences, σ_D is SigmaD of flat with
// every transit window masked (MaskTransits, so the flux may hold the planet or not), and N is
// NTransitsWithData. t, flat and model are parallel: times in days (sorted), the detrended flux (NaN for a
// cadence that is not valid) and the model flux at those times (e.g. transit.Params.Flux). durationDays is
// the model's T14. MES is 0 when no transit has data and NaN when σ_D cannot be measured.
//
// At fixed σ_D and N the MES is linear in the mean depth, so a depth that achieves a target MES is
// RequiredMeanDepth(target, σ_D, N).
func MES(t, flat, model []float64, periodDays, t0Days, durationDays float64) Signal {
	if len(model) != len(t) {
		panic("noise: MES: model and time differ in length")
	}
	masked := MaskTransits(t, flat, periodDays, t0Days, durationDays)
	s := Signal{SigmaD: SigmaD(t, masked, durationDays)}
	tv := make([]float64, 0, len(t))
	mv := make([]float64, 0, len(t))
	for i := range t {
		if stat.Finite(t[i]) && stat.Finite(flat[i]) {
			tv = append(tv, t[i])
			mv = append(mv, model[i])
		}
	}
	s.MeanDepth = MeanInTransitDepth(tv, mv, periodDays, t0Days, durationDays)
	s.NTransits = NTransitsWithData(tv, periodDays, t0Days, durationDays)
	s.MES = mes(s)
	return s
}

// MESInto is MES for a caller that measures many signals on one light curve. t, flat and model hold the valid
// cadences only (t finite and sorted, flat finite), cadenceDays is their cadence (CadenceDays(t)), and work is
// scratch space of length at least 4·len(t)+1; it allocates nothing. The transit mask reaches D/2 + cadenceDays
// from each mid-time, σ_D is SigmaDInto of the unmasked cadences with that same cadence, and N is
// CountTransits(t, cadenceDays, …). It agrees with MES to rounding (MES takes σ_D's cadence from the unmasked
// cadences and centres its sums on the mean). It panics when the slices differ in length or work is too short.
func MESInto(work, t, flat, model []float64, cadenceDays, periodDays, t0Days, durationDays float64) Signal {
	n := len(t)
	if len(flat) != n || len(model) != n {
		panic("noise: MESInto: time, flux and model differ in length")
	}
	if len(work) < 4*n+1 {
		panic("noise: MESInto: work is shorter than 4·len(t)+1")
	}
	s := Signal{MeanDepth: MeanInTransitDepth(t, model, periodDays, t0Days, durationDays)}
	half := durationDays/2 + cadenceDays
	tv, fv := work[:0:n], work[n:n:2*n]
	for i, ti := range t {
		if inWindow(ti, periodDays, t0Days, half) {
			continue
		}
		tv = append(tv, ti)
		fv = append(fv, flat[i])
	}
	s.SigmaD = SigmaDInto(work[2*n:], tv, fv, cadenceDays, durationDays)
	s.NTransits = CountTransits(t, cadenceDays, periodDays, t0Days, durationDays)
	s.MES = mes(s)
	return s
}

// mes returns MeanDepth / SigmaD · √NTransits: 0 without transits, NaN when σ_D is not positive.
func mes(s Signal) float64 {
	switch {
	case s.NTransits == 0:
		return 0
	case math.IsNaN(s.SigmaD) || s.SigmaD <= 0:
		return math.NaN()
	}
	return s.MeanDepth / s.SigmaD * math.Sqrt(float64(s.NTransits))
}

// RequiredMeanDepth returns the mean in-transit depth that gives a transit the multiple-event statistic mes
// on a light curve with noise sigmaD and n transits with data: mes · σ_D / √n (the inverse of MES).
func RequiredMeanDepth(mes, sigmaD float64, n int) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	return mes * sigmaD / math.Sqrt(float64(n))
}

// MeanInTransitDepth returns the mean of 1 − model over the cadences inside a transit window, |t − (t0 + kP)|
// ≤ D/2 for some integer k: the average dimming the model causes where a transit can be seen. t should hold
// the valid cadences only; cadences with a non-finite time or model value are skipped. It is 0 when no
// cadence falls in a window.
func MeanInTransitDepth(t, model []float64, periodDays, t0Days, durationDays float64) float64 {
	var sum float64
	n := 0
	for i, ti := range t {
		if !stat.Finite(ti) || !stat.Finite(model[i]) || !inWindow(ti, periodDays, t0Days, durationDays/2) {
			continue
		}
		sum += 1 - model[i]
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// NTransitsWithData returns the number of transits with data: epochs k whose window |t − (t0 + kP)| ≤ D/2
// holds at least half the cadences a full window would, i.e. at least max(1, ⌈D/(2c)⌉) of the times in t,
// c being the cadence (the median spacing of t). t holds the times of the valid cadences, sorted; NaN times
// are skipped. This is stricter than the grader's "observed" (one cadence in the window, SPEC A5): a transit
// half lost in a gap adds little signal, and MES should not count it.
func NTransitsWithData(t []float64, periodDays, t0Days, durationDays float64) int {
	tv := make([]float64, 0, len(t))
	for _, x := range t {
		if stat.Finite(x) {
			tv = append(tv, x)
		}
	}
	return CountTransits(tv, cadenceDays(tv), periodDays, t0Days, durationDays)
}

// CountTransits is NTransitsWithData for finite, sorted t whose cadence cadenceDays the caller knows: the
// epochs k whose window |t − (t0 + kP)| ≤ D/2 holds at least max(1, ⌈D/(2·cadenceDays)⌉) times of t. It
// allocates nothing and costs O(epochs · log n) when the windows do not overlap (D < P), else O(n).
func CountTransits(t []float64, cadenceDays, periodDays, t0Days, durationDays float64) int {
	if len(t) == 0 || !(periodDays > 0) || !(durationDays > 0) {
		return 0
	}
	need := 1
	if cadenceDays > 0 {
		need = max(1, int(math.Ceil(durationDays/(2*cadenceDays)-1e-9)))
	}
	half := durationDays / 2
	epoch := func(x float64) int { return int(math.Floor((x-t0Days)/periodDays + 0.5)) }
	inside := func(x float64, k int) bool { return math.Abs(x-t0Days-float64(k)*periodDays) <= half }
	first, last := epoch(t[0]), epoch(t[len(t)-1])
	if half >= periodDays/2 || last-first >= len(t) {
		// Overlapping windows (every time belongs to its nearest epoch), or more epochs than times: count the
		// runs of one epoch in time order.
		count, last, transits := 0, math.MinInt, 0
		for _, x := range t {
			k := epoch(x)
			if !inside(x, k) {
				continue
			}
			if k != last {
				if count >= need {
					transits++
				}
				last, count = k, 0
			}
			count++
		}
		if count >= need {
			transits++
		}
		return transits
	}
	// Disjoint windows: the times of epoch k lie within D/2 of its mid-time (up to rounding, which the
	// margin covers), so a binary search finds them. epoch(x) is monotonic in x, so these are the same times
	// the scan above would group under k.
	margin := 1e-6 * (1 + half)
	transits := 0
	for k := first; k <= last; k++ {
		mid := t0Days + float64(k)*periodDays
		count := 0
		for i := sort.SearchFloat64s(t, mid-half-margin); i < len(t) && t[i] <= mid+half+margin && count < need; i++ {
			if epoch(t[i]) == k && inside(t[i], k) {
				count++
			}
		}
		if count >= need {
			transits++
		}
	}
	return transits
}

// MaskTransits returns a copy of flux with the cadences within D/2 + one cadence of a mid-transit set to NaN
// (the extra cadence covers the exposure's smearing of ingress and egress).
func MaskTransits(t, flux []float64, periodDays, t0Days, durationDays float64) []float64 {
	out := make([]float64, len(flux))
	copy(out, flux)
	tv, _ := validPairs(t, flux)
	half := durationDays / 2
	if c := cadenceDays(tv); stat.Finite(c) {
		half += c
	}
	for i, ti := range t {
		if inWindow(ti, periodDays, t0Days, half) {
			out[i] = math.NaN()
		}
	}
	return out
}

// inWindow reports whether t lies within half days of a mid-transit t0 + kP.
func inWindow(t, periodDays, t0Days, half float64) bool {
	if !(periodDays > 0) {
		return false
	}
	dt := t - t0Days
	dt -= periodDays * math.Floor(dt/periodDays+0.5)
	return math.Abs(dt) <= half
}
