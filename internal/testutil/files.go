package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteLightCurveCSV writes t.TempDir()/lc.csv, a CSV light curve (header time,flux,flux_err,quality) of n
// cadences with times t0 + i·dt, flux f(i), error 0.0002 and quality 0, and returns its path.
func WriteLightCurveCSV(t testing.TB, n int, t0, dt float64, f func(i int) float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("time,flux,flux_err,quality\n")
	for i := range n {
		fmt.Fprintf(&b, "%.17g,%.9g,0.0002,0\n", t0+float64(i)*dt, f(i))
	}
	p := filepath.Join(t.TempDir(), "lc.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteSolution makes dir a solution folder holding exactly files (name → content), replacing whatever was
// there; the file "run" is made executable.
func WriteSolution(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		mode := os.FileMode(0o644)
		if name == "run" {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// NewSolution writes files as a solution folder in a new temporary directory (see WriteSolution) and returns
// its path.
func NewSolution(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "solution")
	WriteSolution(t, dir, files)
	return dir
}

// WriteRunScript makes dir a solution holding only the executable script run.
func WriteRunScript(t testing.TB, dir, script string) {
	t.Helper()
	WriteSolution(t, dir, map[string]string{"run": script})
}

// StargazerTaskPath returns the path of the published Stargazer task id in the task folder dir, laid out as the
// shared folder's: a real task ("real_…") in dir/real, any other in dir/synthetic.
func StargazerTaskPath(dir, id string) string {
	sub := "synthetic"
	if strings.HasPrefix(id, "real_") {
		sub = "real"
	}
	return filepath.Join(dir, sub, id+".json")
}
