package baselines

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/pipeline"
	"transitbench/grader"
	"transitbench/sandbox"
	"transitbench/workspace"
)

// Names of the ladder's rows (SPEC A7), in ladder order.
const (
	RowEmpty     = "empty"
	RowStarter   = "starter"
	RowNaive     = pipeline.NameNaive
	RowLearned   = pipeline.NameLearnedVetter
	RowExpert    = pipeline.NameExpert
	RowReference = "reference_detector"
)

// Rows lists every row of the ladder in order: SPEC A7's five, then the expert pipeline (beyond the ladder,
// honest: it reads only its star, like any contestant's solution).
var Rows = []string{RowEmpty, RowStarter, RowNaive, RowLearned, RowReference, RowExpert}

// DefaultSets are the sets the ladder runs on: the hidden A and B and the dev set.
var DefaultSets = []string{sets.A, sets.B, sets.Dev}

// ReferenceMES is the reference detector's threshold: it claims every planet with MES ≥ 7.1 (SPEC A7).
const ReferenceMES = 7.1

// Options configure Run.
type Options struct {
	workspace.RunOptions
	// Sets are the sets to run (default DefaultSets); Rows the rows (default Rows).
	Sets []string
	Rows []string
	// Binary is the transitbench executable the pipeline rows run (default: this program, os.Executable()).
	Binary string
	// Progress, when set, receives every finished star of every row.
	Progress func(row string, ev workspace.Event)
}

// Cell is one row's result on one set: the grader's summary (S, C, F, eb_share, credit, false, planets,
// scored_stars and the breakdowns by population, MES bin and category) and how the run went.
type Cell struct {
	grader.Summary
	StarsRun  int                `json:"stars_run"`
	Failures  workspace.Failures `json:"failures"`
	Isolation string             `json:"isolation"`
	Seconds   float64            `json:"seconds"`
	RunID     int64              `json:"run_id,omitempty"`
}

// Row is a ladder row: its name and a cell per set. It marshals as {"name": …, "<set>": Cell, …}.
type Row struct {
	Name  string
	Cells map[string]*Cell
}

// MarshalJSON writes {"name": …} and one key per set.
func (r Row) MarshalJSON() ([]byte, error) {
	m := map[string]any{"name": r.Name}
	for k, v := range r.Cells {
		m[k] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Row) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	r.Cells = map[string]*Cell{}
	for k, v := range m {
		if k == "name" {
			if err := json.Unmarshal(v, &r.Name); err != nil {
				return err
			}
			continue
		}
		var c Cell
		if err := json.Unmarshal(v, &c); err != nil {
			return err
		}
		r.Cells[k] = &c
	}
	return nil
}

// Table is the ladder: results/baselines.json.
type Table struct {
	Generator    string            `json:"generator"`
	Fingerprints map[string]string `json:"fingerprints"`
	// Limit is the number of stars run per set when not every star was (0: all).
	Limit int   `json:"limit,omitempty"`
	Rows  []Row `json:"rows"`
}

