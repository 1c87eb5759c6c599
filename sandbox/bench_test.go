package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
)

// BenchmarkRunTrivial measures the runner's overhead per star: one worker, a shell `run` that prints one line,
// a star directory with one small file. The time per op is the whole cost of a star: its directory, the
// namespaces, the mounts, the limits, the exec and the wait.
func BenchmarkRunTrivial(b *testing.B) {
	runTrivialStars(b, &Runner{Workers: 1, UIDBase: testUIDBase, Home: testHome})
}

// runTrivialStars runs b.N stars of a shell solution that prints one line through r, timing the run alone, and
// reports the processor time per star ("cpu-ms/op"); each star must print its line. It returns the results.
func runTrivialStars(b *testing.B, r *Runner) []Result {
	sol := shellSolution(b, "echo 1.0,2.0,3.0")
	if err := sol.Prepare(context.Background()); err != nil {
		b.Fatal(err)
	}
	jobs := make([]Job, b.N)
	for i := range jobs {
		jobs[i] = starJob("s", map[string]string{"star.json": `{"id":"s"}`})
	}
	ch := make(chan Result, b.N)
	cpu := cpuTime()
	b.ResetTimer()
	if err := r.Run(context.Background(), sol, jobs, ch); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
	close(ch)
	var out []Result
	for res := range ch {
		if res.ExitReason != ExitOK || string(res.Stdout) != "1.0,2.0,3.0\n" {
			b.Fatalf("%s: %q %q", res.ExitReason, res.Stdout, res.StderrTail)
		}
		out = append(out, res)
	}
	return out
}

// overheadParts split a star's overhead into the stages the runner and its child pass (stages.go): first the
// star's own path, in the order a star meets them, then the making of its slot (its directory and user id, its
// cgroup, and its child started, handed its configuration, with its root built, waiting at the gate), which
// happens during the previous star when slots are made ahead, and otherwise on the star's path, inside "slot".
var overheadParts = []struct {
	name     string
	from, to stage
}{
	{"prepare", stageStart, stagePrepared},         // Job.Prepare into the slot's directory, made readable
	{"uid", stagePrepared, stageUID},               // the slot's user id checked
	{"slot", stageUID, stageSlot},                  // waiting for the slot (made ahead) or making it
	{"cgroup-pin", stageSlot, stagePinned},         // the cgroup given the worker's CPU
	{"gate", stagePinned, stageOpened},             // the gate opened: the star's files are ready
	{"gate-child", stageOpened, stageChildGate},    // the child past its gate
	{"star", stageChildGate, stageChildStar},       // the star's files copied in
	{"limits", stageChildStar, stageChildLimits},   // CPU, working directory, rlimits
	{"setuid", stageChildLimits, stageChildUser},   // the star's user
	{"seccomp", stageChildUser, stageChildSeccomp}, // the filter loaded (assembled once per run)
	{"exec", stageChildSeccomp, stageExecuted},     // the solution's lookup, RLIMIT_AS and execve, seen by the runner
	{"solution", stageExecuted, stageExited},       // the solution's own run and exit (its namespaces torn down)
	{"cgroup-kill", stageExited, stageKilled},      // the cgroup emptied, its OOM count and peak read
	{"cgroup-release", stageKilled, stageEnded},    // the cgroup's removal started
	{"collect", stageEnded, stageCollected},        // output drained, Result made
	{"cleanup", stageCollected, stageDone},         // the star's directory removal started
	{"total", stageStart, stageDone},
	{"spawn", stageSlotBegan, stageSpawned},        // pipes, cgroup, clone into new namespaces, exec of the child
	{"child-init", stageSpawned, stageChildMain},   // the child program's runtime and package initialisation
	{"cgroup-attach", stageSpawned, stageAttached}, // the child moved into the cgroup
	{"config", stageChildMain, stageChildConfig},   // the child reading its configuration
	{"root", stageChildConfig, stageChildRoot},     // mounts, pivot_root, masks, host and domain names
	{"slot-ready", stageSlotBegan, stageChildRoot}, // the whole making of the slot, up to its gate
}

// BenchmarkRunStages is BenchmarkRunTrivial with a star's overhead split into its stages: each part's median
// over the stars of the run, in microseconds ("part-us"), next to the time per star.
//
//	go test -run '^$' -bench RunStages -benchtime 200x -count 10 ./sandbox/
func BenchmarkRunStages(b *testing.B) {
	var mu sync.Mutex
	var stars []stageTimes
	r := &Runner{Workers: 1, UIDBase: testUIDBase, Home: testHome, onStages: func(t stageTimes) {
		mu.Lock()
		stars = append(stars, t)
		mu.Unlock()
	}}
	for _, res := range runTrivialStars(b, r) {
		if !res.Protections.Namespaces || !res.Protections.Seccomp || !res.Protections.Cgroup || !res.Protections.FreshUID {
			b.Fatalf("a star ran without every protection: %+v", res.Protections)
		}
	}
	for _, p := range overheadParts {
		var d []float64
		for _, t := range stars {
			if t[p.from] == 0 || t[p.to] == 0 {
				b.Fatalf("stage %d or %d not recorded: %v", p.from, p.to, t)
			}
			d = append(d, float64(t[p.to]-t[p.from])/1e3)
		}
		slices.Sort(d)
		b.ReportMetric(d[len(d)/2], p.name+"-us")
	}
}

// cpuTime is the processor time, user and system, of this process and of its children that it has waited for
// (the stars' children, the solutions), in nanoseconds: a star's cost that, unlike its wall time, hardly
// depends on what else the machine runs.
func cpuTime() int64 {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	var ns int64
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, kids.Utime, kids.Stime} {
		ns += tv.Nano()
	}
	return ns
}

// BenchmarkPrepareGoStarter measures Prepare of the workspace's Go starter: the snapshot and the go build.
// "same-solution" prepares one solution directory again and again (its build cache is warm after the first
// op); "new-solution" prepares a new directory each time (a new cache, copied from the seed).
func BenchmarkPrepareGoStarter(b *testing.B) {
	src, err := os.ReadFile("../workspace/starter/go/main.go")
	if err != nil {
		b.Fatal(err)
	}
	newDir := func() string {
		dir := filepath.Join(b.TempDir(), "solution")
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644)
		return dir
	}
	prepare := func(dir string) {
		sol, err := Detect(dir)
		if err != nil {
			b.Fatal(err)
		}
		sol.CacheDir = goCacheRoot(testHome)
		if err := sol.Prepare(context.Background()); err != nil {
			b.Fatal(err)
		}
		sol.Close()
	}
	b.Run("same-solution", func(b *testing.B) {
		dir := newDir()
		prepare(dir)
		b.ResetTimer()
		for range b.N {
			prepare(dir)
		}
	})
	b.Run("new-solution", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			dir := newDir()
			b.StartTimer()
			prepare(dir)
		}
	})
}
