package quicklook

import (
	"math"

	"transitbench/engine/bls"
	"transitbench/engine/multi"
)

// Planets finds up to n planets of the analysed star one after another (engine/multi.Iterate): Search on the
// valid detrended cadences, the best peak's transits masked over multi.DefaultWindowFactor × its fitted T14,
// Search again, until n planets or a best peak below multi.DefaultMinSNR. Deep events with fewer than three
// transits are masked on the way and returned with Single set. Planets(a, 2)'s second planet is "the next
// planet after masking" the star view shows; each planet's Next holds the peaks that competed with it.
func Planets(a *Analysis, n, workers int) ([]multi.Planet, error) {
	var t, y, dy []float64
	for i, v := range a.Flat {
		if !a.Flagged[i] && !math.IsNaN(v) {
			e := 1.0
			if i < len(a.Err) && a.Err[i] > 0 {
				e = a.Err[i]
			}
			t, y, dy = append(t, a.Time[i]), append(y, v), append(dy, e)
		}
	}
	search := func(masked []float64) ([]bls.Peak, error) {
		_, _, peaks, err := Search(t, masked, dy, a.Star, workers)
		return peaks, err
	}
	return multi.Iterate(t, y, search, multi.Options{Planets: n})
}
