package pipeline

import (
	_ "embed"
	"math"
	"slices"
	"sort"
	"sync"

	"transitbench/engine/bls"
	"transitbench/engine/lc"
	"transitbench/engine/vet"
)

// ExpertMaxSignals is how many signals the expert's iterative search takes out of a star at most: one more than
// the rows that count (SPEC A5 counts three), so that a strong false alarm or binary found first does not cost
// a planet its place.
const ExpertMaxSignals = 5

// ExpertStopSNR is the BLS SNR under which the expert's iterative search stops. The search's SNR reads a few
// per cent under the MES (coarse grid, box shape), and the planets that count start at MES 7.1; below 6 the
// year of a quiet star holds noise peaks of that height, so a lower stop would only add searches whose peaks
// the vetter drops.
const ExpertStopSNR = 6.0

// ExpertCandidates is the expert's search: an iterative BLS search on the transit-keeping detrending
// (ForStar), as Kepler's TPS runs it. Each search's strongest peak that passes the Candidates screen (two
// transits with data, no single event carrying over MaxSingleEventFraction of its SNR²; a failing peak's
// deepest event is dropped and the search run again, at most MaxSearches times) is a signal; its transit
// windows (vet.TransitMask) are removed from the light curve and the search runs again, until the strongest
// peak is under ExpertStopSNR or ExpertMaxSignals signals are out. An alias of a signal found before cannot
// come back (its transits are gone), and a planet under a strong false alarm or binary is found once those are
// masked. The signals are measured as Candidates measures its peaks: each with the others masked, in the order
// found.
func ExpertCandidates(c *lc.LightCurve, star Star) ([]Features, error) {
	l, err := Prepare(c)
	if err != nil {
		return nil, err
	}
	l = l.ForStar(star)
	v := MeasureVariability(l)
	cur := l
	var kept []keptPeak
	for len(kept) < ExpertMaxSignals {
		k, ok, err := cur.strongestSignal(star, kept)
		if err != nil {
			return nil, err
		}
		if !ok || k.peak.SNR < ExpertStopSNR {
			break
		}
		kept = append(kept, k)
		cur = cur.dropping(vet.TransitMask(cur.T, []vet.Ephemeris{ephemeris(k.peak)}))
		if len(cur.T) < minCadences {
			break
		}
	}
	return measureDistinct(l, star, v, distinctSignals(l.T, kept)), nil
}

// strongestSignal returns the strongest peak of l's search that passes the Candidates screen and is not a
// residual of a signal found before (residual), dropping the deepest event of a failing peak and searching
// again (at most MaxSearches searches); ok is false when none passes.
func (l *Light) strongestSignal(star Star, found []keptPeak) (keptPeak, bool, error) {
	cur := l
	for range MaxSearches {
		res, err := cur.periodogram(star)
		if err != nil || res == nil {
			return keptPeak{}, false, err
		}
		peaks := res.Peaks(CandidatePool)
		if len(peaks) == 0 {
			return keptPeak{}, false, nil
		}
		for _, p := range peaks {
			if residual(p, found) {
				continue
			}
			if cur.passesScreen(p) {
				return keptPeak{peak: p, pg: SummarisePeriodogram(res)}, true, nil
			}
		}
		cur = cur.withoutEvent(peaks[0])
	}
	return keptPeak{}, false, nil
}

// ResidualPeriodFraction is how close (relative) a period must come to a signal found before for the expert's
// search to take a peak there as that signal's residual: quasi-periodic dips (a spot group's, rolling band's)
// drift in phase, so masking their box leaves a forest of peaks within a few per cent of their period. Two
// planets of one star are almost never that close (period ratios under 1.2 are rare among Kepler's
// multi-planet systems, Fabrycky et al. 2014, and under 1.05 unstable), so nothing is lost.
const ResidualPeriodFraction = 0.05

