// Package pipeline holds the reference planet-search pipelines of the baseline ladder (SPEC A7) as pure
// functions from a light curve and its star's metadata to output rows: naive_v0 (plain BLS, a fixed SNR
// threshold, no vetting) and learned_vetter (up to three BLS peaks, each kept or dropped by a gradient-boosted
// classifier on vetting features, embedded as vetter_model.json). Both share one preparation (quality mask,
// median normalisation, biweight detrending) and one BLS search. The package does no I/O: the command
// `transitbench pipeline NAME STAR_DIR` reads the star and prints the rows, and the sandbox runs that command
// exactly as it runs a contestant's solution.
package pipeline
