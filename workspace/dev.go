package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/sandbox"
	"transitbench/workspace/internal/pool"
)

// InitOptions tune Init.
type InitOptions struct {
	Home   string // data directory; "" means data.Home()
	Preset string // "survey" (default) or "mini"
	Lang   string // "go" (default) or "python": the starter's language
	// Starter is "" for the language's BLS starter, or StarterExpert for the expert pipeline (WriteExpertStarter).
	Starter string
	// Binary is the transitbench program the expert starter runs (default: this program, os.Executable()).
	Binary string
	// Task is the mini task whose labelled stars fill data/dev (preset mini; default mini-dev-00000000).
	Task string
	// SetProgress reports the progress of building the dev set (or the mini task's pool) the first time.
	SetProgress func(sets.Progress)
	// StarProgress reports the stars written into data/dev.
	StarProgress func(done, total int)
	// Compositions, when set, gives the dev set another composition than SPEC A2's (small sets for tests).
	Compositions map[string]sets.Composition
	// Set, when not "", names a public set already in the data directory (such as one 'data import' built from
	// labelled real stars) whose stars fill data/dev instead of the dev set's (preset survey).
	Set string
}

// Init creates a workspace in dir (SPEC A8): TASK.md, data/dev/ with the labelled stars and their answers,
// the starter in solution/, and the state directory. dir must not exist or be empty. Hidden sets never enter it.
func Init(dir string, opt InitOptions) (*Workspace, error) {
	if opt.Preset == "" {
		opt.Preset = "survey"
	}
	if opt.Lang == "" {
		opt.Lang = "go"
	}
	preset, ok := Presets[opt.Preset]
	if !ok {
		return nil, fmt.Errorf("workspace: unknown preset %q: use survey or mini", opt.Preset)
	}
	if opt.Lang != "go" && opt.Lang != "python" {
		return nil, fmt.Errorf("workspace: unknown language %q: use go or python", opt.Lang)
	}
	if opt.Starter != "" && opt.Starter != StarterExpert {
		return nil, fmt.Errorf("workspace: unknown starter %q: use %s (or none for the language's starter)", opt.Starter, StarterExpert)
	}
	if opt.Preset == "mini" && opt.Task == "" {
		opt.Task = "mini-dev-00000000"
	}
	if opt.Preset != "mini" && opt.Task != "" {
		return nil, fmt.Errorf("workspace: a task goes with --preset mini")
	}
	if opt.Set != "" && (opt.Task != "" || sets.IsHidden(opt.Set) || opt.Set == sets.Train) {
		return nil, fmt.Errorf("workspace: set %q cannot fill a workspace: give an imported public set, without --task", opt.Set)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(root); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%w: %s: choose a new directory", ErrExists, root)
	}
	home, err := (&RunOptions{Home: opt.Home}).home()
	if err != nil {
		return nil, err
	}
	set, ids, err := devStars(home, opt)
	if err != nil {
		return nil, err
	}
	cfg := Config{ID: newWorkspaceID(), Preset: preset.Name, Lang: opt.Lang, Created: time.Now().UTC().Truncate(time.Second),
		DevSet: set.Name, Task: opt.Task, Fingerprint: set.Fingerprint}
	if opt.Task != "" {
		cfg.DevStars = ids
	} else if c, ok := opt.Compositions[sets.Dev]; ok {
		cfg.DevComposition = &c
	}
	// Write into a temporary sibling and rename, so an interrupted init leaves no half-made workspace.
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), ".init-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := writeWorkspace(tmp, set, ids, cfg, preset, opt); err != nil {
		return nil, err
	}
	_ = os.Remove(root) // an empty directory the user made beforehand
	if err := os.Rename(tmp, root); err != nil {
		return nil, err
	}
	return &Workspace{Root: root, Config: cfg}, nil
}

