package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/grader/rvgate"
	"transitbench/workspace"
	"transitbench/workspace/internal/taskfixture"
	"transitbench/workspace/rvtrack"
)

// TestRVPages writes a finished 'rv grade' run of two published tasks — an easy one answered with its truth,
// a hard one with no planets — and checks the RV page's pass rates and truth ceilings per tier and the run's
// page with the fit of the answered task.
func TestRVPages(t *testing.T) {
	home := t.TempDir()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	var lines []byte
	for _, c := range []struct {
		id    string
		truth bool
	}{{"seed1108_diff2", true}, {"seed10_diff10", false}} {
		task := taskfixture.Load(t, c.id)
		sub := rvgate.FromPlanets(nil, 0)
		if c.truth {
			sub = rvgate.FromPlanets(task.TruthPlanets(), 0)
		}
		planets, err := sub.Resolve(task.Config.Star.MStarSun, task.Observations.TimesDays[0])
		if err != nil {
			t.Fatal(err)
		}
		o := rvtrack.TaskOutcome{Task: c.id, Tier: task.Tier(), Solvable: rvgate.CheckTruth(task).Solvable,
			NTruth: len(task.Config.Planets), Result: rvgate.Evaluate(task, planets, 0), Submission: sub, Exit: "ok"}
		b, _ := json.Marshal(o)
		lines = append(append(lines, b...), '\n')
	}
	if err := os.MkdirAll(RVRunsDir(home), 0o755); err != nil {
		t.Fatal(err)
	}
	name := "20261202T000000Z-abc"
	if err := os.WriteFile(filepath.Join(RVRunsDir(home), name+".jsonl"), append(lines, []byte(`{"task": "torn`)...), 0o644); err != nil {
		t.Fatal(err)
	}
	// One submission through the ledger: the truth of the easy task, which passes the three gates.
	easy := taskfixture.Load(t, "seed1108_diff2")
	if err := rvtrack.WithLedger(rvtrack.LedgerPath(home), func(l *rvtrack.Ledger) error {
		_, err := l.Submit(easy, easy.TruthPlanets(), 0, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	site, err := Open(Options{Home: home, RVTasks: taskfixture.Dir})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	// seed10_diff10 is not opened yet: the run's page does not draw its data (it would show it without starting
	// its clock), and the site starts no clock. seed1108_diff2 was submitted through the ledger, which started
	// its clock: its data is drawn.
	out := t.TempDir()
	if _, err := site.Build(context.Background(), out, nil); err != nil {
		t.Fatal(err)
	}
	run, err := os.ReadFile(filepath.Join(out, "rv-"+name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(run), "<svg"); n != 1 || !strings.Contains(string(run), "rv start seed10_diff10") {
		t.Errorf("the RV run's page draws %d figures (want 1: the submitted task's), or does not say how to open the other", n)
	}
	led, err := rvtrack.OpenLedger(rvtrack.LedgerPath(home))
	if err != nil {
		t.Fatal(err)
	}
	if led.Shown("seed10_diff10") {
		t.Error("building the site started a task's clock")
	}
	for _, id := range []string{"seed1108_diff2", "seed10_diff10"} {
		if _, err := rvtrack.StartTask(rvtrack.LedgerPath(home), id); err != nil {
			t.Fatal(err)
		}
	}
	out = t.TempDir()
	if _, err := site.Build(context.Background(), out, nil); err != nil {
		t.Fatal(err)
	}
	rv, err := os.ReadFile(filepath.Join(out, "rv.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The easy task's truth passes (it is solvable) and the hard one's empty answer fails: easy 1 of 1 passed
	// under the original, strict and calibrated gates beside a ceiling of 100 %, hard 0 of 1 under each.
	for _, want := range []string{`<th scope="col" class="n">strict</th><th scope="col" class="n">calibrated</th>`,
		`<th scope="row">easy</th><td class="n">1</td><td class="n">1</td><td class="n">1</td><td class="n">1</td><td class="n" data-v="1.000">100 %</td>`,
		`<th scope="row">hard</th><td class="n">1</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n" data-v="0.000">0 %</td>`,
		`id="rv-ledger"`, `passed within budget</th><th scope="col" class="n">strict</th><th scope="col" class="n">calibrated</th>`, `href="rv-` + name + `.html"`} {
		if !strings.Contains(string(rv), want) {
			t.Errorf("rv.html lacks %s", want)
		}
	}
	run, err = os.ReadFile(filepath.Join(out, "rv-"+name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="fit-seed1108_diff2"`, "radial velocity (m/s)", "residual (m/s)", "GLS power (normalised)", "seed10_diff10"} {
		if !strings.Contains(string(run), want) {
			t.Errorf("the RV run's page lacks %q", want)
		}
	}
	if n := strings.Count(string(run), "<svg"); n != 2 {
		t.Errorf("the RV run's page has %d figures, want the fits of both answers (the empty one too)", n)
	}
}
