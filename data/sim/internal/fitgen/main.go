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
