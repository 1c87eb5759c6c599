package slurm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"transitbench/sandbox"
	"transitbench/workspace"
)

// Backend runs a run's stars as one Slurm job array (workspace.Backend). The zero value runs chunks of
// DefaultChunk stars, one star at a time per task, on the default partition.
type Backend struct {
	Partition, Account, QOS string
	// Extra are more sbatch options, passed as given (e.g. "--constraint=avx2").
	Extra []string
	// Chunk is the number of stars per array task (default DefaultChunk).
	Chunk int
	// MaxParallel caps the tasks running at once (sbatch --array=…%M; 0: no cap).
	MaxParallel int
	// Workers is the stars a task runs at once, its --cpus-per-task (default 1); its memory is Workers × the
	// per-star memory cap plus WorkerMemory.
	Workers int
	// Retries is how many times a failed or lost chunk is submitted again (default 2; negative: never).
	Retries int
	// Command is how a node starts the worker: the transitbench binary on a path the nodes share (default: this
	// executable) and any arguments before `worker`; Env are extra NAME=value settings for it.
	Command []string
	Env     []string
	// Poll is how often result files are read (default 250 ms); the queue is asked every QueuePoll (default 2 s).
	Poll, QueuePoll time.Duration
	// Log, when set, receives a line for each submission, resubmission and cancellation.
	Log func(msg string)
}

// Defaults of Backend.
const (
	DefaultChunk   = 25
	DefaultRetries = 2
	// WorkerMemory is the memory a task asks for beyond its stars' caps: the worker itself.
	WorkerMemory = 512 << 20
	// timeMargin is added to a task's time limit beyond its stars' wall times: the Go build, the set's loading.
	timeMargin = 10 * time.Minute
)

// Run runs job's stars as a job array and sends each finished star's sandbox.Result on results.
func (b *Backend) Run(ctx context.Context, job workspace.BackendJob, results chan<- sandbox.Result) error {
	if len(job.Stars) == 0 {
		return nil
	}
	home := job.Runner.Home
	dir := filepath.Join(home, "slurm", fmt.Sprintf("run-%d", job.RunID))
	stars, err := b.takeOver(ctx, dir, job, results)
	if err != nil {
		return err
	}
	if job.Stars = stars; len(stars) == 0 {
		return os.RemoveAll(dir)
	}
	if err := makeRunDir(dir); err != nil {
		return err
	}
	solDir, err := shareSolution(home, job.Solution.Dir, job.SolutionHash)
	if err != nil {
		return err
	}
	if err := probe(ctx, b, home); err != nil {
		return err
	}
	c := &controller{b: b, dir: dir, hidden: job.Set.Hidden(), results: results, chunkOf: map[string]int{},
		delivered: map[string]bool{}, name: fmt.Sprintf("transitbench-%d-%s", job.RunID, randomHex(3))}
	wl := WorkList{Version: workListVersion, Home: home, Set: job.Set.Name, Fingerprint: job.Set.Fingerprint,
		Composition: job.Set.Composition, Hidden: job.Set.Hidden(), Solution: solDir, SolutionHash: job.SolutionHash, Workers: b.workers(),
		Limits: job.Runner.Limits, AllowDegraded: job.Runner.AllowDegraded, Aliases: job.Aliases}
	for i := 0; i < len(job.Stars); i += b.chunk() {
		chunk := job.Stars[i:min(i+b.chunk(), len(job.Stars))]
		for _, id := range chunk {
			c.chunkOf[id] = len(c.chunks)
		}
		wl.Chunks = append(wl.Chunks, chunk)
		c.chunks = append(c.chunks, &chunkState{stars: len(chunk), tails: map[string]*tailReader{}})
	}
	if err := c.writeFiles(wl); err != nil {
		return err
	}
	err = c.run(ctx)
	if c.hidden || err == nil {
		os.RemoveAll(dir)
	}
	return err
}

func (b *Backend) chunk() int {
	if b.Chunk > 0 {
		return b.Chunk
	}
	return DefaultChunk
}

