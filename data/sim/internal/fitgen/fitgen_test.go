package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// tablesDir is the shared Kepler tables directory, relative to this package.
var tablesDir = filepath.Join("..", "..", "..", "..", "..", "shared", "data", "kepler", "tables")

// TestFittedFileIsCurrent reruns the fit on the shared tables and checks that data/sim/fitted.go is what it
// writes. On failure run `go generate ./data/sim` and commit fitted.go (and bump sim.Version).
func TestFittedFileIsCurrent(t *testing.T) {
	if _, err := os.Stat(tablesDir); err != nil {
		t.Skipf("the shared Kepler tables are not here (%v); nothing to compare against", err)
	}
	got, err := render(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "fitted.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("data/sim/fitted.go is out of date with the shared tables: run `go generate ./data/sim`, bump sim.Version, commit")
	}
}

// TestFitsAreSane checks the fitted quantities against facts about the tables: the CDPP median rises with
// magnitude and sits near 30 ppm at Kp 12 (Christiansen et al. 2012), the copulas' Cholesky factors have unit
// rows (they factor correlation matrices), and the quantile tables are non-decreasing.
func TestFitsAreSane(t *testing.T) {
	if _, err := os.Stat(tablesDir); err != nil {
		t.Skipf("the shared Kepler tables are not here (%v)", err)
	}
	koi, err := readTable(filepath.Join(tablesDir, "koi_cumulative.csv"))
	if err != nil {
		t.Fatal(err)
	}
	c := fitCDPP(koi)
	for i := 1; i < len(c.kepmag); i++ {
		if c.logMedian[i] < c.logMedian[i-1]-0.05 {
			t.Errorf("CDPP median falls from Kp %.1f to %.1f", c.kepmag[i-1], c.kepmag[i])
		}
	}
	for i, kp := range c.kepmag {
		if kp == 12 {
			if ppm := pow10(c.logMedian[i]); ppm < 20 || ppm > 50 {
				t.Errorf("median CDPP at Kp 12 is %.1f ppm, want ≈ 30", ppm)
			}
		}
	}
	stars, err := fitStars(koi)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range stars.chol {
		s := 0.0
		for _, v := range row {
			s += v * v
		}
		if s < 0.999 || s > 1.001 {
			t.Errorf("Cholesky row %v has squared norm %v, want 1", row, s)
		}
	}
	for j, q := range stars.q {
		for i := 1; i < len(q); i++ {
			if q[i] < q[i-1] {
				t.Fatalf("quantile table %s decreases at %d", stars.names[j], i)
			}
		}
	}
}

func pow10(x float64) float64 { return math.Pow(10, x) }
