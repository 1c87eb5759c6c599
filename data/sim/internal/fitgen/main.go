// Command fitgen fits the simulator's stellar, noise, eclipsing-binary and planet distributions to the real
// Kepler tables (the cumulative KOI table and the Villanova eclipsing-binary catalogue) and writes them as Go
// source (data/sim/fitted.go), so the repository holds fitted quantities and never the raw tables.
//
// Each multivariate distribution is a Gaussian copula: per-variable quantile tables (the marginals) and the
// Cholesky factor of the correlation matrix of the variables' normal scores. CDPP at 6 h is fitted as a
// log-normal at fixed Kepler magnitude, per half-magnitude bin.
//
// Usage, from data/sim: go run ./internal/fitgen -tables ../../../shared/data/kepler/tables -out fitted.go
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	tables := flag.String("tables", "../../../shared/data/kepler/tables", "directory holding koi_cumulative.csv and villanova_eb_catalog.csv")
	out := flag.String("out", "fitted.go", "Go file to write")
	flag.Parse()
	src, err := render(*tables)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitgen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fitgen:", err)
		os.Exit(1)
	}
}