// devStars opens the labelled stars of a new workspace: the dev set, or a mini task's labelled stars.
func devStars(home string, opt InitOptions) (*sets.Set, []string, error) {
	if opt.Task != "" {
		m, err := sets.OpenMiniLabelled(home, opt.Task, sets.Options{Progress: opt.SetProgress})
		if err != nil {
			return nil, nil, err
		}
		return m.Set, m.Labelled, nil
	}
	if opt.Set != "" {
		set, err := sets.Open(home, opt.Set, sets.Options{})
		if err != nil {
			return nil, nil, err
		}
		if set.Hidden() {
			return nil, nil, fmt.Errorf("workspace: set %s is hidden: hidden sets never enter a workspace", opt.Set)
		}
		return set, set.IDs, nil
	}
	ro := RunOptions{SetProgress: opt.SetProgress, Compositions: opt.Compositions}
	set, err := sets.Open(home, sets.Dev, ro.setOptions(sets.Dev))
	if err != nil {
		return nil, nil, err
	}
	return set, set.IDs, nil
}

func writeWorkspace(root string, set *sets.Set, ids []string, cfg Config, preset Preset, opt InitOptions) error {
	dev := filepath.Join(root, "data", "dev")
	if err := writeStarDirs(set, ids, dev, opt.StarProgress); err != nil {
		return err
	}
	answers := make([]any, 0, len(ids))
	for _, id := range ids {
		answers = append(answers, set.Answers[id])
	}
	if err := writeJSON(filepath.Join(dev, "answers.json"), answers); err != nil {
		return err
	}
	if opt.Starter == StarterExpert {
		if err := WriteExpertStarter(filepath.Join(root, "solution"), opt.Binary); err != nil {
			return err
		}
	} else if err := writeStarter(filepath.Join(root, "solution"), opt.Lang); err != nil {
		return err
	}
	task, err := renderTask(preset, opt.Lang, len(ids), sandbox.DefaultWallTime, int(sandbox.DefaultMemoryBytes>>30))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "TASK.md"), task, 0o644); err != nil {
		return err
	}
	return writeJSON(filepath.Join(root, StateDir, "workspace.json"), cfg)
}

