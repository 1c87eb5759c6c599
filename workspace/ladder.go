package workspace

import (
	"context"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/sandbox"
)

// RunBaseline runs a reference pipeline's solution over ids of set exactly as a dev run or a grading runs a
// contestant's solution (the same runner, parsing, matching and store), recorded as a run of kind
// store.KindBaseline labelled with the pipeline's name. It is what `transitbench baselines` uses. A run of the
// same pipeline (same label and solution hash) over the same stars that did not finish — interrupted, failed
// part-way or killed — is resumed: its finished stars are kept and only the others run.
func RunBaseline(ctx context.Context, set *sets.Set, sol *sandbox.Solution, ids []string, label string, opt RunOptions,
	events chan<- Event) (*Report, error) {
	hash, _, err := HashTree(sol.Dir)
	if err != nil {
		return nil, err
	}
	return runStored(ctx, set, sol, ids, func(st *store.Store) runSpec {
		return runSpec{kind: store.KindBaseline, label: label, hash: hash,
			find: func(ctx context.Context) (int64, error) {
				return interruptedRun(ctx, st, store.KindBaseline, set.Name, label, hash, len(ids))
			}}
	}, opt, events)
}

// OpenSet opens set name of the data directory as runs do (RunOptions.Compositions and SetProgress apply).
func OpenSet(name string, opt RunOptions) (*sets.Set, error) {
	home, err := opt.home()
	if err != nil {
		return nil, err
	}
	return sets.Open(home, name, opt.setOptions(name))
}

// SelectStars applies RunOptions.Stars and Limit to the ids of a set, as dev runs do.
func SelectStars(all []string, opt RunOptions) ([]string, error) { return selectStars(all, opt) }

// WriteStarter writes the workspace's starter solution for lang ("go" or "python") into dir, as Init does.
func WriteStarter(dir, lang string) error { return writeStarter(dir, lang) }
