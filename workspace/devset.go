package workspace

import (
	"transitbench/data/sets"
)

// OpenDevSet opens the set the workspace's labelled stars come from (the dev set, or a mini task's), checked
// against the fingerprint the workspace was made from; opt gives the data directory and compositions.
func (w *Workspace) OpenDevSet(opt RunOptions) (*sets.Set, error) {
	home, err := opt.home()
	if err != nil {
		return nil, err
	}
	return w.openDevSet(home, opt)
}

// DevIDs lists the workspace's labelled stars of set (a mini workspace's own, else every star of the set).
func (w *Workspace) DevIDs(set *sets.Set) []string { return w.devIDs(set) }
