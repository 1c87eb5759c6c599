package main

import "testing"

func TestPipelineAndBaselinesUsage(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"pipeline", "no_such_pipeline", "."}, 2},
		{[]string{"pipeline", "naive_v0"}, 2},
		{[]string{"pipeline", "naive_v0", "/nonexistent-star-dir"}, 1},
		{[]string{"baselines", "--rows", "empty,nonsense", "--out", ""}, 2},
		{[]string{"baselines", "--limit", "-1", "--out", ""}, 2},
		{[]string{"baselines", "train-vetter", "--stars", "0"}, 2},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("run(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}
