// Package results compiles the repository's committed results into the program: baselines.json, the baseline
// ladder (SPEC A7) measured on the simulated sets built from ladder.seed. The front ends show it when the data
// directory has no ladder of its own (workspace/baselines.Ladder), so that what they show does not depend on
// the directory the program runs in.
package results

import _ "embed" // the ladder compiled in

// Baselines is results/baselines.json as committed.
//
//go:embed baselines.json
var Baselines []byte
