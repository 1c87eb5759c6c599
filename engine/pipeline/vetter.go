package pipeline

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"transitbench/engine/gbt"
	"transitbench/engine/lc"
)

// VetterPeaks is the number of BLS peaks per star the learned vetter examines.
const VetterPeaks = 3

// VetterThreshold is the probability above which the learned vetter keeps a peak. A kept row scores +1 when it
// is a planet and −1 when it is a false candidate (SPEC A5), so its expected contribution p − (1 − p) is
// positive exactly when p > ½.
const VetterThreshold = 0.5

// VetterModel is the trained classifier as trained by `transitbench baselines train-vetter` (JSON of gbt.Model
// plus how it was trained).
type VetterModel struct {
	// Training records the command's inputs and outcome (train pool, stars, seed, counts); informative only.
	Training json.RawMessage `json:"training,omitempty"`
	Model    gbt.Model       `json:"model"`
}

//go:embed vetter_model.json
var vetterModelJSON []byte

var (
	vetterOnce  sync.Once
	vetterModel *VetterModel
	vetterErr   error
)

// EmbeddedVetter returns the classifier embedded in the program (vetter_model.json).
func EmbeddedVetter() (*VetterModel, error) {
	vetterOnce.Do(func() { vetterModel, vetterErr = ParseVetter(vetterModelJSON) })
	return vetterModel, vetterErr
}

// ParseVetter decodes a vetter model and checks that it takes FeatureNames.
func ParseVetter(b []byte) (*VetterModel, error) {
	var m VetterModel
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("pipeline: vetter model: %w", err)
	}
	if !slices.Equal(m.Model.Features, FeatureNames) {
		return nil, fmt.Errorf("pipeline: the vetter model takes features %v, the pipeline computes %v: retrain it with 'transitbench baselines train-vetter'",
			m.Model.Features, FeatureNames)
	}
	return &m, nil
}

// Candidates prepares c, searches it and returns the features of up to VetterPeaks peaks, strongest first.
func Candidates(c *lc.LightCurve, star Star) ([]Features, error) {
	l, err := Prepare(c)
	if err != nil {
		return nil, err
	}
	peaks, err := l.Search(star, VetterPeaks)
	if err != nil || len(peaks) == 0 {
		return nil, err
	}
	v := MeasureVariability(l)
	out := make([]Features, len(peaks))
	for i, p := range peaks {
		out[i] = Compute(l, star, p, i, peaks[0].SNR, v)
	}
	return out, nil
}

// LearnedVetter is learned_vetter: the features of up to three BLS peaks (Candidates), each kept when the
// classifier m gives it a probability of being a planet above VetterThreshold, as a row scored by that
// probability.
func LearnedVetter(c *lc.LightCurve, star Star, m *VetterModel) ([]Row, error) {
	cands, err := Candidates(c, star)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for i := range cands {
		p := m.Model.Predict(cands[i].Vector())
		if p > VetterThreshold {
			rows = append(rows, Row{PeriodDays: cands[i].Peak.PeriodDays, T0Days: cands[i].Peak.T0Days, Score: p})
		}
	}
	return rows, nil
}

// Names of the pipelines Run knows.
const (
	NameNaive         = "naive_v0"
	NameLearnedVetter = "learned_vetter"
)

// Run runs the pipeline called name (NameNaive or NameLearnedVetter) with the embedded vetter.
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
	}
	return nil, fmt.Errorf("pipeline: unknown pipeline %q: use %s or %s", name, NameNaive, NameLearnedVetter)
}
