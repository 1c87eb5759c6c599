// Command fitgen fits the simulator's stellar, noise, eclipsing-binary and planet distributions to the real
// Kepler tables (the cumulative KOI table and the Villanova eclipsing-binary catalogue) and writes them as Go
// source, data/sim/fitted.go, so the repository holds fitted quantities and never the raw tables: each
// multivariate distribution is a Gaussian copula (per-variable quantile tables and the Cholesky factor of the
// correlation of the variables' normal scores), and CDPP at 6 h is log-normal at fixed Kepler magnitude, per
// half-magnitude bin. Run it with `go generate ./data/sim` (or, from data/sim,
// `go run ./internal/fitgen -tables ../../../shared/data/kepler/tables -out fitted.go`).
package main
