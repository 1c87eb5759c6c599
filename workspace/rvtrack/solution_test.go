package rvtrack

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/internal/testutil"
	"transitbench/sandbox"
	"transitbench/workspace/internal/taskfixture"
)

// Two single-planet Easy tasks with different periods (5.28 d and 47.6 d).
const taskA, taskB = "seed1108_diff2", "seed1206_diff2"

// sharedTasks loads the published tasks a and b from the shared folder, which is what RunSolution masks.
func sharedTasks(t *testing.T) []*stargazer.Task {
	t.Helper()
	all, _, err := stargazer.LoadDir(taskfixture.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*stargazer.Task
	for _, id := range []string{taskA, taskB} {
		task, err := stargazer.Find(all, id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, task)
	}
	return out
}

// solutionDir writes a solution folder holding the given files ("run" is made executable).
func solutionDir(t *testing.T, files map[string]string) *sandbox.Solution {
	t.Helper()
	sol, err := sandbox.Detect(testutil.NewSolution(t, files))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sol.Close() })
	return sol
}

func runSolution(t *testing.T, tasks []*stargazer.Task, sol *sandbox.Solution, wall time.Duration) map[string]TaskOutcome {
	t.Helper()
	abs, err := filepath.Abs(taskfixture.Dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunSolution(context.Background(), tasks, sol, SolutionOptions{Workers: 2, TasksDir: abs,
		Limits: sandbox.Limits{WallTime: wall}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != len(tasks) {
		t.Fatalf("%d outcomes for %d tasks", len(rep.Outcomes), len(tasks))
	}
	if s := rep.Tiers[stargazer.TierEasy]; s == nil || s.Tasks != len(tasks) {
		t.Fatalf("tier summary %+v, want %d easy tasks", rep.Tiers, len(tasks))
	}
	out := map[string]TaskOutcome{}
	for _, o := range rep.Outcomes {
		out[o.Task] = o
	}
	return out
}

// A shell solution printing task A's true planet: the sandboxed run is graded exactly as the gate grades the
// same planet in-process, which passes task A (its truth is solvable) and fails task B.
func TestRunSolutionFixedPlanet(t *testing.T) {
	tasks := sharedTasks(t)
	planets := tasks[0].TruthPlanets()
	sub, err := json.Marshal(rvgate.FromPlanets(planets, 0).Planets)
	if err != nil {
		t.Fatal(err)
	}
	sol := solutionDir(t, map[string]string{"run": "#!/bin/sh\ntest -r \"$1/task.json\" || exit 3\necho '" + string(sub) + "'\n"})
	got := runSolution(t, tasks, sol, 30*time.Second)
	for _, task := range tasks {
		o := got[task.TaskID]
		if o.Exit != sandbox.ExitOK || o.Error != "" {
			t.Fatalf("%s: exit %s, error %q, stderr %q", task.TaskID, o.Exit, o.Error, o.StderrTail)
		}
		want := rvgate.Evaluate(task, planets, 0)
		if !reflect.DeepEqual(o.Result, want) {
			t.Errorf("%s: sandboxed result %+v, in-process %+v", task.TaskID, o.Result, want)
		}
	}
	if !got[taskA].Result.Passed || got[taskB].Result.Passed {
		t.Errorf("passed: %s %v, %s %v; want true, false", taskA, got[taskA].Result.Passed, taskB, got[taskB].Result.Passed)
	}
}

// cheat reads the original task file by its absolute path and prints its truth planets.
const cheat = `import json, os, sys
task = json.load(open(os.path.join(sys.argv[1], "task.json")))
orig = json.load(open(os.path.join(TASKS, "synthetic", task["task"] + ".json")))
print(json.dumps([{k: p[k] for k in ("P_days", "m_sin_i_mjup", "e", "omega_rad", "Omega_rad", "l_rad")} for p in orig["config"]["planets"]]))
`

// A solution that opens the original task file by absolute path finds nothing there (the folder is masked),
// although the planets it would print pass the gate.
func TestRunSolutionCannotReadTaskFiles(t *testing.T) {
	tasks := sharedTasks(t)
	abs, err := filepath.Abs(taskfixture.Dir)
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		t.Fatal(err)
	}
	// What the cheat would submit passes, so only the mask stops it.
	for _, task := range tasks {
		var s rvgate.Submission
		for _, p := range task.Config.Planets {
			m, l := p.MSinIMJup, p.LRad
			s.Planets = append(s.Planets, rvgate.SubmittedPlanet{PDays: p.PDays, MSinIMJup: &m, E: p.E, OmegaRad: p.OmegaRad,
				OmegaNodeRad: p.OmegaNodeRad, LRad: &l})
		}
		ps, err := s.Resolve(task.Config.Star.MStarSun, task.Observations.TimesDays[0])
		if err != nil {
			t.Fatal(err)
		}
		if !rvgate.Evaluate(task, ps, 0).Passed {
			t.Fatalf("%s: the truth read from the file does not pass; the test proves nothing", task.TaskID)
		}
	}
	sol := solutionDir(t, map[string]string{"solution.py": "TASKS = " + jsonString(real) + "\n" + cheat})
	got := runSolution(t, tasks, sol, 30*time.Second)
	for _, task := range tasks {
		o := got[task.TaskID]
		if o.Result.Passed || o.Exit == sandbox.ExitOK {
			t.Errorf("%s: the cheat ran to exit %s and passed=%v", task.TaskID, o.Exit, o.Result.Passed)
		}
		if !strings.Contains(o.StderrTail, "FileNotFoundError") {
			t.Errorf("%s: stderr %q, want FileNotFoundError (the folder masked, not merely unreadable)", task.TaskID, o.StderrTail)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Output that is not a submission, and a solution that runs past its time limit, fail their tasks with the
// reason recorded; the run itself completes.
func TestRunSolutionGarbageAndTimeout(t *testing.T) {
	tasks := sharedTasks(t)
	script := "#!/bin/sh\nif grep -q '\"" + taskA + "\"' \"$1/task.json\"; then echo 'P_days=5.3 K=20'; else sleep 30; fi\n"
	sol := solutionDir(t, map[string]string{"run": script})
	start := time.Now()
	got := runSolution(t, tasks, sol, 2*time.Second)
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("the run took %v with a 2 s limit per task", el)
	}
	a, b := got[taskA], got[taskB]
	if a.Exit != "bad_output" || !strings.Contains(a.Error, "bad submission") || a.Result.Passed || a.Result.OKRMS {
		t.Errorf("garbage output: exit %q error %q result %+v", a.Exit, a.Error, a.Result)
	}
	if b.Exit != sandbox.ExitTimeout || b.Error == "" || b.Result.Passed {
		t.Errorf("timeout: exit %q error %q passed %v", b.Exit, b.Error, b.Result.Passed)
	}
	// A parseable submission that cannot be resolved (e = 1.2) is bad output too.
	sol = solutionDir(t, map[string]string{"run": "#!/bin/sh\necho '[{\"P_days\": 5, \"K_ms\": 10, \"e\": 1.2, \"omega_rad\": 0, \"M0_rad\": 0}]'\n"})
	got = runSolution(t, tasks[:1], sol, 30*time.Second)
	if o := got[taskA]; o.Exit != "bad_output" || !strings.Contains(o.Error, "e = 1.2") {
		t.Errorf("e = 1.2: exit %q error %q", o.Exit, o.Error)
	}
}

// TestTaskWallTime: a task's run may last its tier's time budget (SPEC B1: 600, 900, 1500 s; real tasks take
// the hard budget), shortened by an explicit limit but never lengthened.
func TestTaskWallTime(t *testing.T) {
	tests := []struct {
		task  string
		limit time.Duration
		want  time.Duration
	}{
		{"seed1108_diff2", 0, 600 * time.Second},
		{"seed16_diff4", 0, 900 * time.Second},
		{"seed13_diff10", 0, 1500 * time.Second},
		{"real_018", 0, 1500 * time.Second},
		{"seed1108_diff2", 60 * time.Second, 60 * time.Second},
		{"seed13_diff10", 2 * time.Second, 2 * time.Second},
		{"seed1108_diff2", time.Hour, 600 * time.Second},
	}
	for _, tt := range tests {
		if got := TaskWallTime(taskfixture.Load(t, tt.task), tt.limit); got != tt.want {
			t.Errorf("%s with limit %v: %v, want %v", tt.task, tt.limit, got, tt.want)
		}
	}
}
