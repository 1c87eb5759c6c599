package report

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/plot"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/workspace/figure"
	"transitbench/workspace/rvtrack"
)

// RVRunsDir is where 'rv grade' keeps its finished runs (one JSON line per task, rvtrack.TaskOutcome), and
// rvGradeDir where an unfinished run keeps its finished tasks.
func RVRunsDir(home string) string  { return filepath.Join(home, "rv", "runs") }
func rvGradeDir(home string) string { return filepath.Join(home, "rv", "grade") }

// RVTier is a tier's pass rate in an RV run beside its truth ceiling: the share of its tasks whose own truth
// passes the gate (SPEC B3), the best any solution can do. PassedStrict and PassedCalibrated are the passes
// under the strict and the calibrated gates (rvgate.Result), reported beside the original's.
type RVTier struct {
	Tier                           string
	Tasks, Passed                  int
	PassedStrict, PassedCalibrated int
	Solvable                       int
	PassRate, TruthCeiling         float64
}

// RVRun is one 'rv grade' run: finished (rv/runs) or interrupted (rv/grade).
type RVRun struct {
	Name     string
	Complete bool
	Tiers    []RVTier
	Outcomes []rvtrack.TaskOutcome
}

// Href is the run's page.
func (r RVRun) Href() string { return "rv-" + r.Name + ".html" }

// RVPage lists the RV runs and the submissions of the ledger.
type RVPage struct {
	Runs      []RVRun
	Ledger    []RVTier
	TasksNote string
}

// RVRunPage is one RV run: every task's gate result and the fit of its answer.
type RVRunPage struct {
	Run   RVRun
	Tasks []RVTaskView
}

// RVTaskView is a task's outcome and the figure of the answer's fit (nil without an answer or the task's data).
type RVTaskView struct {
	rvtrack.TaskOutcome
	Figure *Figure
}

// rvRuns reads every RV run, finished ones first, newest first.
func (s *Site) rvRuns() ([]RVRun, error) {
	var runs []RVRun
	for _, dir := range []struct {
		path     string
		complete bool
	}{{RVRunsDir(s.opt.Home), true}, {rvGradeDir(s.opt.Home), false}} {
		files, _ := filepath.Glob(filepath.Join(dir.path, "*.jsonl"))
		sort.Sort(sort.Reverse(sort.StringSlice(files)))
		for _, f := range files {
			outs, err := readOutcomes(f)
			if err != nil {
				return nil, err
			}
			name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
			if !dir.complete {
				name = "unfinished-" + name
			}
			runs = append(runs, RVRun{Name: name, Complete: dir.complete, Tiers: tiersOf(outs), Outcomes: outs})
		}
	}
	return runs, nil
}

// readOutcomes reads a run's JSON lines, skipping a torn last line (a killed run).
func readOutcomes(path string) ([]rvtrack.TaskOutcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []rvtrack.TaskOutcome
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var o rvtrack.TaskOutcome
		if json.Unmarshal(sc.Bytes(), &o) == nil && o.Task != "" {
			out = append(out, o)
		}
	}
	return out, sc.Err()
}

// tiersOf summarises outcomes per tier, in the order of stargazer.Tiers.
func tiersOf(outs []rvtrack.TaskOutcome) []RVTier {
	sum := rvtrack.Summarize(outs)
	var tiers []RVTier
	for _, name := range stargazer.Tiers {
		if t, ok := sum[name]; ok {
			tiers = append(tiers, RVTier{Tier: name, Tasks: t.Tasks, Passed: t.Passed, PassedStrict: t.PassedStrict,
				PassedCalibrated: t.PassedCalibrated, Solvable: t.SolvableTasks,
				PassRate: t.PassRate, TruthCeiling: float64(t.SolvableTasks) / float64(t.Tasks)})
		}
	}
	return tiers
}

// rvTasks loads the Stargazer tasks once (stargazer.LocateDir: $TRANSITBENCH_STARGAZER or the shared folder);
// nil when they cannot be found, and the page says so.
func (s *Site) rvTasks() (map[string]*stargazer.Task, error) {
	s.rvOnce.Do(func() {
		dir, err := stargazer.LocateDir(s.opt.RVTasks)
		if err != nil {
			s.rvErr = err
			return
		}
		tasks, _, err := stargazer.LoadDir(dir)
		s.rvTaskMap, s.rvErr = map[string]*stargazer.Task{}, err
		for _, t := range tasks {
			s.rvTaskMap[t.TaskID] = t
		}
	})
	return s.rvTaskMap, s.rvErr
}

