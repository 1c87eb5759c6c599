package pipeline

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"

	"transitbench/engine/bls"
	"transitbench/engine/gbt"
	"transitbench/engine/lc"
	"transitbench/engine/vet"
)

// VetterPeaks is the number of BLS peaks per star the learned vetter examines.
const VetterPeaks = 3

// VetterThreshold is the probability above which the learned vetter keeps a peak. A kept row scores +1 when it
// is a planet and −1 when it is a false candidate (SPEC A5), so its expected contribution p − (1 − p) is
// positive exactly when p > ½.
const VetterThreshold = 0.5

// VetterFormat is the format of the vetter model this program reads: 2 since the features became scale-free
// (FeatureNames: capped log SNR and MES, vet.Refine's odd/even and secondary); a model of another format was
// trained on other features and is refused.
const VetterFormat = 2

// VetterModel is the trained classifier as trained by `transitbench baselines train-vetter` (JSON of gbt.Model
// plus how it was trained).
type VetterModel struct {
	// Format is VetterFormat for a model this program can use.
	Format int `json:"format"`
	// Training records the command's inputs and outcome (train pool, stars, seed, counts); informative only.
	Training json.RawMessage `json:"training,omitempty"`
	Model    gbt.Model       `json:"model"`
}

//go:embed vetter_model.json
var vetterModelJSON []byte

// embeddedVetter parses vetter_model.json once.
var embeddedVetter = sync.OnceValues(func() (*VetterModel, error) { return ParseVetter(vetterModelJSON) })

// EmbeddedVetter returns the classifier embedded in the program (vetter_model.json).
func EmbeddedVetter() (*VetterModel, error) { return embeddedVetter() }

// ParseVetter decodes a vetter model and checks that it takes FeatureNames.
func ParseVetter(b []byte) (*VetterModel, error) {
	var m VetterModel
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("pipeline: vetter model: %w", err)
	}
	if m.Format != VetterFormat {
		return nil, fmt.Errorf("pipeline: the vetter model has format %d, this program reads format %d (other features): retrain it with 'transitbench baselines train-vetter'",
			m.Format, VetterFormat)
	}
	if !slices.Equal(m.Model.Features, FeatureNames) {
		return nil, fmt.Errorf("pipeline: the vetter model takes features %v, the pipeline computes %v: retrain it with 'transitbench baselines train-vetter'",
			m.Model.Features, FeatureNames)
	}
	return &m, nil
}

// CandidatePool is how many BLS peaks Candidates looks through for its VetterPeaks candidates.
const CandidatePool = 20

// MaxSingleEventFraction is the largest share of a peak's SNR² one transit may carry for Candidates to keep it.
const MaxSingleEventFraction = 0.75

// MaxSearches is how many BLS searches Candidates runs at most: after each, the strongest single event of the
// strongest rejected peak is masked before searching again.
const MaxSearches = 3

// Candidates prepares c, searches it and returns the features of up to VetterPeaks peaks, strongest first: the
// strongest of the first CandidatePool distinct BLS peaks that have at least two transits with data
// (vet's NTransits) and whose strongest single transit carries at most MaxSingleEventFraction of the SNR²
// (vet's SingleEventFraction; ≈ 1/N for a steady signal of N transits). One deep event (a flare's edge, a
// stray outlier, a single eclipse) makes peaks at every period that puts a box on it; such a peak cannot be a
// planet the grader counts (it needs three-quarters of the true transits hit). When fewer than VetterPeaks
// peaks pass, the cadences within one duration of the strongest rejected peak's deepest event are dropped and
// the search runs again (at most MaxSearches searches), so that the event stops crowding the real signal out.
// Rank counts the kept peaks; TopSNR is the first kept peak's SNR; each peak's SDE is measured on the periodogram
// of the search that found it, and its SharedEvents against the candidates kept before it. The screen (transits,
// single events) runs on the search's detrending; a kept peak made of stronger peaks' transits, or covering a
// stronger peak's transits (an alias), is dropped (distinctSignals); the features of the rest are measured at
// the end, each with the other kept peaks masked (Compute, Context.Others, measureDistinct).
func Candidates(c *lc.LightCurve, star Star) ([]Features, error) {
	l, err := Prepare(c)
	if err != nil {
		return nil, err
	}
	l = l.ForStar(star)
	v := MeasureVariability(l)
	var kept []keptPeak
	for range MaxSearches {
		res, err := l.periodogram(star)
		if err != nil {
			return nil, err
		}
		if res == nil {
			break
		}
		all := res.Peaks(CandidatePool)
		if len(all) == 0 {
			break
		}
		pg := SummarisePeriodogram(res)
		var worst *bls.Peak
		for i, p := range all {
			if len(kept) == VetterPeaks {
				break
			}
			if duplicate(kept, p) {
				continue
			}
			if !l.passesScreen(p) {
				if worst == nil {
					worst = &all[i]
				}
				continue
			}
			kept = append(kept, keptPeak{peak: p, pg: pg})
		}
		if len(kept) == VetterPeaks || worst == nil {
			break
		}
		l = l.withoutEvent(*worst)
	}
	return measureDistinct(l, star, v, distinctSignals(l.T, kept)), nil
}

