// Package baselines runs the baseline ladder (SPEC A7): the reference pipelines empty, starter, naive_v0,
// learned_vetter and reference_detector over the data sets, each through the same runner and scoring as a
// contestant's solution (the reference detector, which reads the answers, in-process), and the training of the
// learned vetter's classifier on the train pool.
package baselines
