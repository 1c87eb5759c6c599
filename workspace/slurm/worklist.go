package slurm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"transitbench/data/sets"
	"transitbench/sandbox"
)

// WorkList is what the controller writes for the tasks of one run (work.json in the run's directory): every
// task reads its chunk of stars from it and runs them as the run's sandbox runner would.
type WorkList struct {
	Version     int    `json:"version"`
	Home        string `json:"home"` // the data directory, on a filesystem the nodes share
	Set         string `json:"set"`
	Fingerprint string `json:"fingerprint"`
	// Composition is the set's, so that a node opens the set as built (small sets in tests).
	Composition sets.Composition `json:"composition"`
	Hidden      bool             `json:"hidden"`
	// Solution is the solution's copy on the shared filesystem, SolutionHash its content hash.
	Solution      string         `json:"solution"`
	SolutionHash  string         `json:"solution_hash"`
	Workers       int            `json:"workers"` // stars a task runs at once
	Limits        sandbox.Limits `json:"limits"`
	AllowDegraded bool           `json:"allow_degraded"`
	Chunks        [][]string     `json:"chunks"` // the stars of each array task, by task index
	// Aliases are the ids the stars' star.json copies carry on a hidden set (workspace.BackendJob.Aliases).
	Aliases map[string]string `json:"aliases,omitempty"`
}

// workListVersion is the version of the work list this program writes and reads.
const workListVersion = 1

// Files of a run's directory.
const (
	workFile   = "work.json"
	scriptFile = "task.sh"
	jobsFile   = "jobs"
)

// workPath and the others name the files of the run directory dir.
func workPath(dir string) string { return filepath.Join(dir, workFile) }

// resultPath is the JSON-lines file that task i of submission sub (the array's job id) appends each finished
// star's sandbox.Result to. Each submission of a chunk writes a file of its own, so a task that Slurm gave up
// on but that still runs (its node cut off, not dead) never writes into the file of the task that replaced it.
func resultPath(dir string, i int, sub string) string {
	return filepath.Join(dir, "results", fmt.Sprintf("task-%d-%s.jsonl", i, sub))
}

// resultFiles returns the result files in the run directory dir by task index, each task's in name order.
func resultFiles(dir string) (map[int][]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "results"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	files := map[int][]string{}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "task-")
		if !ok || !strings.HasSuffix(rest, ".jsonl") {
			continue
		}
		idx, _, ok := strings.Cut(rest, "-")
		i, err := strconv.Atoi(idx)
		if !ok || err != nil || i < 0 {
			continue
		}
		files[i] = append(files[i], filepath.Join(dir, "results", e.Name()))
	}
	return files, nil
}

// errorPath is where task i writes why it could not run its chunk (not a star's failure: the task's own).
func errorPath(dir string, i int) string {
	return filepath.Join(dir, "results", fmt.Sprintf("task-%d.err", i))
}

// writeFileSync writes b to path (mode perm) through a temporary file, fsync'd and renamed into place.
func writeFileSync(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readWorkList reads the work list at path.
func readWorkList(path string) (*WorkList, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("slurm: reading the work list: %w (is the data directory on a filesystem this node shares?)", err)
	}
	var wl WorkList
	if err := json.Unmarshal(b, &wl); err != nil {
		return nil, fmt.Errorf("slurm: the work list %s is unreadable: %w", path, err)
	}
	if wl.Version != workListVersion {
		return nil, fmt.Errorf("slurm: the work list %s has version %d, this program reads %d: run the same transitbench on the nodes as on the controller",
			path, wl.Version, workListVersion)
	}
	return &wl, nil
}

// tailReader reads the complete lines appended to a task's result file since the last call. A line without
// its newline (a task killed while writing it) is left for later, or for the resubmitted task to cut off.
type tailReader struct {
	path   string
	offset int64
}

// next returns the results of the complete lines added since the last call.
func (t *tailReader) next() ([]sandbox.Result, error) {
	f, err := os.Open(t.path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(t.offset, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return nil, nil
	}
	var out []sandbox.Result
	sc := bufio.NewScanner(bytes.NewReader(b[:end+1]))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var res sandbox.Result
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			return nil, fmt.Errorf("slurm: a result line of %s is unreadable: %w", t.path, err)
		}
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	t.offset += int64(end + 1)
	return out, nil
}