// residual reports whether p's period lies within ResidualPeriodFraction of a found signal's.
func residual(p bls.Peak, found []keptPeak) bool {
	for _, k := range found {
		if math.Abs(p.PeriodDays/k.peak.PeriodDays-1) < ResidualPeriodFraction {
			return true
		}
	}
	return false
}

// ExpertThreshold is the probability of being a counted planet above which the expert prints a row: a row
// scores +1 when it claims a planet and −1 when it is a false candidate (SPEC A5), so its expected contribution
// p − (1 − p) = 2p − 1 is positive exactly when p > ½. (A half-credit alias scores +½, so a row whose chance of
// a full match is below ½ may still pay on a star whose signal is an alias; the classifier is trained on full
// matches, and the break-even is stated for them.)
const ExpertThreshold = 0.5

// The binary giveaways the expert applies as rules before its classifier: the tests of Kepler's DV and
// Robovetter that no planet fails (SPEC A4 counts a binary given away by the same tests). A classifier learns
// them only as far as its train pool holds binaries past each bound, and a deep binary with one of them, met
// rarely there, can still score like the hot Jupiters beside it.
const (
	// MaxPlanetRpRs is the largest radius ratio a planet's transit may imply: above 0.3 (a depth over 9 %)
	// the body is a star (SPEC A4's "too deep"; the largest Kepler planets around Sun-like stars reach ≈ 0.2).
	MaxPlanetRpRs = 0.3
	// SecondaryGiveawayMES and SecondaryGiveawayRatio: a secondary eclipse at least this significant and
	// this deep against the transit is a stellar companion's. A planet's occultation is its dayside's
	// light, at most ≈ 10⁻³–10⁻² of its transit depth for the hottest Jupiters (Kepler-13 Ab: 1.5 %).
	SecondaryGiveawayMES   = 7.1
	SecondaryGiveawayRatio = 0.1
	// OddEvenGiveawaySigma: odd and even transits that differ by this many σ (the refined statistic, with its
	// systematic floor) are two different eclipses, not one planet's.
	OddEvenGiveawaySigma = 5.0
)

// BinaryGiveaway returns why a candidate is a binary by rule ("too_deep", "secondary", "odd_even"), or "".
func BinaryGiveaway(f *Features) string {
	r := &f.Refined
	switch {
	case f.Vet.RpRs > MaxPlanetRpRs:
		return "too_deep"
	case r.SigmaD > 0 && r.Fit.Depth > 0 && r.SecondaryMES >= SecondaryGiveawayMES && r.SecondaryDepth/r.Fit.Depth >= SecondaryGiveawayRatio:
		return "secondary"
	case r.OddDepthErr > 0 && r.OddEvenSigma >= OddEvenGiveawaySigma:
		return "odd_even"
	}
	return ""
}

//go:embed expert_model.json
var expertModelJSON []byte

// embeddedExpertVetter parses expert_model.json once.
var embeddedExpertVetter = sync.OnceValues(func() (*VetterModel, error) { return ParseVetter(expertModelJSON) })

// EmbeddedExpertVetter returns the expert's classifier embedded in the program (expert_model.json), trained by
// `transitbench baselines train-vetter --pipeline expert` on the expert's own candidates.
func EmbeddedExpertVetter() (*VetterModel, error) { return embeddedExpertVetter() }

// Expert is the expert pipeline: ExpertCandidates without the binaries' giveaways (BinaryGiveaway), each
// scored by the classifier m, printed when its probability is above ExpertThreshold, highest first.
func Expert(c *lc.LightCurve, star Star, m *VetterModel) ([]Row, error) {
	cands, err := ExpertCandidates(c, star)
	if err != nil {
		return nil, err
	}
	cands = slices.DeleteFunc(cands, func(f Features) bool { return BinaryGiveaway(&f) != "" })
	rows := rowsAbove(cands, m, ExpertThreshold)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Score > rows[j].Score })
	return rows, nil
}
