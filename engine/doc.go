// Package engine holds the numerics of TransitBench: detrending, the box least squares search, folding,
// the Mandel & Agol transit model, noise and detection statistics, vetting statistics and, in engine/rv,
// the radial-velocity models and fits. Nothing under engine does file or network I/O: callers pass data in.
package engine
