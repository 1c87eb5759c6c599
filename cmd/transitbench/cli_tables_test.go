package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"transitbench/data/sets"
	"transitbench/grader/store"
)

// TestProgressTimesEachStep: one printer shows the build of A and then of B (as a grading builds B after running
// A); B's elapsed time and ETA count from B's own start, not from A's.
func TestProgressTimesEachStep(t *testing.T) {
	var out bytes.Buffer
	p := newProgressPrinter(&out, "building")
	p.update(sets.Progress{Set: "A", Done: 1, Total: 10})
	p.start = p.start.Add(-time.Hour) // A has been running for an hour
	p.update(sets.Progress{Set: "A", Done: 10, Total: 10})
	p.update(sets.Progress{Set: "B", Done: 1, Total: 10})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "building B: 10% (1/10 stars, 0.0s") {
		t.Errorf("B's first progress line is %q, want it timed from B's start", last)
	}
}

// TestRunsTableScores: the runs table shows S, C and F on one scale for a public run, S alone for a graded hidden
// set (what its contestant summary carries), nothing for a hidden set still running, and the finished count of a
// run cancelled part-way.
func TestRunsTableScores(t *testing.T) {
	cases := []struct {
		name string
		run  store.Run
		want runScores
	}{
		{"public", store.Run{Stars: 196, Summary: []byte(`{"S":0.0383,"C":0.654,"F":28.23,"stars_run":196}`)},
			runScores{"196", "0.038", "0.654", "28.2"}},
		{"cancelled", store.Run{Stars: 196, Status: "cancelled", Summary: []byte(`{"S":-0.8,"C":0.1,"F":50,"stars_run":9}`)},
			runScores{"9/196", "-0.800", "0.100", "50.0"}},
		{"hidden, contestant", store.Run{Stars: 1000, Hidden: true, Summary: []byte(`{"S":0.61,"stars_run":1000,"redacted":true}`)},
			runScores{"1000", "0.610", "–", "–"}},
		{"hidden, running", store.Run{Stars: 1000, Hidden: true, Summary: []byte(`{"S":0.9,"stars_run":10}`)},
			runScores{"10/1000", "–", "–", "–"}},
		{"no summary", store.Run{Stars: 5}, runScores{"5", "–", "–", "–"}},
	}
	for _, c := range cases {
		if got := scoresOf(c.run); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
