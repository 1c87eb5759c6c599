package slurm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"transitbench/sandbox"
)

func resultLine(t *testing.T, id string) string {
	t.Helper()
	b, err := json.Marshal(sandbox.Result{StarID: id, ExitReason: sandbox.ExitOK, Stdout: []byte("period_days,t0_days,score\n1,2,3\n"),
		Runtime: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestTailReaderTakesCompleteLines: the controller reads only lines a task finished writing, each once, and the
// results come back as the task wrote them.
func TestTailReaderTakesCompleteLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "task-0.jsonl")
	l1, l2, l3 := resultLine(t, "dev-0001"), resultLine(t, "dev-0002"), resultLine(t, "dev-0003")
	tr := tailReader{path: path}
	if rs, err := tr.next(); err != nil || len(rs) != 0 {
		t.Fatalf("no file yet: %v, %v", rs, err)
	}
	if err := os.WriteFile(path, []byte(l1+l2+l3[:20]), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, err := tr.next()
	if err != nil || len(rs) != 2 || rs[0].StarID != "dev-0001" || rs[1].StarID != "dev-0002" ||
		rs[1].Runtime != 1500*time.Millisecond || !strings.Contains(string(rs[0].Stdout), "1,2,3") {
		t.Fatalf("two lines and a torn one: %+v, %v", rs, err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(l3[20:])
	f.Close()
	if rs, err := tr.next(); err != nil || len(rs) != 1 || rs[0].StarID != "dev-0003" {
		t.Fatalf("the torn line completed: %+v, %v", rs, err)
	}
	if rs, err := tr.next(); err != nil || len(rs) != 0 {
		t.Fatalf("nothing new: %+v, %v", rs, err)
	}
}

// TestFinishedStarsCutsATornLine: a resubmitted task skips the stars the chunk's files hold, and removes the
// last line a killed task of its own submission left half written, so its own lines start clean; another
// submission's torn line is left alone (that task may still be writing it).
func TestFinishedStarsCutsATornLine(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "results"), 0o700)
	own, other := resultPath(dir, 3, "41"), resultPath(dir, 3, "40")
	l1, l2, l3, l4 := resultLine(t, "A-0007"), resultLine(t, "A-0009"), resultLine(t, "A-0002"), resultLine(t, "A-0004")
	if err := os.WriteFile(own, []byte(l1+l2[:30]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(l3+l4[:10]), 0o600); err != nil {
		t.Fatal(err)
	}
	files, err := resultFiles(dir)
	if err != nil || len(files[3]) != 2 {
		t.Fatalf("result files %v, %v; want task 3's two", files, err)
	}
	done, err := finishedStars(own, files[3])
	if err != nil || len(done) != 2 || !done["A-0007"] || !done["A-0002"] {
		t.Fatalf("finished stars %v, %v; want A-0007 and A-0002", done, err)
	}
	if b, _ := os.ReadFile(own); string(b) != l1 {
		t.Errorf("the torn line was not cut: %q", b)
	}
	if b, _ := os.ReadFile(other); string(b) != l3+l4[:10] {
		t.Errorf("another submission's file was changed: %q", b)
	}
}

// TestIngestDeliversEachStarOnce: two submissions of a chunk (a task given up for lost that still ran, and the
// task that replaced it) both write a star: the controller delivers it once, and only stars of the chunk.
func TestIngestDeliversEachStarOnce(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "results"), 0o700)
	results := make(chan sandbox.Result, 10)
	c := &controller{b: &Backend{}, dir: dir, results: results, delivered: map[string]bool{},
		chunkOf: map[string]int{"A-0001": 0, "A-0002": 0, "A-0003": 1}}
	c.chunks = []*chunkState{{stars: 2, tails: map[string]*tailReader{}}, {stars: 1, tails: map[string]*tailReader{}}}
	write := func(path string, ids ...string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			f.WriteString(resultLine(t, id))
		}
		f.Close()
	}
	write(resultPath(dir, 0, "10"), "A-0001", "A-0003") // A-0003 is not chunk 0's
	write(resultPath(dir, 0, "11"), "A-0001")
	if err := c.ingest(); err != nil {
		t.Fatal(err)
	}
	write(resultPath(dir, 0, "11"), "A-0002")
	write(resultPath(dir, 0, "10"), "A-0002")
	write(resultPath(dir, 1, "10"), "A-0003")
	if err := c.ingest(); err != nil {
		t.Fatal(err)
	}
	close(results)
	var got []string
	for r := range results {
		got = append(got, r.StarID)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"A-0001", "A-0002", "A-0003"}) || !c.done() {
		t.Errorf("delivered %v (done %v), want A-0001, A-0002, A-0003 once each", got, c.done())
	}
}

// TestSbatchArgs: the array's resources follow the chunk, the workers per task and the star's limits, and the
// partition flags and extra options pass through.
func TestSbatchArgs(t *testing.T) {
	b := &Backend{Chunk: 10, Workers: 2, Partition: "short", QOS: "normal", Extra: []string{"--constraint=avx2"}}
	wl := WorkList{Limits: sandbox.Limits{WallTime: 60 * time.Second, MemoryBytes: 4 << 30}}
	args := b.sbatchArgs("transitbench-7-abc", "/data/slurm/run-7", "0-9%3", wl)
	for _, want := range []string{"--job-name=transitbench-7-abc", "--array=0-9%3", "--cpus-per-task=2",
		"--mem=8704M", "--time=15", "--partition=short", "--qos=normal", "--constraint=avx2",
		"--output=/data/slurm/run-7/logs/%A_%a.out", "--no-requeue"} {
		if !slices.Contains(args, want) {
			t.Errorf("sbatch args %q lack %q", args, want)
		}
	}
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--account") }) {
		t.Errorf("an account was passed without one being given: %q", args)
	}
}

// TestTaskScript: the task script exports the data directory and the extra settings and starts the worker on
// its work list with the array index, quoting what it must.
func TestTaskScript(t *testing.T) {
	dir := t.TempDir()
	c := &controller{b: &Backend{Command: []string{"/opt/it's here/transitbench"}, Env: []string{"A=b c"}}, dir: dir}
	if err := c.writeFiles(WorkList{Version: workListVersion, Home: "/shared/home"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, scriptFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"export TRANSITBENCH_HOME='/shared/home'\n", "export A='b c'\n",
		`exec '/opt/it'\''s here/transitbench' 'worker' '--work' '` + workPath(dir) + `' --task "$SLURM_ARRAY_TASK_ID"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the task script lacks %q:\n%s", want, b)
		}
	}
	if wl, err := readWorkList(workPath(dir)); err != nil || wl.Home != "/shared/home" {
		t.Errorf("the work list reads back as %+v, %v", wl, err)
	}
	if fi, err := os.Stat(workPath(dir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the work list's mode: %v, %v; want 0600", fi.Mode(), err)
	}
}
