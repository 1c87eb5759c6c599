package workspace

import (
	"context"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/sandbox"
)

// begin returns what a run of the workspace's solution starts from: the data directory of opt, and the solution
// with its content hash (the caller closes it).
func (w *Workspace) begin(opt RunOptions) (home, hash string, sol *sandbox.Solution, err error) {
	if home, err = opt.home(); err != nil {
		return "", "", nil, err
	}
	hash, sol, err = w.solution()
	return home, hash, sol, err
}

// runStored opens the results store of opt's data directory and runs sol on ids of set (runSet) as the spec
// made for that store describes (its find may look up the run to resume there); the store is closed after.
func runStored(ctx context.Context, set *sets.Set, sol *sandbox.Solution, ids []string, spec func(*store.Store) runSpec,
	opt RunOptions, events chan<- Event) (*Report, error) {
	_, st, err := openRunStore(opt)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return runSet(ctx, st, set, sol, ids, spec(st), opt, events)
}

// openRunStore opens the results store of opt's data directory and returns the directory too; the caller
// closes the store.
func openRunStore(opt RunOptions) (home string, st *store.Store, err error) {
	if home, err = opt.home(); err != nil {
		return "", nil, err
	}
	st, err = OpenStore(home)
	return home, st, err
}