// distinctSignals keeps, in order (strongest first), the peaks that are signals of their own: a peak is dropped
// when fewer than two of its transits with data are left once the stronger kept peaks are masked (it is made of
// their transits), or when masking it leaves a stronger kept peak fewer than two (it covers that peak's
// transits: an alias at P/2 or P/n of a planet holds every one of the planet's transits and some empty epochs,
// and masking it would take the planet out of its own measurement).
func distinctSignals(t []float64, kept []keptPeak) []keptPeak {
	var out []keptPeak
	for _, k := range kept {
		var stronger []vet.Ephemeris
		for _, o := range out {
			stronger = append(stronger, ephemeris(o.peak))
		}
		if epochsLeft(t, ephemeris(k.peak), stronger) < 2 {
			continue
		}
		mine := []vet.Ephemeris{ephemeris(k.peak)}
		covers := false
		for _, o := range out {
			if epochsLeft(t, ephemeris(o.peak), mine) < 2 {
				covers = true
				break
			}
		}
		if !covers {
			out = append(out, k)
		}
	}
	return out
}

// epochsLeft counts the transits of e with at least one cadence of t within D/2 of the mid-time that the
// transit windows of masked (vet.TransitMask) leave.
func epochsLeft(t []float64, e vet.Ephemeris, masked []vet.Ephemeris) int {
	if !(e.PeriodDays > 0) {
		return 0
	}
	m := vet.TransitMask(t, masked)
	seen := map[int]bool{}
	for i, x := range t {
		if m[i] {
			continue
		}
		k := math.Round((x - e.T0Days) / e.PeriodDays)
		if math.Abs(x-e.T0Days-k*e.PeriodDays) <= e.DurationDays/2 {
			seen[int(k)] = true
		}
	}
	return len(seen)
}

// measureDistinct measures the kept peaks (measureKept). A peak left with fewer than two transits once the
// others are masked is not a candidate of its own: it is dropped and the others are measured again without it,
// so that no feature (rank, top SNR, stronger peaks, masks) refers to a dropped peak.
func measureDistinct(l *Light, star Star, v Variability, kept []keptPeak) []Features {
	for {
		out := measureKept(l, star, v, kept)
		n := 0
		for i, f := range out {
			if f.Vet.NTransits >= 2 {
				kept[n] = kept[i]
				n++
			}
		}
		if n == len(kept) {
			return out
		}
		kept = kept[:n]
	}
}

// measureKept returns the features of the kept peaks, in order, each measured with the others masked.
func measureKept(l *Light, star Star, v Variability, kept []keptPeak) []Features {
	out := make([]Features, len(kept))
	for i, k := range kept {
		ctx := Context{Rank: i, TopSNR: kept[0].peak.SNR, Variability: v, Periodogram: k.pg}
		for j, o := range kept {
			if j < i {
				ctx.Stronger = append(ctx.Stronger, o.peak)
			}
			if j != i {
				ctx.Others = append(ctx.Others, ephemeris(o.peak))
			}
		}
		out[i] = Compute(l, star, k.peak, ctx)
	}
	return out
}

// passesScreen reports whether peak passes the Candidates screen on l: at least two transits with data and no
// single transit carrying over MaxSingleEventFraction of its SNR². The screen runs on the search's own
// detrending: it only counts transits and single events.
func (l *Light) passesScreen(p bls.Peak) bool {
	s := vet.Compute(l.T, l.Flat, p.PeriodDays, p.T0Days, p.DurationDays, nil)
	return s.NTransits >= 2 && s.SingleEventFraction <= MaxSingleEventFraction
}

// keptPeak is a peak Candidates keeps and the periodogram it was found in.
type keptPeak struct {
	peak bls.Peak
	pg   Periodogram
}