// rvPage builds the RV page: each run's tiers, and the ledger's submissions per tier.
func (s *Site) rvPage() (*RVPage, error) {
	runs, err := s.rvRuns()
	if err != nil {
		return nil, err
	}
	p := &RVPage{Runs: runs}
	tasks, err := s.rvTasks()
	if err != nil {
		p.TasksNote = fmt.Sprintf("The Stargazer tasks were not found (%v): no fit plots and no ledger tiers.", err)
	}
	led, err := rvtrack.OpenLedger(rvtrack.LedgerPath(s.opt.Home))
	if err != nil || len(led.Tasks) == 0 || tasks == nil {
		return p, nil
	}
	var outs []rvtrack.TaskOutcome
	for id := range led.Tasks {
		if t, ok := tasks[id]; ok {
			orig, strict, cal := led.PassedGates(id)
			outs = append(outs, rvtrack.TaskOutcome{Task: id, Tier: t.Tier(), Solvable: rvgate.CheckTruth(t).Solvable,
				Result: rvgate.Result{Passed: orig, PassedStrict: strict, PassedCalibrated: cal}})
		}
	}
	p.Ledger = tiersOf(outs)
	return p, nil
}

// rvRunPage builds the page of the RV run called name, with a fit figure per task that has an answer.
func (s *Site) rvRunPage(name string) (*RVRunPage, error) {
	runs, err := s.rvRuns()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(runs, func(r RVRun) bool { return r.Name == name })
	if i < 0 {
		return nil, errNoPage
	}
	p := &RVRunPage{Run: runs[i]}
	tasks, _ := s.rvTasks()
	led, err := rvtrack.OpenLedger(rvtrack.LedgerPath(s.opt.Home))
	if err != nil {
		return nil, err
	}
	for _, o := range p.Run.Outcomes {
		v := RVTaskView{TaskOutcome: o}
		if t, ok := tasks[o.Task]; ok && o.Submission != nil {
			v.Figure = rvFit(t, o.Submission, led)
		}
		p.Tasks = append(p.Tasks, v)
	}
	return p, nil
}

// rvFit draws the fit of sub to task t: the velocities with the model, the residuals and their periodogram.
// The figure shows the task's data, which the site, only reading, never starts a clock for: a task not started
// (rvtrack.Ledger.Shown: 'rv start', the agent tool rv_start, the terminal UI's confirmation, or a submission)
// is not drawn, and the figure says how to start it.
func rvFit(t *stargazer.Task, sub *rvgate.Submission, led *rvtrack.Ledger) *Figure {
	if !led.Shown(t.TaskID) {
		return &Figure{ID: "fit-" + t.TaskID, Caption: "The answer's fit of " + t.TaskID,
			Err: "the task has not been started, and drawing its data would show it without its clock: start it with 'transitbench rv start " + t.TaskID + "' (its clock starts) and reload"}
	}
	planets, err := sub.Resolve(t.Config.Star.MStarSun, t.Observations.TimesDays[0])
	if err != nil {
		return &Figure{ID: "fit-" + t.TaskID, Caption: "The answer's fit of " + t.TaskID, Err: err.Error()}
	}
	d := t.Data()
	rt := &figure.RVTask{ID: t.TaskID, Data: d, Analysis: rvtrack.Analyse(d, t.MedianSigma(), planets, sub.JitterMS, true)}
	rows := [][]*plot.Plot{}
	for _, p := range figure.RVPlots(rt) {
		rows = append(rows, []*plot.Plot{p})
	}
	f := gridFigure("fit-"+t.TaskID, fmt.Sprintf("The answer's fit of %s (%d planets): velocities and model, residuals, periodogram of the residuals",
		t.TaskID, len(planets)), rows, 8, 7)
	return &f
}

func (s *Site) hasRV() bool {
	runs, _ := s.rvRuns()
	return len(runs) > 0
}

func (s *Site) writeRV(ctx context.Context, w io.Writer, live bool) error {
	p, err := s.rvPage()
	if err != nil {
		return err
	}
	return s.render(w, "rv", "RV track", p, live, 0)
}

func (s *Site) writeRVRun(ctx context.Context, w io.Writer, name string, live bool) error {
	p, err := s.rvRunPage(name)
	if err != nil {
		return err
	}
	return s.render(w, "rvrun", "RV run "+name, p, live, 0)
}

// rvState is the Site's lazily loaded RV tasks.
type rvState struct {
	rvOnce    sync.Once
	rvTaskMap map[string]*stargazer.Task
	rvErr     error
}
