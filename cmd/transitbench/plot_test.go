package main

import "testing"

func TestPlotUsageErrors(t *testing.T) {
	t.Setenv("TRANSITBENCH_HOME", t.TempDir())
	for _, args := range [][]string{
		{"plot", "--out", "x.png"},
		{"plot", "--star", "dev-0000"},
		{"plot", "--star", "dev-0000", "--out", "x.jpg"},
		{"plot", "--star", "A-0000", "--set", "A", "--out", "x.png"},
	} {
		if code := run(args); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
