package tui

import (
	"context"
	"strings"
	"testing"

	"transitbench/data/stargazer"
	"transitbench/internal/testsets"
	"transitbench/workspace/rvtrack"
)

// TestRealBackendImportedTask imports HD 164922's published series into a data directory and checks that the RV
// browser lists it (tier user) beside the published tasks, that the task view's search runs the honest fit
// (its two planets, one jitter per instrument) and that a submission is refused: there is no truth to grade.
func TestRealBackendImportedTask(t *testing.T) {
	published := publishedTasks(t)
	s := testsets.HD164922(t)
	task, err := stargazer.NewImportedTask("hd164922", []*stargazer.Series{s}, []string{testsets.HD164922File}, 0.874)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if _, err := stargazer.WriteImported(stargazer.UserDir(home), task, false); err != nil {
		t.Fatal(err)
	}
	r := &Real{Home: home}
	ctx := context.Background()
	list, err := r.RVTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(published)+1 || list[len(list)-1].ID != "hd164922" || list[len(list)-1].Tier != stargazer.TierUser {
		t.Fatalf("%d tasks, last %+v; want the published ones and hd164922 (user) last", len(list), list[len(list)-1])
	}
	if got := filterRVTasks(list, stargazer.TierUser); len(got) != 1 {
		t.Fatalf("tier user shows %d tasks", len(got))
	}
	// An imported task is the contestant's own data: it has no clock and loads without a start.
	view, err := r.LoadRVTask(ctx, "hd164922", false)
	if err != nil || view.Data.Len() != 401 || view.Meta.State.State != rvtrack.StateImported || !view.Meta.Deadline.IsZero() {
		t.Fatalf("load: %v", err)
	}
	fit, err := r.FitRV(ctx, "hd164922", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !fit.Honest || len(fit.Planets) != 2 || len(fit.InstJitter) != 3 {
		t.Fatalf("search on an imported task: honest %v, %d planets, jitters %v", fit.Honest, len(fit.Planets), fit.InstJitter)
	}
	if sum := fit.HonestSummary(view.Data.Instruments); !strings.Contains(sum, "no significant peak") || !strings.Contains(sum, "k ") {
		t.Errorf("summary %q", sum)
	}
	if _, err := r.SubmitRV(ctx, "hd164922", fit.Planets, fit.JitterMS); err == nil || !strings.Contains(err.Error(), "no truth") {
		t.Errorf("submit on an imported task: %v", err)
	}
}
