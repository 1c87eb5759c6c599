package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"transitbench/data/sets"
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