func (b *Backend) workers() int { return max(b.Workers, 1) }

func (b *Backend) retries() int {
	if b.Retries == 0 {
		return DefaultRetries
	}
	return max(b.Retries, 0)
}

func (b *Backend) log(format string, args ...any) {
	if b.Log != nil {
		b.Log(fmt.Sprintf(format, args...))
	}
}

// sbatchArgs are the options of a submission of the tasks in array ("0-7%4", "3") for the work list wl.
func (b *Backend) sbatchArgs(name, dir, array string, wl WorkList) []string {
	lim := wl.Limits
	if lim.MemoryBytes <= 0 {
		lim.MemoryBytes = sandbox.DefaultMemoryBytes
	}
	if lim.WallTime <= 0 {
		lim.WallTime = sandbox.DefaultWallTime
	}
	chunk := b.chunk()
	wall := time.Duration((chunk+b.workers()-1)/b.workers())*lim.WallTime + timeMargin
	mem := (int64(b.workers())*lim.MemoryBytes + WorkerMemory) >> 20
	// --no-requeue: a task whose node failed is not run again by Slurm under the same job id (where it would
	// share its result file with the task it replaces, should that one still run); the controller submits
	// its chunk again instead.
	args := []string{"--job-name=" + name, "--array=" + array, "--nodes=1", "--ntasks=1", "--no-requeue",
		"--cpus-per-task=" + strconv.Itoa(b.workers()), fmt.Sprintf("--mem=%dM", mem),
		"--time=" + strconv.Itoa(int(wall.Minutes()+0.999)), "--output=" + filepath.Join(dir, "logs", "%A_%a.out"),
		"--chdir=" + dir}
	for flag, v := range map[string]string{"--partition=": b.Partition, "--account=": b.Account, "--qos=": b.QOS} {
		if v != "" {
			args = append(args, flag+v)
		}
	}
	return append(args, b.Extra...)
}

// makeRunDir makes the run's directory dir under the data directory (0700), empty: what a controller that was
// killed left there has been taken over (takeOver).
func makeRunDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, d := range []string{dir, filepath.Join(dir, "results"), filepath.Join(dir, "logs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// shareSolution returns the solution's directory as the nodes reach it: itself when it lies in the data
// directory (a frozen copy), else a copy at slurm/solutions/HASH (made once per content, 0700).
func shareSolution(home, src, hash string) (string, error) {
	if rel, err := filepath.Rel(home, src); err == nil && !strings.HasPrefix(rel, "..") {
		return src, nil
	}
	dst := filepath.Join(home, "slurm", "solutions", hash)
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	h, entries, err := workspace.HashTree(src)
	if err != nil {
		return "", err
	}
	if h != hash {
		return "", fmt.Errorf("slurm: the solution changed since the run started: run again")
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		return "", err
	}
	if err := workspace.CopyTree(src, tmp, entries); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return dst, nil
}

// writeFiles writes the work list and the task script.
func (c *controller) writeFiles(wl WorkList) error {
	c.wl = wl
	b, err := json.MarshalIndent(wl, "", " ")
	if err != nil {
		return err
	}
	if err := writeFileSync(workPath(c.dir), b, 0o600); err != nil {
		return err
	}
	cmd := c.b.Command
	if len(cmd) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		cmd = []string{exe}
	}
	var s strings.Builder
	s.WriteString("#!/bin/sh\n# A task of a transitbench run: its chunk of the work list, through the sandbox.\n")
	for _, kv := range append([]string{"TRANSITBENCH_HOME=" + wl.Home}, c.b.Env...) {
		name, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&s, "export %s=%s\n", name, shellQuote(v))
	}
	s.WriteString("exec")
	for _, a := range append(cmd, "worker", "--work", workPath(c.dir)) {
		s.WriteString(" " + shellQuote(a))
	}
	s.WriteString(" --task \"$SLURM_ARRAY_TASK_ID\" --submission \"$SLURM_ARRAY_JOB_ID\"\n")
	return writeFileSync(filepath.Join(c.dir, scriptFile), []byte(s.String()), 0o700)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
