package noise

import (
	"math"

	"transitbench/engine/stat"
)

// minWindows is the least number of duration-long windows SigmaD needs for a meaningful scatter.
const minWindows = 10

// SigmaD returns σ_D, the scatter of the mean of the detrended flux over windows of the given duration, as a
// fraction of the flux (SPEC A4). t holds times in days, sorted; flat the detrended flux (median ≈ 1). A cadence
// is used when its time and flux are finite, so callers pass the valid cadences only (lc.Clean) or set the
// flux of the others to NaN. For a σ_D of planet-free flux, mask the transits first (MaskTransits).
//
// Definition. With c the cadence (the median spacing of the used times) and m = max(1, round(D/c)) the number
// of cadences in a window of duration D, a window starts at every used cadence i and holds the used cadences
// with tᵢ ≤ t < tᵢ + (m − ½)c: at most m consecutive cadences of a regular grid. Windows holding fewer than
// ⌈m/2⌉ cadences (gaps) are skipped. σ_D is 1.4826 × the median absolute deviation of the windows' mean flux
// (a standard deviation that outliers, flares and residual transits barely move). For white noise of
// per-cadence σ it equals σ/√m (to within a few per cent: the few part-filled windows near gaps scatter more).
//
// It returns NaN when fewer than 10 windows qualify. The cost is O(n log n) for n cadences.
func SigmaD(t, flat []float64, durationDays float64) float64 {
	tv, fv := validPairs(t, flat)
	if len(tv) < 2 || !(durationDays > 0) {
		return math.NaN()
	}
	// Prefix sums of the flux minus its mean keep the window means accurate to rounding.
	var mean float64
	for _, f := range fv {
		mean += f
	}
	mean /= float64(len(fv))
	work := make([]float64, 2*len(fv)+1)
	return sigmaD(work, tv, fv, mean, cadenceDays(tv), durationDays)
}

// SigmaDInto is SigmaD for a caller that measures many σ_D on one light curve: t and flat hold the valid
// cadences only (finite, t sorted), cadenceDays is their cadence (CadenceDays(t)), and work is scratch space
// of length at least 2·len(t)+1. It allocates nothing. It centres the prefix sums on the median of flat where
// SigmaD centres them on the mean; the centre cancels from the window means' deviations from their median, so
// the two agree to rounding (about 1e-12 relative), not bit for bit. It panics when t and flat differ in length
// or work is too short.
func SigmaDInto(work, t, flat []float64, cadenceDays, durationDays float64) float64 {
	n := len(t)
	if len(flat) != n {
		panic("noise: SigmaDInto: time and flux differ in length")
	}
	if len(work) < 2*n+1 {
		panic("noise: SigmaDInto: work is shorter than 2·len(t)+1")
	}
	if n < 2 || !(durationDays > 0) {
		return math.NaN()
	}
	med := stat.Median(append(work[:0], flat...))
	return sigmaD(work, t, flat, med, cadenceDays, durationDays)
}

// sigmaD computes σ_D (see SigmaD) of the finite, sorted tv with finite flux fv and cadence c, from prefix
// sums of fv − center. work (length ≥ 2·len(tv)+1) holds the prefix sums and the window means.
func sigmaD(work, tv, fv []float64, center, c, durationDays float64) float64 {
	m := max(1, int(math.Round(durationDays/c)))
	span := (float64(m) - 0.5) * c
	need := (m + 1) / 2
	n := len(fv)
	cum := work[:n+1]
	cum[0] = 0
	for i, f := range fv {
		cum[i+1] = cum[i] + (f - center)
	}
	means := work[n+1 : n+1 : 2*n+1]
	j := 0
	for i := range tv {
		for j < len(tv) && tv[j] < tv[i]+span {
			j++
		}
		if k := j - i; k >= need {
			means = append(means, (cum[j]-cum[i])/float64(k))
		}
	}
	if len(means) < minWindows {
		return math.NaN()
	}
	return stat.MADToSigma * stat.MAD(means)
}

// CDPP returns the combined differential photometric precision at the given duration in hours, in ppm:
// 10⁶ · SigmaD(t, flat, durationHours/24). It is the noise a transit of that duration has to beat. Kepler's
// pipeline computes its CDPP differently (a wavelet-based whitening filter, Christiansen et al. 2012); for
// white noise both reduce to σ/√m, otherwise the two need not agree.
func CDPP(t, flat []float64, durationHours float64) (ppm float64) {
	return 1e6 * SigmaD(t, flat, durationHours/24)
}

// validPairs returns the times and fluxes of the cadences where both are finite.
func validPairs(t, f []float64) (tv, fv []float64) {
	if len(t) != len(f) {
		panic("noise: time and flux differ in length")
	}
	tv = make([]float64, 0, len(t))
	fv = make([]float64, 0, len(t))
	for i := range t {
		if stat.Finite(t[i]) && stat.Finite(f[i]) {
			tv = append(tv, t[i])
			fv = append(fv, f[i])
		}
	}
	return tv, fv
}

// cadenceDays returns the median spacing of sorted times, the cadence of a light curve with gaps.
func cadenceDays(t []float64) float64 {
	if len(t) < 2 {
		return math.NaN()
	}
	d := make([]float64, len(t)-1)
	for i := range d {
		d[i] = t[i+1] - t[i]
	}
	return stat.Median(d)
}

// CadenceDays returns the median spacing of sorted times: the cadence of a light curve with gaps.
func CadenceDays(t []float64) float64 { return cadenceDays(t) }
