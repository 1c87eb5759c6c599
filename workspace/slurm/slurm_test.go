package slurm

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"transitbench/grader/store"
	"transitbench/sandbox"
	"transitbench/workspace"
)

// The integration tests run on a real Slurm cluster: `scripts/slurm-test-cluster start` (as root) makes one on
// this machine, and .ci/run starts it before the tests. The array tasks run this test binary as the worker.

// TestMain lets the test binary serve as the sandbox's child and as `transitbench worker` for the array tasks.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain()
	}
	if os.Getenv(workerEnv) == "1" && len(os.Args) == 8 && os.Args[1] == "worker" {
		task, err := strconv.Atoi(os.Args[5])
		if err == nil {
			err = keepExecutions(os.Args[3], task, os.Args[7])
		}
		if err == nil {
			err = Work(context.Background(), os.Args[3], task, os.Args[7])
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	// After the worker: the tasks that a controller process submits inherit its environment.
	if os.Getenv(controllerEnv) != "" {
		os.Exit(controllerMain(os.Getenv(controllerEnv)))
	}
	os.Exit(m.Run())
}

const workerEnv = "TRANSITBENCH_SLURM_TEST_WORKER"

// needCluster skips the test without root (the sandbox's full isolation and the test cluster need it) and
// without a cluster; under CI, which runs as root and starts the cluster, both are failures.
func needCluster(t testing.TB) {
	t.Helper()
	ci := os.Getenv("CI") != ""
	if os.Geteuid() != 0 {
		if ci {
			t.Fatal("CI must run the Slurm tests as root")
		}
		t.Skip("the Slurm tests need root: run `sudo scripts/slurm-test-cluster start`, then the tests as root")
	}
	if err := Available(context.Background()); err != nil {
		if ci {
			t.Fatalf("no Slurm cluster answers (.ci/run starts one with scripts/slurm-test-cluster start): %v", err)
		}
		t.Skipf("no Slurm cluster answers: start one with `scripts/slurm-test-cluster start`: %v", err)
	}
}

// clusterWorkspace skips the test without a cluster (needCluster), else makes a workspace with the Go starter
// on a fresh data directory and returns it and the directory.
func clusterWorkspace(t testing.TB) (*workspace.Workspace, string) {
	t.Helper()
	needCluster(t)
	home := t.TempDir()
	ws, err := workspace.Init(filepath.Join(t.TempDir(), "ws"), workspace.InitOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return ws, home
}

// testBackend is a Backend whose tasks run this test binary as the worker, logging into log.
func testBackend(chunk int, log *logLines) *Backend {
	return &Backend{Chunk: chunk, Command: []string{os.Args[0]}, Env: []string{workerEnv + "=1"},
		Poll: 100 * time.Millisecond, QueuePoll: 500 * time.Millisecond, Log: log.add}
}

// execLogEnv names a directory where each test worker keeps a hard link to its result file, so that every star
// a task finished is still counted after the run's directory is gone.
const execLogEnv = "TRANSITBENCH_SLURM_TEST_EXECLOG"

// keepExecutions creates the result file of task of submission sub of the work list at work and links it into
// the directory execLogEnv names (when set).
func keepExecutions(work string, task int, sub string) error {
	logDir := os.Getenv(execLogEnv)
	if logDir == "" {
		return nil
	}
	path := resultPath(filepath.Dir(work), task, sub)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return os.Link(path, filepath.Join(logDir, filepath.Base(filepath.Dir(work))+"-"+filepath.Base(path)))
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// devRun runs a dev run of ws with opt; onEvent sees every event (and may cancel).
func devRun(t testing.TB, ctx context.Context, ws *workspace.Workspace, opt workspace.RunOptions, onEvent func(workspace.Event)) (*workspace.Report, error) {
	t.Helper()
	events := make(chan workspace.Event)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			if onEvent != nil {
				onEvent(ev)
			}
		}
	}()
	rep, err := ws.Dev(ctx, opt, events)
	close(events)
	<-done
	return rep, err
}

// outcomes returns run id's stored outcomes by star, without what differs between two runs of the same
// solution (the run id and the runtime).
func outcomes(t *testing.T, home string, id int64) map[string]store.Outcome {
	t.Helper()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	outs, err := st.Outcomes(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]store.Outcome{}
	for _, o := range outs {
		o.RunID, o.RuntimeMS, o.Updated = 0, 0, time.Time{}
		m[o.StarID] = o
	}
	return m
}

// sameReport compares what two runs of the same solution on the same stars must share.
func sameReport(t *testing.T, what string, a, b *workspace.Report) {
	t.Helper()
	if !reflect.DeepEqual(a.Summary, b.Summary) || !reflect.DeepEqual(a.Exits, b.Exits) || a.Failures != b.Failures ||
		a.StarsRun != b.StarsRun || a.Isolation != b.Isolation || a.Protections != b.Protections || !b.Complete {
		t.Errorf("%s: the reports differ:\nlocal %+v\nslurm %+v", what, *a, *b)
	}
}

// sameOutcomes compares the per-star outcomes of stars in two runs.
func sameOutcomes(t *testing.T, what string, a, b map[string]store.Outcome, stars []string) {
	t.Helper()
	for _, id := range stars {
		oa, ok1 := a[id]
		ob, ok2 := b[id]
		if !ok1 || !ok2 {
			t.Errorf("%s: star %s: in local %v, in slurm %v", what, id, ok1, ok2)
			continue
		}
		if !reflect.DeepEqual(oa, ob) {
			t.Errorf("%s: star %s differs:\nlocal %s %s %q %s\nslurm %s %s %q %s", what, id, oa.Status, oa.ExitReason,
				oa.StderrTail, oa.Matches, ob.Status, ob.ExitReason, ob.StderrTail, ob.Matches)
		}
	}
}

// TestSlurmMatchesLocal runs the Go starter on 40 dev stars locally and as a job array of four chunks, one of
// whose tasks is cancelled mid-run (a lost node): the chunk is submitted again, and every star's row, match
// and outcome, and the summary, are the local run's. Then a run on 8 stars is cancelled after a few stars
// (Ctrl-C): the array is cancelled, the finished stars are kept, and the resumed run completes with the
// local run's outcomes.
func TestSlurmMatchesLocal(t *testing.T) {
	ws, home := clusterWorkspace(t)
	ctx := context.Background()
	opt := workspace.RunOptions{Home: home, Limit: 40, Workers: 2}
	start := time.Now()
	local, err := devRun(t, ctx, ws, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local: 40 stars in %.1f s", time.Since(start).Seconds())
	start = time.Now()
	var log logLines
	opt.Backend, opt.Fresh = testBackend(10, &log), true
	var once sync.Once
	var cancelled chan error
	slurm, err := devRun(t, ctx, ws, opt, func(ev workspace.Event) {
		if ev.Done >= 3 {
			once.Do(func() {
				cancelled = make(chan error, 1)
				go func() { cancelled <- cancelRunningTask(ev.RunID) }()
			})
		}
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("slurm: 40 stars, one task lost, in %.1f s", time.Since(start).Seconds())
	if err := <-cancelled; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "submitting it again") {
		t.Errorf("no chunk was submitted again after its task was cancelled:\n%s", log.String())
	}
	sameReport(t, "40 stars", local, slurm)
	lo, so := outcomes(t, home, local.RunID), outcomes(t, home, slurm.RunID)
	if len(lo) != 40 || len(so) != 40 {
		t.Fatalf("stored outcomes: local %d, slurm %d, want 40", len(lo), len(so))
	}
	ids := make([]string, 0, 40)
	for id := range lo {
		ids = append(ids, id)
	}
	sameOutcomes(t, "40 stars", lo, so, ids)
	if _, err := os.Stat(filepath.Join(home, "slurm", "run-"+strconv.FormatInt(slurm.RunID, 10))); !os.IsNotExist(err) {
		t.Errorf("the run's directory is left after a complete run: %v", err)
	}
	testCancelResume(t, ws, home, lo)
}

// cancelRunningTask scancels one running array task of run id, as a lost node would end it.
func cancelRunningTask(runID int64) error {
	ctx := context.Background()
	prefix := "transitbench-" + strconv.FormatInt(runID, 10) + "-"
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out, err := slurmCommand(ctx, "squeue", "-h", "-r", "-o", "%i %j %T")
		if err != nil {
			return err
		}
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) == 3 && strings.HasPrefix(f[1], prefix) && f[2] == "RUNNING" {
				return scancel(ctx, f[0])
			}
		}
	}
	return os.ErrDeadlineExceeded
}
