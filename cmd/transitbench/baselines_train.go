package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/spf13/cobra"

	"transitbench/engine/gbt"
	"transitbench/engine/pipeline"
	"transitbench/workspace/baselines"
)

// trainVetterOptions are the inputs of 'transitbench baselines train-vetter'.
type trainVetterOptions struct {
	Stars    int    // --stars: train-pool stars to use (the first, in id order)
	Seed     uint64 // --seed: seed of the row subsampling
	Workers  int    // --workers: stars processed at once
	Trees    int    // --trees: boosting rounds
	Depth    int    // --depth: largest tree depth
	Out      string // --out: where to write the model
	Examples string // --examples: also write the labelled peaks to this CSV file ("": not)
	Pipeline string // --pipeline: learned_vetter or expert
}

func newTrainVetterCmd() *cobra.Command {
	opts := &trainVetterOptions{}
	cmd := &cobra.Command{
		Use:   "train-vetter",
		Short: "Train the learned vetter's or the expert's classifier on the train pool (seeded, reproducible)",
		Long: `Train the learned_vetter pipeline's gradient-boosted classifier (or, with --pipeline expert, the expert
pipeline's) on the train pool only and write it as JSON.

For the first --stars stars of the train pool (built on first use), the pipeline's search gives its candidates
per scored star (learned_vetter: up to three BLS peaks; expert: up to five signals of its iterative search);
each is labelled planet when a row at its period and mid-time would get full credit under
the grader's rules, and described by the vetting features of engine/pipeline. A model of --trees trees of depth
--depth (logistic loss, shrinkage 0.1, 80 % row subsampling seeded by --seed) is trained on them. The same pool,
stars, seed and parameters give the same file. Write it to engine/pipeline/vetter_model.json or
expert_model.json (the defaults, from the repository root) and rebuild to embed it.

--examples FILE also writes the labelled peaks as CSV (star_id, rank, planet 0/1, then the features, exact), the
table to study the vetter or try other classifiers on.

--json prints the training report: pool, stars used, examples, positives, seed, training accuracy, seconds.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runTrainVetter, opts),
	}
	f := cmd.Flags()
	f.IntVar(&opts.Stars, "stars", baselines.DefaultTrainStars, "train-pool stars to use (the first, in id order)")
	f.Uint64Var(&opts.Seed, "seed", 1, "seed of the classifier's row subsampling")
	f.IntVar(&opts.Workers, "workers", 2, "stars processed at once")
	f.IntVar(&opts.Trees, "trees", gbt.DefaultTrees, "boosting rounds")
	f.IntVar(&opts.Depth, "depth", gbt.DefaultDepth, "largest tree depth")
	f.StringVar(&opts.Out, "out", "", "where to write the model (default engine/pipeline/vetter_model.json, or expert_model.json with --pipeline expert)")
	f.StringVar(&opts.Pipeline, "pipeline", pipeline.NameLearnedVetter, "whose candidates to train on: learned_vetter or expert")
	f.StringVar(&opts.Examples, "examples", "", "also write the labelled peaks to this CSV file")
	return cmd
}

// runTrainVetter trains the vetter's classifier, writes it to opts.Out (and the examples to opts.Examples) and
// prints the training report (under JSON the baselines.TrainReport); progress goes to s.Err without JSON.
func runTrainVetter(ctx context.Context, s streams, opts *trainVetterOptions) error {
	if opts.Stars < 1 || opts.Workers < 1 {
		return usageErrorf("--stars %d, --workers %d: both must be positive", opts.Stars, opts.Workers)
	}
	switch opts.Pipeline {
	case "", pipeline.NameLearnedVetter:
		opts.Pipeline = pipeline.NameLearnedVetter
		if opts.Out == "" {
			opts.Out = filepath.Join("engine", "pipeline", "vetter_model.json")
		}
	case pipeline.NameExpert:
		if opts.Out == "" {
			opts.Out = filepath.Join("engine", "pipeline", "expert_model.json")
		}
	default:
		return usageErrorf("--pipeline %q: use %s or %s", opts.Pipeline, pipeline.NameLearnedVetter, pipeline.NameExpert)
	}
	if err := checkOutFile("--out", opts.Out); err != nil {
		return err
	}
	if err := checkOutFile("--examples", opts.Examples); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	opt := baselines.TrainOptions{Pipeline: opts.Pipeline, Stars: opts.Stars, Seed: opts.Seed, Workers: opts.Workers,
		Params: gbt.Params{Trees: opts.Trees, Depth: opts.Depth}}
	if opts.Examples != "" {
		opt.Examples = func(ex []baselines.Example) error { return writeExamplesFile(opts.Examples, ex) }
	}
	if !s.JSON {
		opt.Progress = func(done, total int) {
			if done%10 == 0 || done == total {
				fmt.Fprintf(s.Err, "train-vetter: %d/%d stars\n", done, total)
			}
		}
	}
	m, rep, err := baselines.TrainVetter(ctx, opt)
	if err != nil {
		return err
	}
	if err := writeJSONFile(opts.Out, m); err != nil {
		return err
	}
	if s.JSON {
		return writeJSON(s.Out, rep)
	}
	fmt.Fprintf(s.Out, "trained on %d stars of %s (%d scored): %d peaks, %d planets; training accuracy %.3f; %s written (%.0f s)\n",
		rep.StarsUsed, rep.Pool, rep.ScoredStars, rep.Examples, rep.Positives, rep.TrainAccuracy, opts.Out, rep.Seconds)
	return nil
}

// writeExamplesFile writes the labelled peaks to path as CSV.
func writeExamplesFile(path string, ex []baselines.Example) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := baselines.WriteExamplesCSV(f, ex); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