// ephemeris returns the peak's period, mid-time and box duration.
func ephemeris(p bls.Peak) vet.Ephemeris {
	return vet.Ephemeris{PeriodDays: p.PeriodDays, T0Days: p.T0Days, DurationDays: p.DurationDays}
}

// duplicate reports whether p's period is within 0.1 % of a kept candidate's.
func duplicate(ks []keptPeak, p bls.Peak) bool {
	for _, k := range ks {
		if math.Abs(p.PeriodDays/k.peak.PeriodDays-1) < 1e-3 {
			return true
		}
	}
	return false
}

// withoutEvent returns a copy of l without the cadences within one duration of the peak's deepest transit
// (the epoch whose window has the lowest mean flattened flux).
func (l *Light) withoutEvent(p bls.Peak) *Light {
	sum := map[int]float64{}
	n := map[int]int{}
	for i, t := range l.T {
		k := int(math.Floor((t-p.T0Days)/p.PeriodDays + 0.5))
		if math.Abs(t-p.T0Days-float64(k)*p.PeriodDays) <= p.DurationDays/2 {
			sum[k] += 1 - l.Flat[i]
			n[k]++
		}
	}
	best, bestDepth := 0, math.Inf(-1)
	for k, s := range sum {
		if d := s / float64(n[k]); d > bestDepth || d == bestDepth && k < best {
			best, bestDepth = k, d
		}
	}
	mid := p.T0Days + float64(best)*p.PeriodDays
	drop := make([]bool, len(l.T))
	for i, t := range l.T {
		drop[i] = math.Abs(t-mid) <= p.DurationDays
	}
	return l.dropping(drop)
}

// dropping returns a copy of l without the cadences i where drop[i] is set (the desaturations and the
// detrending window kept).
func (l *Light) dropping(drop []bool) *Light {
	out := &Light{DesatTimes: l.DesatTimes, WindowDays: l.WindowDays}
	for i, t := range l.T {
		if drop[i] {
			continue
		}
		out.T = append(out.T, t)
		out.Flux = append(out.Flux, l.Flux[i])
		out.Err = append(out.Err, l.Err[i])
		out.Flat = append(out.Flat, l.Flat[i])
		out.FlatErr = append(out.FlatErr, l.FlatErr[i])
	}
	return out
}

// LearnedVetter is learned_vetter: the features of up to three BLS peaks (Candidates), each kept when the
// classifier m gives it a probability of being a planet above VetterThreshold, as a row scored by that
// probability.
func LearnedVetter(c *lc.LightCurve, star Star, m *VetterModel) ([]Row, error) {
	cands, err := Candidates(c, star)
	if err != nil {
		return nil, err
	}
	return rowsAbove(cands, m, VetterThreshold), nil
}

// rowsAbove returns a row, scored by its probability, for each candidate that the classifier m gives a
// probability above threshold, in the candidates' order.
func rowsAbove(cands []Features, m *VetterModel, threshold float64) []Row {
	var rows []Row
	for i := range cands {
		if p := m.Model.Predict(cands[i].Vector()); p > threshold {
			rows = append(rows, Row{PeriodDays: cands[i].Peak.PeriodDays, T0Days: cands[i].Peak.T0Days, Score: p})
		}
	}
	return rows
}

// Names of the pipelines Run knows.
const (
	NameNaive         = "naive_v0"
	NameLearnedVetter = "learned_vetter"
	NameExpert        = "expert"
)

// Names lists the pipelines Run knows.
var Names = []string{NameNaive, NameLearnedVetter, NameExpert}

// Run runs the pipeline called name (one of Names) with its embedded classifier.
func Run(name string, c *lc.LightCurve, star Star) ([]Row, error) {
	switch name {
	case NameNaive:
		return Naive(c, star)
	case NameLearnedVetter:
		m, err := EmbeddedVetter()
		if err != nil {
			return nil, err
		}
		return LearnedVetter(c, star, m)
	case NameExpert:
		m, err := EmbeddedExpertVetter()
		if err != nil {
			return nil, err
		}
		return Expert(c, star, m)
	}
	return nil, fmt.Errorf("pipeline: unknown pipeline %q: use %s, %s or %s", name, NameNaive, NameLearnedVetter, NameExpert)
}

// CandidatesOf returns the candidate search of the classifier pipeline name: Candidates for learned_vetter,
// ExpertCandidates for expert; nil for another name.
func CandidatesOf(name string) func(*lc.LightCurve, Star) ([]Features, error) {
	switch name {
	case NameLearnedVetter:
		return Candidates
	case NameExpert:
		return ExpertCandidates
	}
	return nil
}