// Run runs the ladder: every row of opt.Rows on every set of opt.Sets. The empty, starter, naive_v0 and
// learned_vetter rows run as solutions through workspace.RunBaseline (the sandboxed runner, one process per
// star); the reference detector is scored in-process from the answers. A row fails as a whole when its runner
// does; the error names the row and set.
func Run(ctx context.Context, opt Options) (*Table, error) {
	if len(opt.Sets) == 0 {
		opt.Sets = DefaultSets
	}
	if len(opt.Rows) == 0 {
		opt.Rows = Rows
	}
	for _, r := range opt.Rows {
		if !slices.Contains(Rows, r) {
			return nil, fmt.Errorf("baselines: unknown row %q: use %s", r, strings.Join(Rows, ", "))
		}
	}
	t := &Table{Fingerprints: map[string]string{}, Limit: opt.Limit}
	opened := map[string]*sets.Set{}
	for _, name := range opt.Sets {
		s, err := workspace.OpenSet(name, opt.RunOptions)
		if err != nil {
			return nil, err
		}
		opened[name] = s
		t.Fingerprints[name] = s.Fingerprint
		t.Generator = s.Generator
	}
	root, err := os.MkdirTemp("", "transitbench-ladder-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	if err := os.Chmod(root, 0o755); err != nil {
		return nil, err
	}
	for _, row := range opt.Rows {
		r := Row{Name: row, Cells: map[string]*Cell{}}
		var sol *sandbox.Solution
		if row != RowReference {
			dir := filepath.Join(root, row)
			if err := writeSolution(dir, row, opt.Binary); err != nil {
				return nil, err
			}
			if sol, err = sandbox.Detect(dir); err != nil {
				return nil, err
			}
		}
		for _, name := range opt.Sets {
			set := opened[name]
			ids, err := workspace.SelectStars(set.IDs, opt.RunOptions)
			if err != nil {
				return nil, err
			}
			var c *Cell
			if sol == nil {
				c, err = reference(set, ids)
			} else {
				c, err = runRow(ctx, set, sol, ids, row, opt)
			}
			if err != nil {
				if sol != nil {
					sol.Close()
				}
				return nil, fmt.Errorf("baselines: %s on %s: %w", row, name, err)
			}
			r.Cells[name] = c
		}
		if sol != nil {
			sol.Close()
		}
		t.Rows = append(t.Rows, r)
	}
	return t, nil
}

// runRow runs a solution row over ids of set through the workspace runner.
func runRow(ctx context.Context, set *sets.Set, sol *sandbox.Solution, ids []string, row string, opt Options) (*Cell, error) {
	var events chan workspace.Event
	done := make(chan struct{})
	if opt.Progress != nil {
		events = make(chan workspace.Event)
		go func() {
			defer close(done)
			for ev := range events {
				opt.Progress(row, ev)
			}
		}()
	} else {
		close(done)
	}
	rep, err := workspace.RunBaseline(ctx, set, sol, ids, row, opt.RunOptions, events)
	if events != nil {
		close(events)
	}
	<-done
	if err != nil {
		return nil, err
	}
	return &Cell{Summary: rep.Summary, StarsRun: rep.StarsRun, Failures: rep.Failures, Isolation: rep.Isolation,
		Seconds: rep.Seconds, RunID: rep.RunID}, nil
}

// ReferenceRows are the reference detector's rows for a star: every planet of the answer (injected, a
// confirmed host's or a labelled star's) with MES ≥ ReferenceMES at its true period and mid-time, scored by its MES.
func ReferenceRows(ans data.Answer) []grader.Row {
	var ps []data.Planet
	if ans.Planet != nil {
		ps = append(ps, *ans.Planet)
	}
	ps = append(ps, ans.Confirmed...)
	ps = append(ps, ans.Labelled...)
	var rows []grader.Row
	for _, p := range ps {
		if p.MES >= ReferenceMES {
			rows = append(rows, grader.Row{PeriodDays: p.PeriodDays, T0Days: p.T0Days, Score: p.MES})
		}
	}
	return rows
}

// reference scores the reference detector on ids of set in-process.
func reference(set *sets.Set, ids []string) (*Cell, error) {
	start := time.Now()
	res := make([]grader.StarResult, 0, len(ids))
	for _, id := range ids {
		valid, err := set.ValidTimes(id)
		if err != nil {
			return nil, err
		}
		res = append(res, grader.MatchStar(set.Answers[id], valid, ReferenceRows(set.Answers[id])))
	}
	return &Cell{Summary: grader.Summarize(res), StarsRun: len(ids), Isolation: "in-process",
		Seconds: time.Since(start).Seconds()}, nil
}

// writeSolution makes the solution directory of a runner row: the empty row's script, the workspace's Go
// starter, or a `run` script that execs the transitbench binary's hidden `pipeline NAME STAR_DIR` command.
func writeSolution(dir, row, binary string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	switch row {
	case RowEmpty:
		return os.WriteFile(filepath.Join(dir, "run"), []byte("#!/bin/sh\necho period_days,t0_days,score\n"), 0o755)
	case RowStarter:
		return workspace.WriteStarter(dir, "go")
	}
	bin, err := resolveBinary(binary)
	if err != nil {
		return err
	}
	target := bin
	if !reachable(bin) {
		// The sandbox user cannot reach the binary where it is: ship a copy inside the solution.
		if err := workspace.CopyFile(bin, filepath.Join(dir, "transitbench"), 0o755); err != nil {
			return err
		}
		target = `"$(dirname "$0")/transitbench"`
	} else {
		target = shellQuote(bin)
	}
	script := fmt.Sprintf("#!/bin/sh\nexec %s pipeline %s \"$1\"\n", target, row)
	return os.WriteFile(filepath.Join(dir, "run"), []byte(script), 0o755)
}

