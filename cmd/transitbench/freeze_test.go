package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/sets"
	"transitbench/workspace"
)

// TestFreezeAndGradeFrozen: the contestant's 'freeze --out' writes a tar and its hashes; the grader's
// 'grade --frozen FILE --hash H' refuses the file when H is not its hash (code refused, nothing run) and grades it
// when it is, the report naming the file's SHA-256 and the grading's ordinal.
func TestFreezeAndGradeFrozen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds small sets and grades on them: not in -short mode")
	}
	home := t.TempDir()
	t.Setenv("TRANSITBENCH_HOME", home)
	ctx := context.Background()
	var out, errb bytes.Buffer
	s := streams{Out: &out, Err: &errb, JSON: true}
	contestant := filepath.Join(t.TempDir(), "contestant")
	if err := runInit(ctx, s, &initOptions{Dir: contestant, Preset: "survey", Lang: "python", Compositions: hiddenTestSets}); err != nil {
		t.Fatalf("runInit: %v\n%s", err, errb.String())
	}
	c := hiddenTestSets[sets.Dev]
	dev, err := sets.Open(home, sets.Dev, sets.Options{Composition: &c})
	if err != nil {
		t.Fatal(err)
	}
	oracleRun(t, filepath.Join(contestant, "solution"), dev.Answers)
	grader := filepath.Join(t.TempDir(), "grader")
	if err := runInit(ctx, s, &initOptions{Dir: grader, Preset: "survey", Lang: "python", Compositions: hiddenTestSets}); err != nil {
		t.Fatalf("runInit: %v\n%s", err, errb.String())
	}
	out.Reset()

	tarPath := filepath.Join(t.TempDir(), "solution.tar.gz")
	if err := runFreeze(ctx, s, &freezeOptions{Workspace: contestant, Out: tarPath}); err != nil {
		t.Fatalf("runFreeze: %v\n%s", err, errb.String())
	}
	var ff workspace.FrozenFile
	decodeJSON(t, &out, &ff)
	if ff.Path != tarPath || len(ff.FileSHA) != 64 || len(ff.Hash) != 64 {
		t.Fatalf("freeze result %+v", ff)
	}
	rf := runFlags{Workspace: grader, Workers: 2, Timeout: 60, Compositions: hiddenTestSets}
	wrong := strings.Repeat("0", 64)
	err = runGrade(ctx, s, &gradeOptions{runFlags: rf, Frozen: tarPath, Hash: wrong})
	if !isCode(err, codeRefused) || !strings.Contains(err.Error(), ff.FileSHA) {
		t.Fatalf("grade --frozen with a hash that is not the file's: %v, want code refused naming the file's SHA-256", err)
	}
	if out.Len() != 0 {
		t.Errorf("a refused grading printed %q", out.String())
	}
	if err := runGrade(ctx, s, &gradeOptions{runFlags: rf, Frozen: tarPath, Hash: ff.FileSHA}); err != nil {
		t.Fatalf("grade --frozen: %v\n%s", err, errb.String())
	}
	var rep workspace.GradeReport
	decodeJSON(t, &out, &rep)
	if rep.FrozenFile != ff.FileSHA || rep.Frozen != ff.Hash || rep.Grading != 1 || rep.A == nil || !rep.A.Complete ||
		rep.Dev == nil || rep.Dev.Credit != float64(rep.Dev.Planets) {
		t.Fatalf("the grading of the frozen file: %+v", rep)
	}
}