// writeStarDirs writes the directories of stars ids of set into dir, one star per processor at a time: a
// simulated star is made again from its set's recipe and checked against its digest, which is most of the
// work of writing it. progress, if not nil, is called after each star written, from one goroutine at a time.
// A failed star stops the stars not yet started; the error of the first failed star in ids is returned.
func writeStarDirs(set *sets.Set, ids []string, dir string, progress func(done, total int)) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make([]error, len(ids))
	written := 0
	pool.Each(ctx, len(ids), runtime.NumCPU(), func(i int) {
		if errs[i] = set.WriteStarDir(ids[i], filepath.Join(dir, ids[i])); errs[i] != nil {
			cancel()
		}
	}, func(i, _ int) {
		if errs[i] == nil && progress != nil {
			written++
			progress(written, len(ids))
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// devIDs returns the stars a dev run covers: the workspace's labelled stars.
func (w *Workspace) devIDs(set *sets.Set) []string {
	if len(w.Config.DevStars) > 0 {
		return w.Config.DevStars
	}
	return set.IDs
}

// openDevSet opens the set the workspace's labelled stars come from.
func (w *Workspace) openDevSet(home string, opt RunOptions) (*sets.Set, error) {
	name := w.Config.DevSet
	if name == "" {
		name = sets.Dev
	}
	so := opt.setOptions(name)
	if w.Config.DevComposition != nil {
		so.Composition = w.Config.DevComposition
	}
	set, err := sets.Open(home, name, so)
	if err != nil {
		return nil, err
	}
	if w.Config.Fingerprint != "" && set.Fingerprint != w.Config.Fingerprint {
		return nil, fmt.Errorf("workspace: the %s set in %s (fingerprint %.12s) is not the one this workspace was made from (%.12s): "+
			"make a new workspace with 'transitbench init'", name, home, set.Fingerprint, w.Config.Fingerprint)
	}
	return set, nil
}

// solution returns the content hash of the workspace's solution and the solution as the sandbox runs it; the
// caller closes it.
func (w *Workspace) solution() (string, *sandbox.Solution, error) {
	hash, _, err := HashTree(w.SolutionDir())
	if err != nil {
		return "", nil, err
	}
	sol, err := sandbox.Detect(w.SolutionDir())
	if err != nil {
		return "", nil, err
	}
	return hash, sol, nil
}

// Dev runs the current solution on the workspace's labelled stars exactly as grading would (SPEC A8,
// TransitBench's run_dev), streaming an Event per star, and records the run. An interrupted dev run of the same
// solution (same content hash) over the same stars is resumed unless opt.Fresh is set.
func (w *Workspace) Dev(ctx context.Context, opt RunOptions, events chan<- Event) (*Report, error) {
	home, hash, sol, err := w.begin(opt)
	if err != nil {
		return nil, err
	}
	defer sol.Close()
	set, err := w.openDevSet(home, opt)
	if err != nil {
		return nil, err
	}
	ids, err := selectStars(w.devIDs(set), opt)
	if err != nil {
		return nil, err
	}
	return runStored(ctx, set, sol, ids, func(st *store.Store) runSpec {
		spec := runSpec{kind: KindDev, label: w.Root, hash: hash, workspace: w.Root}
		if !opt.Fresh {
			spec.find = func(ctx context.Context) (int64, error) {
				return interruptedRun(ctx, st, KindDev, set.Name, w.Root, hash, len(ids))
			}
		}
		return spec
	}, opt, events)
}

// interruptedRun finds the latest run of kind on set by this workspace and solution that did not finish, over
// the same number of stars, to resume; 0 when there is none.
func interruptedRun(ctx context.Context, st *store.Store, kind, set, label, hash string, stars int) (int64, error) {
	runs, err := st.Runs(ctx, store.RunFilter{Kind: kind, Set: set, Label: label, SolutionHash: hash, Limit: 1})
	if err != nil {
		return 0, err
	}
	if len(runs) == 1 && runs[0].Status != store.StatusDone && runs[0].Stars == stars {
		return runs[0].ID, nil
	}
	return 0, nil
}

// GradeReport is the result of grading a frozen solution (SPEC A8): S on A is the score, B replicates it.
// Grading is the grading's ordinal among the workspace's gradings (1 for its first, counting every grading of
// any solution, re-gradings included); Resumed is set when the grading continued an interrupted one.
type GradeReport struct {
	Frozen string `json:"frozen"`
	// FrozenFile is the SHA-256 of the frozen tar graded (grade --frozen); "" when solution/ was frozen.
	FrozenFile string  `json:"frozen_file,omitempty"`
	Again      bool    `json:"again"`
	Grading    int     `json:"grading"`
	Resumed    bool    `json:"resumed"`
	A          *Report `json:"A"`
	B          *Report `json:"B"`
	Dev        *Report `json:"dev"`
}

// ErrAlreadyGraded is returned by Grade for a frozen solution graded before, unless RunOptions.Again is set.
var ErrAlreadyGraded = errors.New("workspace: this frozen solution was graded already")

// FrozenDir is where a frozen solution's copy lives in the data directory.
func FrozenDir(home, hash string) string { return filepath.Join(home, "frozen", hash) }

// Freeze hashes solution/ and stores its frozen copy and snapshot record; it returns the hash and the
// snapshot as stored (with the gradings done so far).
func (w *Workspace) Freeze(ctx context.Context, home string, st *store.Store) (string, store.Snapshot, error) {
	return freezeFrom(ctx, home, st, w.SolutionDir())
}

// freezeFrom is Freeze of the solution tree at src.
func freezeFrom(ctx context.Context, home string, st *store.Store, src string) (string, store.Snapshot, error) {
	hash, entries, err := HashTree(src)
	if err != nil {
		return "", store.Snapshot{}, err
	}
	if err := checkFrozenSize(src, entries); err != nil {
		return "", store.Snapshot{}, err
	}
	dst := FrozenDir(home, hash)
	if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return "", store.Snapshot{}, err
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dst), ".freeze-*")
		if err != nil {
			return "", store.Snapshot{}, err
		}
		if err := CopyTree(src, tmp, entries); err != nil {
			os.RemoveAll(tmp)
			return "", store.Snapshot{}, err
		}
		if h2, _, err := HashTree(tmp); err != nil || h2 != hash {
			os.RemoveAll(tmp)
			return "", store.Snapshot{}, fmt.Errorf("workspace: solution/ changed while it was being frozen: try again")
		}
		if err := os.Rename(tmp, dst); err != nil {
			os.RemoveAll(tmp)
			return "", store.Snapshot{}, err
		}
	}
	snap, err := st.Snapshot(ctx, hash)
	if err != nil {
		files, _ := json.Marshal(entries)
		if err := st.PutSnapshot(ctx, store.Snapshot{Hash: hash, Files: files}); err != nil {
			return "", store.Snapshot{}, err
		}
		if snap, err = st.Snapshot(ctx, hash); err != nil {
			return "", store.Snapshot{}, err
		}
	}
	return hash, snap, nil
}

