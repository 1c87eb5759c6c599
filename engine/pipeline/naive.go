package pipeline

import "transitbench/engine/lc"

// NaiveSNRThreshold is naive_v0's detection threshold on the BLS SNR (depth over its white-noise error,
// astropy's definition): 8, the workspace starter's threshold, so that naive_v0 is the starter's rule without
// the starter's depth cut (on the engine's search). Fixed once for the pipeline, never tuned on a set.
const NaiveSNRThreshold = 8.0

// Naive is naive_v0: plain BLS with no vetting at all (no depth cut, no shape, odd/even or secondary test). It
// reports the strongest peak as one row, scored by its SNR, when the SNR is at least NaiveSNRThreshold, and
// nothing otherwise.
func Naive(c *lc.LightCurve, star Star) ([]Row, error) {
	l, err := Prepare(c)
	if err != nil {
		return nil, err
	}
	peaks, err := l.Search(star, 1)
	if err != nil || len(peaks) == 0 {
		return nil, err
	}
	p := peaks[0]
	if p.SNR < NaiveSNRThreshold {
		return nil, nil
	}
	return []Row{{PeriodDays: p.PeriodDays, T0Days: p.T0Days, Score: p.SNR}}, nil
}
