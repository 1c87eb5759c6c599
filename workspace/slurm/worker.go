package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"transitbench/data/sets"
	"transitbench/sandbox"
	"transitbench/workspace"
)

// Work runs task's chunk of the work list at path (the hidden `transitbench worker` command, run by each
// array task; sub is the submission, the array's job id): every star not already in one of the chunk's result
// files runs in the sandbox exactly as a local run would run it, and its sandbox.Result is appended to this
// submission's file as one line, fsync'd, as soon as it finishes. On a hidden set the star's stderr is dropped
// before the line is written; the file is 0600 in a 0700 directory and the controller removes it once read.
// A resubmitted task carries on where the chunk's files end.
// When the task cannot run (the work list or the set unreadable, the sandbox refusing a hidden set), the
// reason is also written to the task's error file, so the controller stops instead of resubmitting.
func Work(ctx context.Context, path string, task int, sub string) error {
	if sub == "" || strings.ContainsAny(sub, "/\x00") {
		return fmt.Errorf("slurm: submission %q: give the array's job id ($SLURM_ARRAY_JOB_ID)", sub)
	}
	err := work(ctx, path, task, sub)
	if err != nil && ctx.Err() == nil {
		msg := err.Error()
		if errors.Is(err, sandbox.ErrDegraded) {
			msg = degradedPrefix + msg
		}
		_ = writeFileSync(errorPath(filepath.Dir(path), task), []byte(msg), 0o600)
	}
	return err
}

// degradedPrefix starts a task's error file when the sandbox refused to run a hidden set degraded, so that the
// controller reports sandbox.ErrDegraded (a refusal) rather than a failure.
const degradedPrefix = "degraded: "

func work(ctx context.Context, path string, task int, sub string) error {
	wl, err := readWorkList(path)
	if err != nil {
		return err
	}
	if task < 0 || task >= len(wl.Chunks) {
		return fmt.Errorf("slurm: task %d: the work list has tasks 0 to %d", task, len(wl.Chunks)-1)
	}
	set, err := sets.Open(wl.Home, wl.Set, sets.Options{Composition: &wl.Composition})
	if err != nil {
		return err
	}
	if set.Fingerprint != wl.Fingerprint {
		return fmt.Errorf("slurm: set %s on this node (fingerprint %.12s) is not the controller's (%.12s)", wl.Set, set.Fingerprint, wl.Fingerprint)
	}
	sol, err := sandbox.Detect(wl.Solution)
	if err != nil {
		return err
	}
	defer sol.Close()
	out := resultPath(filepath.Dir(path), task, sub)
	files, err := resultFiles(filepath.Dir(path))
	if err != nil {
		return err
	}
	done, err := finishedStars(out, files[task])
	if err != nil {
		return err
	}
	job := workspace.BackendJob{Set: set, Solution: sol, SolutionHash: wl.SolutionHash, Aliases: wl.Aliases,
		Runner: sandbox.Runner{Workers: wl.Workers, Limits: wl.Limits, AllowDegraded: wl.AllowDegraded, Hidden: wl.Hidden, Home: wl.Home}}
	for _, id := range wl.Chunks[task] {
		if !done[id] {
			job.Stars = append(job.Stars, id)
		}
	}
	if len(job.Stars) == 0 {
		return nil
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	results := make(chan sandbox.Result)
	errc := make(chan error, 1)
	// Slurm's task/cgroup (proctrack/cgroup) removes the task's cgroups when it ends, which the sandbox's
	// directory of run cgroups inside them would prevent.
	defer sandbox.RemoveCgroupBase()
	go func() { errc <- workspace.Local{}.Run(ctx, job, results) }()
	var writeErr error
	for {
		select {
		case res := <-results:
			if res.ExitReason == sandbox.ExitCancelled || writeErr != nil {
				continue
			}
			if wl.Hidden {
				res.StderrTail = ""
			}
			writeErr = appendResult(f, res)
		case err := <-errc:
			return errors.Join(err, writeErr)
		}
	}
}

// appendResult writes res as one line with a single write, then fsyncs the file.
func appendResult(f *os.File, res sandbox.Result) error {
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// finishedStars returns the stars in the result files of the task's chunk, others and own (the file this
// submission appends to), and cuts off a last line of own left without its newline by a task of the same
// submission killed while writing it. A torn last line of another file is left alone (its task may still be
// writing it) and its star runs again.
func finishedStars(own string, others []string) (map[string]bool, error) {
	done := map[string]bool{}
	paths := []string{own}
	for _, p := range others {
		if p != own {
			paths = append(paths, p)
		}
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		end := bytes.LastIndexByte(b, '\n') + 1
		if end < len(b) && path == own {
			if err := os.Truncate(path, int64(end)); err != nil {
				return nil, err
			}
		}
		for line := range bytes.SplitSeq(b[:end], []byte("\n")) {
			var res struct{ StarID string }
			if len(line) > 0 && json.Unmarshal(line, &res) == nil {
				done[res.StarID] = true
			}
		}
	}
	return done, nil
}
