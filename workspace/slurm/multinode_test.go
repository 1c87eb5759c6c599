package slurm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"transitbench/grader/store"
	"transitbench/workspace"
)

// The multi-node tests need the test cluster with 3 nodes, `scripts/slurm-test-cluster start --nodes 3`, each
// slurmd in its own network and UTS namespace; .ci/run runs them once with proctrack/linuxproc and once with
// proctrack/cgroup (TRANSITBENCH_SLURM_PROCTRACK=cgroup, which the cluster must then be).

// clusterScript is the test cluster's script, from this package's directory.
const clusterScript = "../../scripts/slurm-test-cluster"

// multiNodeStars is the number of dev stars of the multi-node runs: 4 tasks of 6 stars spread over 3 nodes.
const multiNodeStars, multiNodeChunk = 24, 6

// cluster is what the tests need to know of the test cluster.
type cluster struct {
	nodes     []string
	proctrack string // "proctrack/linuxproc" or "proctrack/cgroup"
}

// needNodes skips the test (fails it under CI) unless a cluster of at least n nodes answers, and, when
// TRANSITBENCH_SLURM_PROCTRACK is set, unless the cluster tracks processes with that plugin.
func needNodes(t *testing.T, n int) cluster {
	t.Helper()
	needCluster(t)
	out, err := slurmCommand(context.Background(), "sinfo", "-h", "-N", "-o", "%N")
	if err != nil {
		t.Fatal(err)
	}
	var c cluster
	c.nodes = strings.Fields(out)
	conf, err := slurmCommand(context.Background(), "scontrol", "show", "config")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^ProctrackType\s*=\s*(\S+)`).FindStringSubmatch(conf); m != nil {
		c.proctrack = m[1]
	}
	skip := t.Skipf
	if os.Getenv("CI") != "" {
		skip = t.Fatalf
	}
	if len(c.nodes) < n {
		skip("the cluster has %d node(s), the test needs %d: scripts/slurm-test-cluster start --nodes %d", len(c.nodes), n, n)
	}
	if want := os.Getenv("TRANSITBENCH_SLURM_PROCTRACK"); want != "" && c.proctrack != "proctrack/"+want {
		t.Fatalf("TRANSITBENCH_SLURM_PROCTRACK=%s but the cluster runs %s", want, c.proctrack)
	}
	return c
}

// submitted returns the job ids and arrays of the run's submissions, from the backend's log.
func submitted(log string) (jobs []string, arrays []string) {
	for _, m := range regexp.MustCompile(`submitted job (\d+) \(array ([^,]+),`).FindAllStringSubmatch(log, -1) {
		jobs, arrays = append(jobs, m[1]), append(arrays, m[2])
	}
	return jobs, arrays
}

// accounted is one array task as sacct reports it.
type accounted struct{ id, state, node string }

// sacctTasks returns the array tasks of the submissions (jobs and their --array values) as sacct reports them,
// asking again (up to 30 s) until slurmdbd has recorded every task with its end state.
func sacctTasks(t *testing.T, jobs, arrays []string) []accounted {
	t.Helper()
	want := 0
	for _, a := range arrays {
		a, _, _ = strings.Cut(a, "%")
		lo, hi, ok := strings.Cut(a, "-")
		if !ok {
			hi = lo
		}
		l, _ := strconv.Atoi(lo)
		h, _ := strconv.Atoi(hi)
		want += h - l + 1
	}
	var tasks []accounted
	for range 120 {
		out, err := slurmCommand(context.Background(), "sacct", "-n", "-X", "-P", "-j", strings.Join(jobs, ","), "-o", "JobID,State,NodeList")
		if err != nil {
			t.Fatal(err)
		}
		tasks = nil
		settled := true
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Split(line, "|")
			if len(f) != 3 {
				continue
			}
			tasks = append(tasks, accounted{id: f[0], state: strings.Fields(f[1] + " ")[0], node: f[2]})
			if s := tasks[len(tasks)-1].state; s == "RUNNING" || s == "PENDING" || s == "COMPLETING" {
				settled = false
			}
		}
		if settled && len(tasks) >= want {
			return tasks
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("sacct shows %d tasks of %d, or some not ended, after 30 s: %+v", len(tasks), want, tasks)
	return tasks
}

// nodesUsed returns the nodes the completed tasks ran on.
func nodesUsed(tasks []accounted) map[string]bool {
	nodes := map[string]bool{}
	for _, a := range tasks {
		if a.state == "COMPLETED" {
			nodes[a.node] = true
		}
	}
	return nodes
}

// starCgroups watches, while a run is on, for the sandbox's star cgroups nested under a Slurm task's cgroup
// (memory controller, proctrack/cgroup); stop returns the ones it saw.
func starCgroups() (stop func() []string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			ms, _ := filepath.Glob("/sys/fs/cgroup/memory/slurm_*/uid_*/job_*/step_batch/task_*/" + cgroupBase + "/*/star-*")
			mu.Lock()
			for _, m := range ms {
				seen[m] = true
			}
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() []string {
		close(done)
		<-finished
		out := make([]string, 0, len(seen))
		for m := range seen {
			out = append(out, m)
		}
		return out
	}
}

// cgroupBase is the sandbox's directory of run cgroups under the runner's own cgroup (sandbox's cgroupBase).
const cgroupBase = "transitbench"

// TestSlurmMultiNode runs the Go starter on 24 dev stars locally, then through a 3-node cluster: a run whose
// tasks spread over at least two nodes (sacct's NodeList); a run during which a node is lost (every process of
// the node killed, its slurmd first) while its task runs, whose chunk goes to another node; and a run whose
// controller is killed with SIGKILL and started again with the same command, which takes the stars the tasks
// finished meanwhile from their files and runs no finished star twice. Each gives the local run's outcome for
// every star, and every star has the sandbox's four protections; under proctrack/cgroup each star's cgroup
// is nested in the Slurm task's.
func TestSlurmMultiNode(t *testing.T) {
	cl := needNodes(t, 3)
	ws, home := clusterWorkspace(t)
	ctx := context.Background()
	opt := workspace.RunOptions{Home: home, Limit: multiNodeStars, Workers: 2}
	start := time.Now()
	local, err := devRun(t, ctx, ws, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local: %d stars in %.1f s (%s)", multiNodeStars, time.Since(start).Seconds(), cl.proctrack)
	if !local.Protections.All() {
		t.Fatalf("the local run lacks %v: the comparison needs a machine where the sandbox isolates fully", local.Protections.Missing())
	}
	lo := outcomes(t, home, local.RunID)
	stars := make([]string, 0, len(lo))
	for id := range lo {
		stars = append(stars, id)
	}
	check := func(t *testing.T, what string, rep *workspace.Report) {
		t.Helper()
		sameReport(t, what, local, rep)
		if !rep.Protections.All() || rep.Isolation != "full" {
			t.Errorf("%s: the stars lacked %v (isolation %q)", what, rep.Protections.Missing(), rep.Isolation)
		}
		so := outcomes(t, home, rep.RunID)
		if len(so) != len(lo) {
			t.Errorf("%s: %d outcomes stored, the local run has %d", what, len(so), len(lo))
		}
		sameOutcomes(t, what, lo, so, stars)
	}

	t.Run("spread", func(t *testing.T) {
		var log logLines
		opt := opt
		opt.Backend, opt.Fresh = testBackend(multiNodeChunk, &log), true
		watch := starCgroups()
		start := time.Now()
		rep, err := devRun(t, ctx, ws, opt, nil)
		nested := watch()
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		t.Logf("slurm: %d stars on %d nodes in %.1f s", multiNodeStars, len(cl.nodes), time.Since(start).Seconds())
		check(t, "spread", rep)
		jobs, arrays := submitted(log.String())
		tasks := sacctTasks(t, jobs, arrays)
		if nodes := nodesUsed(tasks); len(nodes) < 2 {
			t.Errorf("the array ran on %d node(s), want 2 or more: %+v", len(nodes), tasks)
		}
		if cl.proctrack == "proctrack/cgroup" {
			if len(nested) == 0 {
				t.Errorf("no star cgroup was seen under a Slurm task's cgroup")
			} else {
				t.Logf("%d star cgroups nested in Slurm's, e.g. %s", len(nested), nested[0])
			}
		}
	})

	t.Run("node lost", func(t *testing.T) {
		var log logLines
		opt := opt
		opt.Backend, opt.Fresh = testBackend(multiNodeChunk, &log), true
		var once sync.Once
		lost := make(chan string, 1)
		start := time.Now()
		rep, err := devRun(t, ctx, ws, opt, func(ev workspace.Event) {
			if ev.Done >= 2 {
				once.Do(func() {
					go func() { lost <- killRunningNode(t, ev.RunID) }()
				})
			}
		})
		node := <-lost
		if node != "" {
			t.Cleanup(func() { restartNode(t, node) })
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, log.String())
		}
		t.Logf("slurm: %d stars, node %s lost, in %.1f s", multiNodeStars, node, time.Since(start).Seconds())
		if node == "" {
			t.Fatal("no node could be killed while a task of the run ran")
		}
		check(t, "node lost", rep)
		jobs, arrays := submitted(log.String())
		if len(jobs) < 2 || !strings.Contains(log.String(), "submitting it again") {
			t.Fatalf("the lost node's chunk was not submitted again:\n%s", log.String())
		}
		tasks := sacctTasks(t, jobs, arrays)
		for i, job := range jobs[1:] {
			for _, a := range tasks {
				if a.id != job+"_"+arrays[i+1] {
					continue
				}
				if a.state != "COMPLETED" || a.node == node {
					t.Errorf("the resubmitted task %s ended %s on %s, want COMPLETED on a node other than %s", a.id, a.state, a.node, node)
				}
			}
		}
		var onLost []string
		for _, a := range tasks {
			if a.node == node && a.state != "COMPLETED" {
				onLost = append(onLost, a.id+" "+a.state)
			}
		}
		if len(onLost) == 0 {
			t.Errorf("sacct shows no task that the lost node %s failed: %+v", node, tasks)
		}
		restartNode(t, node)
	})

	t.Run("controller killed", func(t *testing.T) {
		testControllerKilled(t, ws.Root, home, lo, stars)
	})
}

// killRunningNode kills the node of a running task of run id (kill-node: its slurmd and everything under it)
// and returns its name ("" when none ran within a minute).
func killRunningNode(t *testing.T, runID int64) string {
	prefix := "transitbench-" + strconv.FormatInt(runID, 10) + "-"
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out, err := slurmCommand(context.Background(), "squeue", "-h", "-r", "-o", "%i %j %T %N")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) == 4 && strings.HasPrefix(f[1], prefix) && f[2] == "RUNNING" {
				if b, err := exec.Command(clusterScript, "kill-node", f[3]).CombinedOutput(); err != nil {
					t.Errorf("kill-node %s: %v: %s", f[3], err, b)
					return ""
				}
				return f[3]
			}
		}
	}
	return ""
}

// restartNode starts the slurmd of a node killed by killRunningNode again (once: later calls do nothing).
func restartNode(t *testing.T, node string) {
	if out, err := slurmCommand(context.Background(), "sinfo", "-h", "-n", node, "-o", "%t"); err == nil &&
		regexp.MustCompile(`^(idle|mix|alloc)`).MatchString(strings.TrimSpace(out)) {
		return
	}
	if b, err := exec.Command(clusterScript, "start-node", node).CombinedOutput(); err != nil {
		t.Errorf("start-node %s: %v: %s", node, err, b)
	}
}

// controllerEnv carries, as JSON, the controller process's orders (controllerArgs): the test binary then
// runs a dev run through the Slurm backend as `transitbench dev --backend slurm` would, printing a line per
// finished star on stdout and the backend's log on stderr.
const controllerEnv = "TRANSITBENCH_SLURM_TEST_CONTROLLER"

type controllerArgs struct {
	Workspace, Home, ExecLog string
	Limit, Chunk             int
}

// controllerMain is the controller process: it returns its exit status.
func controllerMain(spec string) int {
	var a controllerArgs
	if err := json.Unmarshal([]byte(spec), &a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ws, err := workspace.Open(a.Workspace)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	b := &Backend{Chunk: a.Chunk, Command: []string{os.Args[0]}, Env: []string{workerEnv + "=1", execLogEnv + "=" + a.ExecLog},
		Poll: 100 * time.Millisecond, QueuePoll: 500 * time.Millisecond, Log: func(msg string) { fmt.Fprintln(os.Stderr, msg) }}
	events := make(chan workspace.Event)
	go func() {
		for ev := range events {
			fmt.Printf("done %d run %d\n", ev.Done, ev.RunID)
		}
	}()
	_, err = ws.Dev(context.Background(), workspace.RunOptions{Home: a.Home, Limit: a.Limit, Backend: b}, events)
	close(events)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startController starts the controller process with args; lines receives its stdout lines.
func startController(t *testing.T, args controllerArgs, stderr *strings.Builder) (*exec.Cmd, <-chan string) {
	t.Helper()
	spec, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), controllerEnv+"="+string(spec))
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return cmd, lines
}

// testControllerKilled: the controller is killed with SIGKILL once 2 stars are stored; once its tasks have
// finished at least 2 stars more that it never read, it is started again with the same command: it takes
// those stars from the result files, and every star was run to its end exactly once (the workers' result
// files, kept by hard links, hold each star once), with the local run's outcome.
func testControllerKilled(t *testing.T, wsRoot, home string, lo map[string]store.Outcome, stars []string) {
	args := controllerArgs{Workspace: wsRoot, Home: home, ExecLog: t.TempDir(), Limit: multiNodeStars, Chunk: multiNodeChunk}
	var stderr1 strings.Builder
	start := time.Now()
	cmd, lines := startController(t, args, &stderr1)
	var runID int64
	for line := range lines {
		var done int
		if _, err := fmt.Sscanf(line, "done %d run %d", &done, &runID); err == nil && done >= 2 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if runID == 0 {
		t.Fatalf("the controller ended before 2 stars were done:\n%s", stderr1.String())
	}
	stored := len(outcomes(t, home, runID))
	// Wait for the tasks, which run on without their controller, to finish stars it never read.
	dir := filepath.Join(home, "slurm", "run-"+strconv.FormatInt(runID, 10))
	var finished int
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		finished = len(starsIn(t, dir+"/results/*.jsonl"))
		if finished >= stored+2 || finished == len(stars) {
			break
		}
	}
	t.Logf("controller killed after %.1f s with %d stars stored; the tasks had finished %d when it started again",
		time.Since(start).Seconds(), stored, finished)
	if finished <= stored {
		t.Fatalf("the tasks finished no star after their controller was killed (%d stored, %d in the result files)", stored, finished)
	}
	var stderr2 strings.Builder
	cmd, lines = startController(t, args, &stderr2)
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the restarted controller: %v\n%s", err, stderr2.String())
	}
	t.Logf("restarted controller: %.1f s in all\n%s", time.Since(start).Seconds(), stderr2.String())
	m := regexp.MustCompile(`took (\d+) finished stars`).FindStringSubmatch(stderr2.String())
	if m == nil {
		t.Errorf("the restarted controller took no star from the result files:\n%s", stderr2.String())
	} else if n, _ := strconv.Atoi(m[1]); n < finished-stored {
		t.Errorf("the restarted controller took %d stars, the files held %d not stored", n, finished-stored)
	}
	so := outcomes(t, home, runID)
	if len(so) != len(stars) {
		t.Errorf("run %d stored %d outcomes, want %d", runID, len(so), len(stars))
	}
	sameOutcomes(t, "controller killed", lo, so, stars)
	runs := map[string]int{}
	for _, f := range mustGlob(t, filepath.Join(args.ExecLog, "*.jsonl")) {
		for id, n := range starsIn(t, f) {
			runs[id] += n
		}
	}
	for _, id := range stars {
		if runs[id] != 1 {
			t.Errorf("star %s ran to its end %d times, want once", id, runs[id])
		}
	}
}

// starsIn counts the result lines of each star in the files matching pattern.
func starsIn(t *testing.T, pattern string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, f := range mustGlob(t, pattern) {
		tr := tailReader{path: f}
		rs, err := tr.next()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			n[r.StarID]++
		}
	}
	return n
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