// GradeSets are the sets a grading runs, in order: A gives the score, B replicates it, dev is reported beside.
var GradeSets = []string{sets.A, sets.B, sets.Dev}

// gradingLockPath is the lock held by the process grading lineage.
func gradingLockPath(home, lineage string) string {
	h := sha256.Sum256([]byte(lineage))
	return filepath.Join(lockDir(home), "grading-"+hex.EncodeToString(h[:8])+".lock")
}

// unfinishedGrading returns the latest grading of lineage when it is of solution hash and lacks a done run on
// one of GradeSets (it was interrupted, or refused by the sandbox), with its runs; 0 when there is none. hash ""
// matches any solution.
func unfinishedGrading(ctx context.Context, st *store.Store, lineage, hash string) (int, []store.Run, error) {
	last, err := st.Runs(ctx, store.RunFilter{Kind: KindGrade, Lineage: lineage, Limit: 1})
	if err != nil || len(last) == 0 || last[0].Grading == 0 || hash != "" && last[0].SolutionHash != hash {
		return 0, nil, err
	}
	g := last[0].Grading
	runs, err := st.Runs(ctx, store.RunFilter{Kind: KindGrade, Lineage: lineage, Grading: g})
	if err != nil {
		return 0, nil, err
	}
	for _, name := range GradeSets {
		if doneRun(runs, name) == nil {
			return g, runs, nil
		}
	}
	return 0, nil, nil
}

// NextGrading says what Grade would do with solution/ as it is now: the number of the grading (among the
// gradings of the workspace's lineage), and whether it would resume an interrupted grading of the same content.
func (w *Workspace) NextGrading(ctx context.Context, home string) (n int, resume bool, err error) {
	hash, _, err := HashTree(w.SolutionDir())
	if err != nil {
		return 0, false, err
	}
	st, err := OpenStore(home)
	if err != nil {
		return 0, false, err
	}
	defer st.Close()
	if g, _, err := unfinishedGrading(ctx, st, w.Lineage(), hash); err != nil || g > 0 {
		return g, g > 0, err
	}
	n, err = st.NextGrading(ctx, w.Lineage(), w.Root)
	return n, false, err
}

// doneRun returns the done run on set among runs, nil when there is none.
func doneRun(runs []store.Run, set string) *store.Run {
	for i := range runs {
		if runs[i].Set == set && runs[i].Status == store.StatusDone {
			return &runs[i]
		}
	}
	return nil
}

// Grade freezes solution/ (its content hash), then runs the frozen copy once on A, on B and on the dev stars,
// and records S on each (SPEC A8). A frozen hash is graded once: a second grading needs opt.Again and is
// recorded as such. Every grading gets the next ordinal of the workspace's gradings. An interrupted grading of
// the same hash (the workspace's latest) is resumed instead: the sets it finished are not run again, the one
// it was on resumes from its finished stars, and it keeps its ordinal. One process grades a workspace at a
// time: another one gets ErrRunBusy. Limit and Stars are ignored: grading covers every star.
func (w *Workspace) Grade(ctx context.Context, opt RunOptions, events chan<- Event) (*GradeReport, error) {
	return w.grade(ctx, gradeTarget{src: w.SolutionDir(), lineage: w.Lineage()}, opt, events)
}

