// Package pool is the worker pool of the baselines' runs (workspace/baselines' examples, workspace/rvbaselines'
// tasks): a function called over indices from a fixed number of goroutines, the hand-out stopped when a context
// ends.
package pool
