package baselines

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/gbt"
	"transitbench/engine/lc"
	"transitbench/engine/pipeline"
	"transitbench/grader"
	"transitbench/workspace/internal/pool"
)

// TrainOptions configure TrainVetter.
type TrainOptions struct {
	// Home is the data directory; "" means data.Home().
	Home string
	// Stars is how many stars of the train pool to use, the first in id order (default DefaultTrainStars).
	// Only scored stars give examples.
	Stars int
	// Seed seeds the classifier's row subsampling (default 1).
	Seed uint64
	// Workers is the number of stars processed at once (default 1).
	Workers int
	// Params are the classifier's parameters; Seed overrides Params.Seed.
	Params gbt.Params
	// Progress, when set, is called after each star.
	Progress func(done, total int)
	// Pipeline is the classifier pipeline whose candidates are labelled: pipeline.NameLearnedVetter (default)
	// or pipeline.NameExpert.
	Pipeline string
	// Examples, when set, is given the labelled peaks before the classifier is fitted (to write them with
	// WriteExamplesCSV, for instance); an error stops the training.
	Examples func([]Example) error
}

// DefaultTrainStars is the default number of train-pool stars the vetter is trained on (the pool must hold
// them: 'transitbench data build --set train --stars 3000'). The search and the features take about 0.9 s of
// CPU per star, so 3,000 stars take about 22 minutes on two cores. The choice comes from a learning curve on
// the train pool alone (sim-5, 3,000 stars, star-grouped 5-fold cross-validation, gain = kept planets − kept
// non-planets of 949 planet peaks): training on the peaks of 400 / 800 / 1,200 / 1,600 / 2,400 stars gives
// 705 / 750 / 761 / 777 / 783, so a 1,000-star pool left about 3.5 % of the planet peaks unkept and more than
// 3,000 would add little.
const DefaultTrainStars = 3000

// TrainReport describes a training run; it is stored in the model as VetterModel.Training.
type TrainReport struct {
	// Pipeline is the pipeline whose candidates the model was trained on (absent: learned_vetter).
	Pipeline        string `json:"pipeline,omitempty"`
	Pool            string `json:"pool"`
	PoolGenerator   string `json:"pool_generator"`
	PoolFingerprint string `json:"pool_fingerprint"`
	PoolStars       int    `json:"pool_stars"`
	// TrainPlanet is the pool's train-only planet knobs (sets.TrainPlanet), as its manifest records them.
	TrainPlanet   *sets.TrainPlanetKnobs `json:"train_planet,omitempty"`
	StarsUsed     int                    `json:"stars_used"`
	ScoredStars   int                    `json:"scored_stars"`
	Examples      int                    `json:"examples"`
	Positives     int                    `json:"positives"`
	Seed          uint64                 `json:"seed"`
	TrainAccuracy float64                `json:"train_accuracy"`
	// Seconds is the training's wall time. It is printed but not stored in the model, so that retraining
	// rewrites the model file byte for byte.
	Seconds float64 `json:"seconds,omitempty"`
}

// Example is one labelled BLS peak of a train-pool star.
type Example struct {
	StarID string    `json:"star_id"`
	Rank   int       `json:"rank"`
	X      []float64 `json:"x"`
	Planet bool      `json:"planet"`
}

// LabelPeak reports whether a row at the peak would get full credit on its star under the grader's rules
// (SPEC A5): the label a vetter learns.
func LabelPeak(ans data.Answer, valid []float64, periodDays, t0Days float64) bool {
	r := grader.MatchStar(ans, valid, []grader.Row{{PeriodDays: periodDays, T0Days: t0Days, Score: 1}})
	return r.Credit == 1
}

// Examples computes the labelled candidates of the classifier pipeline name (pipeline.CandidatesOf) on the
// scored stars among ids of set, in id order and candidate rank.
func Examples(ctx context.Context, name string, set *sets.Set, ids []string, workers int, progress func(done, total int)) ([]Example, error) {
	search := pipeline.CandidatesOf(name)
	if search == nil {
		return nil, fmt.Errorf("%w %q: a classifier is trained for %s or %s", ErrUnknownPipeline, name, pipeline.NameLearnedVetter, pipeline.NameExpert)
	}
	per := make([][]Example, len(ids))
	errs := make([]error, len(ids))
	var after func(i, done int)
	if progress != nil {
		after = func(_, done int) { progress(done, len(ids)) }
	}
	pool.Each(ctx, len(ids), workers, func(i int) { per[i], errs[i] = starExamples(set, ids[i], search) }, after)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Example
	for i := range ids {
		if errs[i] != nil {
			return nil, fmt.Errorf("baselines: star %s: %w", ids[i], errs[i])
		}
		out = append(out, per[i]...)
	}
	return out, nil
}

