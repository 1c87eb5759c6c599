// Package rv holds the radial-velocity numerics of the RV track: the Keplerian forward model and its Kepler
// solver, the semi-amplitude ↔ minimum-mass relation, the generalised Lomb–Scargle periodogram with its
// false-alarm probability, the Levenberg–Marquardt multi-Keplerian fit with per-instrument offsets and jitter,
// the Gaussian log-likelihood and BIC, a non-interacting Jacobi-orbit stand-in for the N-body RV of the original
// task generator, and the classical detection pipeline (periodogram peel-and-search, multi-start least squares,
// greedy planet addition by BIC). Times are in days, velocities in m/s, angles in radians. It does no file I/O.
package rv