// resolveBinary returns the absolute, symlink-free path of the program to run (os.Executable by default).
func resolveBinary(binary string) (string, error) {
	if binary == "" {
		var err error
		if binary, err = os.Executable(); err != nil {
			return "", fmt.Errorf("baselines: cannot find this program's executable (%w): pass Options.Binary", err)
		}
	}
	abs, err := filepath.Abs(binary)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// hiddenRoots are directories the sandbox covers with a fresh tmpfs (SPEC A6: a private /tmp; /run holds the
// star and solution mounts).
var hiddenRoots = []string{"/tmp", "/run", "/dev/shm"}

// reachable reports whether a sandboxed star, which may run as an unprivileged user in an allow-list root with
// the data directory masked and fresh /tmp and /run, can execute path: the path inside the host trees the
// sandbox shows (sandbox.HostPathVisible), every directory on the way searchable by others, the file executable
// by others, and the path outside the data directory, the temporary directory, /tmp and /run.
func reachable(path string) bool {
	if !sandbox.HostPathVisible(path) {
		return false
	}
	hidden := slices.Clone(hiddenRoots)
	hidden = append(hidden, os.TempDir())
	if home, err := data.Home(); err == nil {
		hidden = append(hidden, home)
	}
	for _, h := range hidden {
		if r, err := filepath.EvalSymlinks(h); err == nil {
			h = r
		}
		if path == h || strings.HasPrefix(path, h+string(filepath.Separator)) {
			return false
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o005 != 0o005 {
		return false
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		di, err := os.Stat(d)
		if err != nil || di.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Merge returns the table of new with the rows and cells of old that new did not run added back, in ladder
// order, so that rows, and a row's sets, can be run separately into one table: a row both hold keeps new's cells
// and gains old's cells for the sets new did not run it on. Its fingerprints are those of both (a row's cells say
// which sets it ran on). It refuses (returns an error) when the two were made by different generators, when a set
// both ran on has different fingerprints (it was rebuilt), or when they ran different numbers of stars (Limit).
func Merge(old, new *Table) (*Table, error) {
	if old.Generator != new.Generator || old.Limit != new.Limit {
		return nil, fmt.Errorf("baselines: cannot merge a table of generator %s (limit %d) into one of %s (limit %d): run every row again",
			new.Generator, new.Limit, old.Generator, old.Limit)
	}
	out := &Table{Generator: new.Generator, Fingerprints: map[string]string{}, Limit: new.Limit}
	for s, fp := range old.Fingerprints {
		if nfp, ok := new.Fingerprints[s]; ok && nfp != fp {
			return nil, fmt.Errorf("baselines: set %s was rebuilt between the tables (fingerprint %.12s, now %.12s): run every row again", s, fp, nfp)
		}
		out.Fingerprints[s] = fp
	}
	for s, fp := range new.Fingerprints {
		out.Fingerprints[s] = fp
	}
	byName := map[string]Row{}
	for _, r := range old.Rows {
		byName[r.Name] = r
	}
	for _, r := range new.Rows {
		o, ok := byName[r.Name]
		if !ok || len(o.Cells) == 0 {
			byName[r.Name] = r
			continue
		}
		cells := map[string]*Cell{}
		for s, c := range o.Cells {
			cells[s] = c
		}
		for s, c := range r.Cells {
			cells[s] = c
		}
		byName[r.Name] = Row{Name: r.Name, Cells: cells}
	}
	for _, name := range Rows {
		if r, ok := byName[name]; ok {
			out.Rows = append(out.Rows, r)
		}
	}
	return out, nil
}
