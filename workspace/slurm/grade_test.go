package slurm

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"transitbench/internal/testsets"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// smallSets keep the grading test quick: the real hidden sets are 1,000 stars each.
var smallSets = testsets.Small()

// TestSlurmGradeMatchesLocal grades the same solution locally and with the slurm backend on small sets: A, B
// and dev get the same aggregates with every protection of the sandbox, and nothing of the hidden sets'
// results (the solution's output on them) is left in the data directory once the grading is done. On a
// cluster of several nodes, each set's array runs on at least two of them (sacct's NodeList).
func TestSlurmGradeMatchesLocal(t *testing.T) {
	needCluster(t)
	home := t.TempDir()
	mk := func(name string) *workspace.Workspace {
		ws, err := workspace.Init(filepath.Join(t.TempDir(), name), workspace.InitOptions{Home: home, Lang: "python", Compositions: smallSets})
		if err != nil {
			t.Fatal(err)
		}
		// One row everywhere, at a period that the star's id picks, and a line on stderr.
		testutil.WriteRunScript(t, ws.SolutionDir(), "#!/bin/sh\nid=$(sed -n 's/.*\"id\": *\"[A-Za-z]*-0*\\([0-9]*\\)\".*/\\1/p' \"$1/star.json\")\n"+
			"echo \"working on $id\" >&2\necho period_days,t0_days,score\necho 3.$id,171.0,5\n")
		return ws
	}
	opt := workspace.RunOptions{Home: home, Workers: 2, Compositions: smallSets}
	local, err := mk("local").Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log logLines
	opt.Backend, opt.Again = testBackend(3, &log), true
	sl, err := mk("slurm").Grade(context.Background(), opt, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, p := range [][2]*workspace.Report{{local.A, sl.A}, {local.B, sl.B}, {local.Dev, sl.Dev}} {
		a, b := p[0], p[1]
		if !reflect.DeepEqual(a.Summary, b.Summary) || !reflect.DeepEqual(a.Exits, b.Exits) || !b.Complete || b.ScoreWithheld {
			t.Errorf("set %s: local %+v\nslurm %+v", a.Set, a.Summary, b.Summary)
		}
		if !b.Protections.All() || b.Isolation != "full" {
			t.Errorf("set %s: the stars lacked %v (isolation %q)", b.Set, b.Protections.Missing(), b.Isolation)
		}
	}
	if out, err := slurmCommand(context.Background(), "sinfo", "-h", "-N", "-o", "%N"); err == nil && len(strings.Fields(out)) > 1 {
		jobs, arrays := submitted(log.String())
		tasks := sacctTasks(t, jobs, arrays)
		// Three sets of 10 or 8 stars, each an array of ⌈stars / 3⌉ tasks.
		if nodes := nodesUsed(tasks); len(nodes) < 2 || len(jobs) < 3 {
			t.Errorf("the grading's %d arrays ran on %d node(s), want 3 arrays on 2 nodes or more: %+v", len(jobs), len(nodes), tasks)
		} else {
			t.Logf("the grading's %d tasks ran on %d nodes", len(tasks), len(nodes))
		}
	}
	if local.A.S == 0 && local.A.F == 0 && local.Dev.F == 0 {
		t.Errorf("the solution scored nothing anywhere: the comparison shows nothing")
	}
	runs, _ := filepath.Glob(filepath.Join(home, "slurm", "run-*"))
	if len(runs) != 0 {
		t.Errorf("run directories left in the data directory: %v", runs)
	}
}