func starExamples(set *sets.Set, id string, search func(*lc.LightCurve, pipeline.Star) ([]pipeline.Features, error)) ([]Example, error) {
	ans := set.Answers[id]
	if !ans.Scored {
		return nil, nil
	}
	c, star, err := set.Star(id)
	if err != nil {
		return nil, err
	}
	cands, err := search(c, PipelineStar(star))
	if err == pipeline.ErrTooFewCadences {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	valid, err := set.ValidTimes(id)
	if err != nil {
		return nil, err
	}
	out := make([]Example, len(cands))
	for i := range cands {
		p := cands[i].Peak
		out[i] = Example{StarID: id, Rank: i, X: cands[i].Vector(), Planet: LabelPeak(ans, valid, p.PeriodDays, p.T0Days)}
	}
	return out, nil
}

// PipelineStar converts star.json's metadata to what a pipeline takes (nil: all unknown).
func PipelineStar(s *data.Star) pipeline.Star {
	if s == nil {
		return pipeline.Star{}
	}
	return pipeline.Star{RadiusRsun: s.RadiusRsun, MassMsun: s.MassMsun, Teff: s.Teff, Logg: s.Logg}
}

// TrainVetter trains the learned vetter's classifier (SPEC A7) on the train pool only: every BLS peak of the
// learned_vetter pipeline (up to three per star) on the first opt.Stars stars of the pool, labelled planet when
// a row at it would get full credit (LabelPeak), and a gbt model trained on their features with opt.Seed. The
// same pool, star count, seed and parameters give the same model.
func TrainVetter(ctx context.Context, opt TrainOptions) (*pipeline.VetterModel, *TrainReport, error) {
	start := time.Now()
	home := opt.Home
	if home == "" {
		var err error
		if home, err = data.Home(); err != nil {
			return nil, nil, err
		}
	}
	if opt.Stars <= 0 {
		opt.Stars = DefaultTrainStars
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	popt := sets.Options{Context: ctx}
	if st := sets.StatusOf(home, sets.Train); !st.Built && !st.Interrupted {
		popt.Stars = max(opt.Stars, sets.DefaultTrainStars) // a first build makes a pool large enough
	}
	set, err := sets.Open(home, sets.Train, popt)
	if err != nil {
		return nil, nil, err
	}
	if len(set.IDs) < opt.Stars {
		return nil, nil, fmt.Errorf("baselines: the train pool has %d stars, fewer than the %d to train on: rebuild it with 'transitbench data build --set train --stars %d --force', or train on fewer stars",
			len(set.IDs), opt.Stars, opt.Stars)
	}
	ids := set.IDs[:opt.Stars]
	if opt.Pipeline == "" {
		opt.Pipeline = pipeline.NameLearnedVetter
	}
	ex, err := Examples(ctx, opt.Pipeline, set, ids, opt.Workers, opt.Progress)
	if err != nil {
		return nil, nil, err
	}
	if opt.Examples != nil {
		if err := opt.Examples(ex); err != nil {
			return nil, nil, err
		}
	}
	rep := &TrainReport{Pool: set.Name, PoolGenerator: set.Generator, PoolFingerprint: set.Fingerprint,
		PoolStars: len(set.IDs), TrainPlanet: set.TrainPlanet, StarsUsed: len(ids), Examples: len(ex), Seed: opt.Seed}
	if opt.Pipeline != pipeline.NameLearnedVetter {
		rep.Pipeline = opt.Pipeline // learned_vetter's models, from before there was a choice, name none
	}
	for _, id := range ids {
		if set.Answers[id].Scored {
			rep.ScoredStars++
		}
	}
	m, err := Fit(ex, opt.Params, opt.Seed)
	if err != nil {
		return nil, nil, err
	}
	ok := 0
	for _, e := range ex {
		if e.Planet {
			rep.Positives++
		}
		if (m.Predict(e.X) > pipeline.VetterThreshold) == e.Planet {
			ok++
		}
	}
	if len(ex) > 0 {
		rep.TrainAccuracy = math.Round(1e4*float64(ok)/float64(len(ex))) / 1e4
	}
	info, _ := json.Marshal(rep) // before Seconds is set: the model file holds no wall time
	rep.Seconds = math.Round(time.Since(start).Seconds())
	return &pipeline.VetterModel{Format: pipeline.VetterFormat, Training: info, Model: *m}, rep, nil
}

// Fit trains the classifier on labelled examples with the given parameters and seed.
func Fit(ex []Example, p gbt.Params, seed uint64) (*gbt.Model, error) {
	x := make([][]float64, len(ex))
	y := make([]float64, len(ex))
	for i, e := range ex {
		x[i] = e.X
		if e.Planet {
			y[i] = 1
		}
	}
	p.Seed = seed
	return gbt.Train(x, y, pipeline.FeatureNames, p)
}
