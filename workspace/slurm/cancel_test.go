package slurm

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"transitbench/grader/store"
	"transitbench/workspace"
)

// testCancelResume cancels a slurm run on 8 of the stars once 3 are done (Ctrl-C), checks that its array left
// the queue and the finished stars were kept, resumes it and compares every star with the local outcomes lo.
func testCancelResume(t *testing.T, ws *workspace.Workspace, home string, lo map[string]store.Outcome) {
	stars := make([]string, 0, len(lo))
	for id := range lo {
		stars = append(stars, id)
	}
	sort.Strings(stars)
	stars = stars[len(stars)-8:]
	var log logLines
	opt := workspace.RunOptions{Home: home, Stars: stars, Backend: testBackend(4, &log)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	part, err := devRun(t, ctx, ws, opt, func(ev workspace.Event) {
		if ev.Done >= 3 {
			once.Do(cancel)
		}
	})
	if !errors.Is(err, context.Canceled) || part == nil || part.Complete {
		t.Fatalf("a cancelled slurm run: %+v, %v\n%s", part, err, log.String())
	}
	if part.StarsRun < 3 || part.StarsRun == len(stars) {
		t.Errorf("the cancelled run kept %d stars of %d, want 3 or more and not all", part.StarsRun, len(stars))
	}
	if !strings.Contains(log.String(), "cancelled job") {
		t.Errorf("the array was not cancelled:\n%s", log.String())
	}
	q, err := slurmCommand(context.Background(), "squeue", "-h", "-r", "-o", "%j")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(q, "transitbench-"+strconv.FormatInt(part.RunID, 10)+"-") {
		t.Errorf("tasks of the cancelled run are still queued:\n%s", q)
	}
	kept := outcomes(t, home, part.RunID)
	if len(kept) != part.StarsRun {
		t.Errorf("the cancelled run stored %d outcomes, its report says %d stars", len(kept), part.StarsRun)
	}
	full, err := devRun(t, context.Background(), ws, opt, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if full.RunID != part.RunID || full.Resumed != part.StarsRun || !full.Complete || full.StarsRun != len(stars) {
		t.Errorf("the resumed run: id %d resumed %d complete %v stars %d; want id %d resumed %d, complete, %d stars",
			full.RunID, full.Resumed, full.Complete, full.StarsRun, part.RunID, part.StarsRun, len(stars))
	}
	sameOutcomes(t, "cancelled and resumed", lo, outcomes(t, home, full.RunID), stars)
}
