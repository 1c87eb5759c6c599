package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteSolutionReplacesAndMarksRun writes a solution over an older one: only the new files are left, run is
// executable and the others are not.
func TestWriteSolutionReplacesAndMarksRun(t *testing.T) {
	dir := NewSolution(t, map[string]string{"old.txt": "x"})
	WriteSolution(t, dir, map[string]string{"run": "#!/bin/sh\n", "main.py": "print(1)\n"})
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]os.FileMode{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		modes[e.Name()] = fi.Mode().Perm()
	}
	if len(modes) != 2 || modes["run"]&0o100 == 0 || modes["main.py"]&0o111 != 0 {
		t.Errorf("solution files and modes %v, want run executable and main.py not", modes)
	}
}

// TestWriteLightCurveCSV checks the header, the number of rows and the first row's time and flux.
func TestWriteLightCurveCSV(t *testing.T) {
	b, err := os.ReadFile(WriteLightCurveCSV(t, 3, 170, 0.5, func(i int) float64 { return 1 + float64(i)/10 }))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || lines[0] != "time,flux,flux_err,quality" || lines[1] != "170,1,0.0002,0" || lines[3] != "171,1.2,0.0002,0" {
		t.Errorf("CSV lines %q", lines)
	}
}

// TestStargazerTaskPath checks the published layout on the shared folder's tasks: a real and a synthetic task
// resolve to files that exist.
func TestStargazerTaskPath(t *testing.T) {
	const dir = "../../../shared/data/stargazer"
	for _, id := range []string{"real_001", "seed1108_diff2"} {
		p := StargazerTaskPath(dir, id)
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if p := StargazerTaskPath("d", "real_x"); p != filepath.Join("d", "real", "real_x.json") {
		t.Errorf("real task path %s", p)
	}
}