// gradeTarget is what a grading grades and counts within: the solution tree at src; fileFlag, when set, added
// to the runs' flags; the lineage the grading's ordinal counts in; and, when maxGradings > 0, the most gradings
// the lineage may have (a resumed grading is not a new one).
type gradeTarget struct {
	src, fileFlag, lineage string
	maxGradings            int
}

// ErrGradingCap is returned when a lineage (a contestant's label on the contest grader) has had all the
// gradings it may have.
var ErrGradingCap = errors.New("workspace: no gradings left")

// grade is Grade of the target's solution tree.
func (w *Workspace) grade(ctx context.Context, tg gradeTarget, opt RunOptions, events chan<- Event) (*GradeReport, error) {
	home, st, err := openRunStore(opt)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	hash, snap, err := freezeFrom(ctx, home, st, tg.src)
	if err != nil {
		return nil, err
	}
	release, pid, err := data.TryLockFile(gradingLockPath(home, tg.lineage))
	if errors.Is(err, data.ErrLocked) {
		what := "a grading of this workspace is being run"
		if runs, _ := st.Runs(ctx, store.RunFilter{Kind: KindGrade, Lineage: tg.lineage, Limit: 1}); len(runs) == 1 {
			what = fmt.Sprintf("grading #%d of this workspace (run %d) is being run", runs[0].Grading, runs[0].ID)
		}
		return nil, &busyError{what: what, pid: pid}
	}
	if err != nil {
		return nil, err
	}
	defer release()
	defer PruneFrozen(context.WithoutCancel(ctx), home, st, hash)
	// Read the gradings again under the lock: another process may have graded this hash meanwhile.
	if snap, err = st.Snapshot(ctx, hash); err != nil {
		return nil, err
	}
	grading, prior, err := unfinishedGrading(ctx, st, tg.lineage, hash)
	if err != nil {
		return nil, err
	}
	var flags []string
	if grading == 0 {
		if snap.GradedOn(sets.A) && !opt.Again {
			return nil, fmt.Errorf("%w (frozen %.12s, first graded %s): grading is once per solution; change the solution, or pass --again to grade it again (recorded as a re-run)",
				ErrAlreadyGraded, hash, snap.Graded[0].At.Format(time.RFC3339))
		}
		if grading, err = st.NextGrading(ctx, tg.lineage, w.Root); err != nil {
			return nil, err
		}
		if tg.maxGradings > 0 && grading > tg.maxGradings {
			return nil, fmt.Errorf("%w: %s has had %d gradings, the most it may have", ErrGradingCap,
				strings.TrimPrefix(tg.lineage, LineageContestant), grading-1)
		}
		if opt.Again || len(snap.Graded) > 0 {
			flags = []string{store.FlagAgain}
		}
	} else if slices.ContainsFunc(prior, func(r store.Run) bool { return r.HasFlag(store.FlagAgain) }) {
		flags = []string{store.FlagAgain}
	}
	if tg.fileFlag != "" {
		flags = append(flags, tg.fileFlag)
	}
	sol, err := sandbox.Detect(FrozenDir(home, hash))
	if err != nil {
		return nil, err
	}
	defer sol.Close()
	rep := &GradeReport{Frozen: hash, Again: slices.Contains(flags, store.FlagAgain), Grading: grading, Resumed: len(prior) > 0}
	opt.Limit, opt.Stars = 0, nil
	for _, name := range GradeSets {
		r, err := w.gradeSet(ctx, st, home, name, sol, hash, tg.lineage, grading, flags, prior, opt, events)
		switch name {
		case sets.A:
			rep.A = r
		case sets.B:
			rep.B = r
		default:
			rep.Dev = r
		}
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// gradeSet runs one set of a grading: it reports the set's done run when the grading has one (a resumed
// grading), else resumes the grading's unfinished run on the set or starts one, and records the snapshot as
// graded on the set when the run is done.
func (w *Workspace) gradeSet(ctx context.Context, st *store.Store, home, name string, sol *sandbox.Solution, hash, lineage string,
	grading int, flags []string, prior []store.Run, opt RunOptions, events chan<- Event) (*Report, error) {
	if done := doneRun(prior, name); done != nil {
		var r Report
		if err := json.Unmarshal(done.Summary, &r); err != nil {
			return nil, fmt.Errorf("workspace: the report of run %d is unreadable (%v): grade with --again", done.ID, err)
		}
		return &r, nil
	}
	var set *sets.Set
	var ids []string
	var err error
	if name == sets.Dev {
		set, err = w.openDevSet(home, opt)
		if err == nil {
			ids = w.devIDs(set)
		}
	} else {
		set, err = sets.Open(home, name, opt.setOptions(name))
		if err == nil {
			ids = set.IDs
		}
	}
	if err != nil {
		return nil, err
	}
	spec := runSpec{kind: KindGrade, label: w.Root, workspace: w.Root, hash: hash, flags: flags, grading: grading, lineage: lineage,
		find: func(ctx context.Context) (int64, error) {
			runs, err := st.Runs(ctx, store.RunFilter{Kind: KindGrade, Lineage: lineage, Grading: grading, Set: name, Limit: 1})
			if err != nil || len(runs) == 0 || runs[0].Status == store.StatusDone || runs[0].SolutionHash != hash {
				return 0, err
			}
			return runs[0].ID, nil
		}}
	r, err := runSet(ctx, st, set, sol, ids, spec, opt, events)
	if err != nil {
		return r, err
	}
	if err := st.MarkGraded(ctx, hash, name, r.RunID); err != nil {
		return r, err
	}
	return r, nil
}

// LastOutcomes returns the per-star results of the workspace's latest run on set (any kind), by star id, and
// that run; an empty map when there is none.
func (w *Workspace) LastOutcomes(ctx context.Context, home, set string) (map[string]grader.StarResult, *store.Run, error) {
	st, err := OpenStore(home)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	runs, err := st.Runs(ctx, store.RunFilter{Set: set, Workspace: w.Root, Limit: 1})
	if err != nil || len(runs) == 0 {
		return map[string]grader.StarResult{}, nil, err
	}
	outs, err := st.Outcomes(ctx, runs[0].ID)
	if err != nil {
		return nil, nil, err
	}
	m := make(map[string]grader.StarResult, len(outs))
	for _, o := range outs {
		if sr, err := StarResultOf(o); err == nil {
			m[o.StarID] = sr
		}
	}
	return m, &runs[0], nil
}

// MiniResult is the outcome of a mini task (SPEC A8): reward = clip((credit − false)/8, −1, 1) over its hidden stars.
type MiniResult struct {
	Task    string  `json:"task"`
	Reward  float64 `json:"reward"`
	Credit  float64 `json:"credit"`
	False   int     `json:"false"`
	RunID   int64   `json:"run_id"`
	Seconds float64 `json:"seconds"`
}

// Mini runs the workspace's solution on the hidden stars of a mini task and returns its reward. The hidden
// stars come from the secret pool sets.MiniPool (built at the first mini run, from the secret seed) and run as
// a hidden set's do: under anonymous ids, in a shuffled order, with full isolation unless opt.AllowDegraded,
// and only aggregates kept.
func (w *Workspace) Mini(ctx context.Context, task string, opt RunOptions, events chan<- Event) (*MiniResult, error) {
	home, hash, sol, err := w.begin(opt)
	if err != nil {
		return nil, err
	}
	defer sol.Close()
	pool, _, err := sets.ParseMiniTask(task)
	if err != nil {
		return nil, err
	}
	so := opt.setOptions(pool)
	if c, ok := opt.Compositions[sets.MiniPool]; ok {
		so.MiniPool = &c
	}
	m, err := sets.OpenMiniTask(home, task, so)
	if err != nil {
		return nil, err
	}
	opt.Limit, opt.Stars = 0, nil
	spec := runSpec{kind: KindMini, label: task, hash: hash, workspace: w.Root}
	r, err := runStored(ctx, m.HiddenSet, sol, m.Hidden, func(*store.Store) runSpec { return spec }, opt, events)
	if err != nil {
		return nil, err
	}
	return &MiniResult{Task: task, Reward: sets.MiniReward(r.Credit, float64(r.False)), Credit: r.Credit, False: r.False,
		RunID: r.RunID, Seconds: r.Seconds}, nil
}
