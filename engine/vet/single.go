package vet

import (
	"math"
	"sort"

	"transitbench/engine/noise"
	"transitbench/engine/stat"
)

// Event is one transit measured on its own: a single event, which has a mid-time and a depth but no period.
type Event struct {
	// T0Days is the centre of the deepest box of width DurationDays that holds data (see Events).
	T0Days       float64 `json:"t0_days"`
	DurationDays float64 `json:"duration_days"`
	// Depth is the median flux minus the mean flux in the box; DepthErr = σ_D, the noise of a mean over a
	// duration; MES = Depth/σ_D, the event's MES (SPEC A4 for one transit).
	Depth    float64 `json:"depth"`
	DepthErr float64 `json:"depth_err"`
	MES      float64 `json:"mes"`
	// Cadences counts the valid cadences in the box.
	Cadences int `json:"cadences"`
}

// Events measures the transits of e (t0 + kP, k any integer) inside the span of the valid cadences of flat
// (detrended; NaN: not valid) one by one: for each, the deepest box of width e.DurationDays whose centre lies
// within ±DurationDays of the predicted mid-time, in steps of a cadence, among the boxes that have data as
// SPEC A4's MES counts it; deepest in significance (depth × √cadences, so that a box half over a gap's edge does
// not win on a few noisy cadences) (at least ⌈D / 2 cadences⌉ valid cadences within ±D/2). A transit without such a
// box (in a gap) is left out, so an event's mid-time always has data under it. σ_D is measured with the
// windows of e masked. Nil when e has no positive period and duration or flat no valid cadence.
func Events(t, flat []float64, e Ephemeris) []Event {
	if len(t) != len(flat) || !(e.PeriodDays > 0) || !(e.DurationDays > 0) {
		return nil
	}
	var tv, fv []float64
	for i, x := range t {
		if stat.Finite(x) && stat.Finite(flat[i]) {
			tv, fv = append(tv, x), append(fv, flat[i])
		}
	}
	if len(tv) < 2 || !sort.Float64sAreSorted(tv) {
		return nil
	}
	cad := noise.CadenceDays(tv)
	if !(cad > 0) {
		return nil
	}
	d := e.DurationDays
	need := int(math.Ceil(d / (2 * cad)))
	sum := make([]float64, len(fv)+1)
	for i, f := range fv {
		sum[i+1] = sum[i] + f
	}
	base := stat.Median(append([]float64(nil), fv...))
	masked := make([]float64, len(fv))
	for i, x := range tv {
		masked[i] = fv[i]
		if math.Abs(math.Remainder(x-e.T0Days, e.PeriodDays)) <= d {
			masked[i] = math.NaN()
		}
	}
	sigma := noise.SigmaD(tv, masked, d)
	var out []Event
	first := math.Ceil((tv[0] - d - e.T0Days) / e.PeriodDays)
	for k := first; e.T0Days+k*e.PeriodDays <= tv[len(tv)-1]+d; k++ {
		tc := e.T0Days + k*e.PeriodDays
		best, score := Event{}, math.Inf(-1)
		for c := tc - d; c <= tc+d+1e-9; c += cad {
			lo := sort.SearchFloat64s(tv, c-d/2)
			hi := sort.SearchFloat64s(tv, c+d/2)
			for hi < len(tv) && tv[hi] <= c+d/2 {
				hi++
			}
			n := hi - lo
			if n < need || n == 0 {
				continue
			}
			depth := base - (sum[hi]-sum[lo])/float64(n)
			if sc := depth * math.Sqrt(float64(n)); sc > score {
				best, score = Event{T0Days: c, DurationDays: d, Depth: depth, Cadences: n}, sc
			}
		}
		if math.IsInf(score, -1) {
			continue
		}
		best.DepthErr = sigma
		if sigma > 0 {
			best.MES = best.Depth / sigma
		}
		out = append(out, best)
	}
	return out
}
