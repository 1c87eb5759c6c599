package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"transitbench/grader/store"
)

// Frozen copies in the data directory (frozen/HASH, one per solution frozen for a grading) are pruned after
// every grading, so that they do not pile up: a copy is kept while it is needed to resume a grading and for the
// last KeepFrozenGradings gradings, and removed otherwise.

// KeepFrozenGradings is how many of the data directory's latest gradings keep their frozen copies.
const KeepFrozenGradings = 10

// frozenGrace keeps a frozen copy made this recently: a grading in another process may have frozen it and not
// yet recorded its first run.
const frozenGrace = time.Hour

// PruneFrozen removes the frozen copies in home's frozen/ that no grading needs: it keeps the copies of the
// solutions of the latest KeepFrozenGradings gradings (by lineage and ordinal, newest first), of every grade run
// not done (an interrupted grading resumes from its copy), of keep, and any made within frozenGrace. It returns
// the hashes removed.
func PruneFrozen(ctx context.Context, home string, st *store.Store, keep ...string) ([]string, error) {
	runs, err := st.Runs(ctx, store.RunFilter{Kind: KindGrade})
	if err != nil {
		return nil, err
	}
	needed := map[string]bool{}
	for _, h := range keep {
		needed[h] = true
	}
	type grading struct {
		lineage, label string
		n              int
	}
	seen := map[grading]bool{}
	for _, r := range runs { // newest first
		if r.Status != store.StatusDone {
			needed[r.SolutionHash] = true
		}
		g := grading{r.Lineage, r.Label, r.Grading}
		if !seen[g] {
			if len(seen) == KeepFrozenGradings {
				continue
			}
			seen[g] = true
		}
		needed[r.SolutionHash] = true
	}
	dir := filepath.Join(home, "frozen")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || needed[name] {
			continue // a copy being made (.freeze-*) or needed
		}
		if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < frozenGrace {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}
