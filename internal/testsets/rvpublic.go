package testsets

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"transitbench/data/stargazer"
)

// HD164922File is the name of HD 164922's published radial-velocity series in the shared rv-public folder.
const HD164922File = "hd164922_radvel.txt"

// HD164922 reads HD 164922's published radial velocities (radvel's example data, Fulton et al. 2016: 401 points,
// HIRES before and after 2004 and APF) from the shared data folder beside the repository and returns the parsed
// series.
func HD164922(t testing.TB) *stargazer.Series {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", "..", "shared", "data", "rv-public", HD164922File)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reference data missing (expected beside the repository in ../shared/data): %v", err)
	}
	s, err := stargazer.ParseSeries(b, HD164922File, "x")
	if err != nil {
		t.Fatal(err)
	}
	return s
}
