package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"transitbench/sandbox"
)

// controller follows one run's job array: it ingests the tasks' results, watches the queue, resubmits lost
// chunks and cancels the array when the run is cancelled.
type controller struct {
	b       *Backend
	dir     string
	name    string // the job name of every submission of the run
	hidden  bool
	wl      WorkList
	chunks  []*chunkState
	chunkOf map[string]int // the chunk of each star
	// delivered are the stars sent on results: a star is sent once, whichever submission's file holds it
	delivered map[string]bool
	jobs      []string // every job id submitted, for scancel
	results   chan<- sandbox.Result
}

// chunkState is what the controller knows of one array task.
type chunkState struct {
	stars    int
	got      int    // its stars delivered
	task     string // "JOBID_INDEX" of its current submission
	attempts int
	tails    map[string]*tailReader // by result file, one per submission
}

func (s *chunkState) complete() bool { return s.got >= s.stars }

// run submits the array and follows it until every chunk is complete, a chunk fails too often, or ctx is
// cancelled (then it cancels the array and delivers what finished).
func (c *controller) run(ctx context.Context) error {
	array := "0-" + strconv.Itoa(len(c.chunks)-1)
	if c.b.MaxParallel > 0 {
		array += "%" + strconv.Itoa(c.b.MaxParallel)
	}
	if err := c.submit(ctx, array, indices(len(c.chunks))); err != nil {
		return err
	}
	poll, queuePoll := c.b.Poll, c.b.QueuePoll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	if queuePoll <= 0 {
		queuePoll = 2 * time.Second
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	lastQueue, queueOK := time.Now(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return c.cancel(ctx.Err())
		case <-tick.C:
		}
		if err := c.ingest(); err != nil {
			return c.cancel(err)
		}
		if c.done() {
			return nil
		}
		if time.Since(lastQueue) < queuePoll {
			continue
		}
		lastQueue = time.Now()
		err := c.checkQueue(ctx)
		var qe *queueError
		switch {
		case errors.As(err, &qe) && time.Since(queueOK) < queueOutage:
			c.b.log("slurm: %v (asking again)", qe.err) // a busy or restarting controller
		case err != nil:
			return c.cancel(err)
		default:
			queueOK = time.Now()
		}
	}
}

// queueOutage is how long squeue may fail before the run gives up (and cancels its array).
const queueOutage = 5 * time.Minute

// queueError is a failure to read the queue, which the controller tolerates for a while.
type queueError struct{ err error }

func (e *queueError) Error() string { return e.err.Error() }

func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (c *controller) done() bool {
	for _, s := range c.chunks {
		if !s.complete() {
			return false
		}
	}
	return true
}

// submit submits the tasks array (sbatch's --array value) covering chunks idx.
func (c *controller) submit(ctx context.Context, array string, idx []int) error {
	id, err := sbatch(ctx, c.b.sbatchArgs(c.name, c.dir, array, c.wl), filepath.Join(c.dir, scriptFile))
	if err != nil {
		return err
	}
	c.jobs = append(c.jobs, id)
	if err := writeFileSync(filepath.Join(c.dir, jobsFile), []byte(strings.Join(c.jobs, " ")+"\n"), 0o600); err != nil {
		return err
	}
	for _, i := range idx {
		c.chunks[i].task = id + "_" + strconv.Itoa(i)
		c.chunks[i].attempts++
	}
	c.b.log("slurm: submitted job %s (array %s, %d stars a task)", id, array, c.b.chunk())
	return nil
}

// ingest delivers the results the tasks appended since the last call, each star once whichever submission's
// file holds it; a hidden set's result files are removed as soon as their chunk is complete.
func (c *controller) ingest() error {
	files, err := resultFiles(c.dir)
	if err != nil {
		return err
	}
	for i, s := range c.chunks {
		if s.complete() {
			continue
		}
		for _, path := range files[i] {
			t := s.tails[path]
			if t == nil {
				t = &tailReader{path: path}
				s.tails[path] = t
			}
			rs, err := t.next()
			if err != nil {
				return err
			}
			for _, r := range rs {
				if idx, ok := c.chunkOf[r.StarID]; !ok || idx != i || c.delivered[r.StarID] {
					continue
				}
				c.results <- r
				c.delivered[r.StarID] = true
				s.got++
			}
		}
		if s.complete() && c.hidden {
			for _, path := range files[i] {
				os.Remove(path)
			}
		}
	}
	return nil
}

// checkQueue looks for incomplete chunks whose task left the queue: read once more, a chunk still incomplete
// failed (its node lost, the task cancelled or out of time) and is submitted again, up to Retries times.
// A task that reported an error of its own (its error file) stops the run: running it again would fail again.
func (c *controller) checkQueue(ctx context.Context) error {
	q, err := queued(ctx, c.name)
	if err != nil {
		return &queueError{err}
	}
	var lost []int
	for i, s := range c.chunks {
		if s.complete() {
			continue
		}
		if _, ok := q[s.task]; ok {
			continue
		}
		lost = append(lost, i)
	}
	if len(lost) == 0 {
		return nil
	}
	if err := c.ingest(); err != nil {
		return err
	}
	for _, i := range lost {
		s := c.chunks[i]
		if s.complete() {
			continue
		}
		state := finalState(ctx, s.task)
		if b, err := os.ReadFile(errorPath(c.dir, i)); err == nil {
			msg := strings.TrimSpace(string(b))
			if rest, ok := strings.CutPrefix(msg, degradedPrefix); ok {
				return fmt.Errorf("%w on a node (task %s): %s", sandbox.ErrDegraded, s.task, rest)
			}
			return fmt.Errorf("slurm: task %s (%s) could not run its stars: %s", s.task, state, msg)
		}
		if s.attempts > c.b.retries() {
			return fmt.Errorf("slurm: task %s ended %s with %d of %d stars after %d submissions; its log is in %s",
				s.task, state, s.got, s.stars, s.attempts, filepath.Join(c.dir, "logs"))
		}
		c.b.log("slurm: task %s ended %s with %d of %d stars: submitting it again", s.task, state, s.got, s.stars)
		if err := c.submit(ctx, strconv.Itoa(i), []int{i}); err != nil {
			return err
		}
	}
	return nil
}

// cancel cancels every submission of the run, waits (at most a minute) for the tasks to leave the queue,
// delivers the stars that finished meanwhile and returns cause.
func (c *controller) cancel(cause error) error {
	ctx := context.Background()
	if err := scancel(ctx, c.jobs...); err != nil {
		c.b.log("%v", err)
	} else {
		c.b.log("slurm: cancelled job %s", strings.Join(c.jobs, ", "))
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if q, err := queued(ctx, c.name); err != nil || len(q) == 0 {
			break
		}
	}
	if err := c.ingest(); err != nil {
		c.b.log("%v", err)
	}
	return cause
}
