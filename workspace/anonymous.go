package workspace

import (
	"crypto/rand"
	"encoding/hex"
	mrand "math/rand/v2"
	"slices"
)

// AnonymousIDs returns a fresh random id for each of ids (SPEC A1): "star-" and 16 hexadecimal digits from
// crypto/rand, distinct within the call, naming neither the set nor the star's index. A run on a hidden set
// (A, B, a mini task's hidden pool) gives its stars these ids in the star.json copies the solution reads and
// keeps the mapping to itself; a new run, a resumed one included, draws new ids. Scores never depend on
// them: the grader matches and stores by the stars' own ids.
func AnonymousIDs(ids []string) map[string]string {
	out := make(map[string]string, len(ids))
	used := make(map[string]bool, len(ids))
	for _, id := range ids {
		for {
			var b [8]byte
			rand.Read(b[:])
			alias := "star-" + hex.EncodeToString(b[:])
			if !used[alias] {
				used[alias] = true
				out[id] = alias
				break
			}
		}
	}
	return out
}

// shuffled returns ids in a random order (a per-run order for a hidden set's stars, so that when a star runs
// says nothing of where it falls in the set). The run's results are summarised in id order, so the order
// never changes a score.
func shuffled(ids []string) []string {
	out := slices.Clone(ids)
	var seed [32]byte
	rand.Read(seed[:])
	r := mrand.New(mrand.NewChaCha8(seed))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
