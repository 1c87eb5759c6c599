package sets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"transitbench/data"
	"transitbench/engine/lc"
)

// Progress reports how far a build has come. Done counts finished stars, Resumed among them those taken over
// from an interrupted earlier build.
type Progress struct {
	Set     string
	Done    int
	Total   int
	Resumed int
}

// Options tune Open and Build. The zero value builds the standard sets with GOMAXPROCS workers.
type Options struct {
	// Progress, when set, is called once when a build starts and after every finished star, from one goroutine.
	Progress func(Progress)
	// Context cancels a build; the stars finished so far are kept and the next build continues from them.
	Context context.Context
	// Force rebuilds the set even when a complete copy exists (after a generator change, damage, or a new
	// secret seed). A public set, or a hidden set with an unchanged seed, comes out identical.
	Force bool
	// Stars is the size of the train pool to build; 0 keeps a built pool's size or builds DefaultTrainStars.
	Stars int
	// Composition, when set, replaces the set's composition (small sets for tests); a built set of another
	// composition is refused unless Force is set. Sets with other names than dev, A, B and train need one.
	Composition *Composition
	// Workers is the number of stars made at once; 0 means GOMAXPROCS.
	Workers int
	// AsBuilt opens a built set whatever its composition, and builds nothing (ErrNotBuilt when it is not
	// built): for readers of what a data directory holds, such as the results site.
	AsBuilt bool
	// MiniPool, when set, replaces the mini tasks' secret pool's composition (small pools for tests; see
	// OpenMiniTask).
	MiniPool *Composition

	gen generator // the star generator; nil means the simulator
}

func (o *Options) context() context.Context {
	if o.Context == nil {
		return context.Background()
	}
	return o.Context
}

func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// ErrInterrupted is wrapped by the error of a build stopped by its context; run the build again to finish it.
var ErrInterrupted = errors.New("sets: build interrupted")

// journalLine is one finished star of a build in progress.
type journalLine struct {
	Index  int         `json:"index"`
	Info   StarInfo    `json:"info"`
	Answer data.Answer `json:"answer"`
}

// buildPlan is everything a build of a simulated set needs.
type buildPlan struct {
	m     manifest // without fingerprint and checksums
	specs []starSpec
}

// build makes the simulated set p in home/sets/.build-<name> and moves it to home/sets/<name> once complete,
// replacing an older copy. Stars run on opt.workers() goroutines; each finished star is appended to the build's
// journal, so a build stopped by a crash or by opt.Context continues where it stopped when run again with the same
// plan (a build directory of another plan is discarded).
func build(home string, p *buildPlan, opt Options, gen generator) error {
	name := p.m.Set
	dirPerm, filePerm := perms(p.m.Hidden)
	if err := os.MkdirAll(filepath.Join(home, "sets"), 0o755); err != nil {
		return fmt.Errorf("sets: cannot create the sets directory: %w", err)
	}
	tmp := buildDir(home, name)
	done, err := resume(tmp, p, filePerm)
	if err != nil {
		return err
	}
	if done == nil {
		if err := startBuild(tmp, p, dirPerm, filePerm); err != nil {
			return err
		}
		done = map[int]journalLine{}
	}
	n := len(p.specs)
	prog := Progress{Set: name, Done: len(done), Total: n, Resumed: len(done)}
	if opt.Progress != nil {
		opt.Progress(prog)
	}
	if len(done) < n {
		if err := runStars(tmp, p, opt, gen, done, filePerm, prog); err != nil {
			return err
		}
	}
	return finishBuild(home, tmp, p, done, dirPerm, filePerm)
}

// resume reads the journal of an interrupted build of the same plan; it returns nil when there is none to
// continue (no build directory, or one made for another plan, which it removes). It rewrites the journal without
// a torn last line.
func resume(tmp string, p *buildPlan, filePerm os.FileMode) (map[int]journalLine, error) {
	b, err := os.ReadFile(filepath.Join(tmp, buildFile))
	if err != nil {
		if err := os.RemoveAll(tmp); err != nil {
			return nil, fmt.Errorf("sets: cannot remove the unusable build directory %s: %w", tmp, err)
		}
		return nil, nil
	}
	var old manifest
	if json.Unmarshal(b, &old) != nil || old != p.m {
		if err := os.RemoveAll(tmp); err != nil {
			return nil, fmt.Errorf("sets: cannot remove the build directory %s of another plan: %w", tmp, err)
		}
		return nil, nil
	}
	done := map[int]journalLine{}
	jb, _ := os.ReadFile(filepath.Join(tmp, journalFile))
	var keep bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(jb))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var j journalLine
		if json.Unmarshal(line, &j) != nil || j.Index < 0 || j.Index >= len(p.specs) ||
			j.Info.ID != p.specs[j.Index].ID || j.Answer.ID != j.Info.ID || j.Info.Digest == "" {
			continue // a torn or foreign line: that star is made again
		}
		if _, dup := done[j.Index]; dup {
			continue
		}
		done[j.Index] = j
		keep.Write(line)
		keep.WriteByte('\n')
	}
	path := filepath.Join(tmp, journalFile)
	if err := writeFileSync(path+".tmp", keep.Bytes(), filePerm); err != nil {
		return nil, fmt.Errorf("sets: cannot rewrite the build journal: %w", err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return nil, fmt.Errorf("sets: cannot rewrite the build journal: %w", err)
	}
	return done, nil
}

// startBuild creates a fresh build directory holding the plan.
func startBuild(tmp string, p *buildPlan, dirPerm, filePerm os.FileMode) error {
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("sets: cannot clear the build directory %s: %w", tmp, err)
	}
	if err := os.Mkdir(tmp, dirPerm); err != nil {
		return fmt.Errorf("sets: cannot create the build directory: %w", err)
	}
	if err := os.Chmod(tmp, dirPerm); err != nil { // Mkdir's mode is filtered by the umask
		return fmt.Errorf("sets: cannot set the build directory's mode: %w", err)
	}
	b, err := encodeJSON(p.m)
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(tmp, buildFile), b, filePerm); err != nil {
		return fmt.Errorf("sets: cannot write the build plan: %w", err)
	}
	return nil
}

// runStars makes the stars not yet in done on opt.workers() goroutines and appends each to the journal.
func runStars(tmp string, p *buildPlan, opt Options, gen generator, done map[int]journalLine,
	filePerm os.FileMode, prog Progress) error {
	jf, err := os.OpenFile(filepath.Join(tmp, journalFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, filePerm)
	if err != nil {
		return fmt.Errorf("sets: cannot open the build journal: %w", err)
	}
	defer jf.Close()

	ctx, cancel := context.WithCancel(opt.context())
	defer cancel()
	type result struct {
		line journalLine
		err  error
	}
	var todo []int
	for i := range p.specs {
		if _, ok := done[i]; !ok {
			todo = append(todo, i)
		}
	}
	jobs := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range min(opt.workers(), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var csv []byte // the worker's lightcurve.csv buffer, reused from star to star
			for i := range jobs {
				var l journalLine
				var err error
				l, csv, err = makeStar(gen, p.specs[i], csv)
				results <- result{l, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, i := range todo {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	var firstErr error
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
				cancel()
			}
			continue
		}
		b, err := json.Marshal(r.line)
		if err == nil {
			_, err = jf.Write(append(b, '\n'))
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("sets: cannot write the build journal: %w", err)
			cancel()
		}
		done[r.line.Index] = r.line
		prog.Done = len(done)
		if opt.Progress != nil {
			opt.Progress(prog)
		}
	}
	if firstErr != nil {
		return fmt.Errorf("%w (the %d stars finished are kept; the next build continues from them)", firstErr, len(done))
	}
	if err := opt.context().Err(); err != nil && len(done) < len(p.specs) {
		return fmt.Errorf("%w: %s has %d of %d stars (%v); run the build again to finish it",
			ErrInterrupted, p.m.Set, len(done), len(p.specs), err)
	}
	return jf.Sync()
}

// makeStar simulates one star and records its metadata, digest and answer. It checks that the generator's
// calendar (cadences) matches the light curve and that every cadence valid by its quality flags has a finite
// flux, since ValidTimes relies on both. The star's lightcurve.csv, needed only for its digest, is written
// into buf (data.AppendStarDir), which it returns for reuse.
func makeStar(gen generator, sp starSpec, buf []byte) (line journalLine, csv []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sets: the generator failed on star %s (set %s, index %d, seed %d): %v; report it with "+
				"these numbers", sp.ID, sp.Set, sp.Index, sp.Seed, p)
		}
	}()
	csv = buf
	r, err := materialise(gen, sp)
	if err != nil {
		return journalLine{}, csv, err
	}
	csv, sj, err := data.AppendStarDir(csv[:0], r.Curve, &r.Star)
	if err != nil {
		return journalLine{}, csv, fmt.Errorf("sets: encoding star %s: %w", sp.ID, err)
	}
	aj, err := json.Marshal(r.Answer)
	if err != nil {
		return journalLine{}, csv, fmt.Errorf("sets: encoding the answer of star %s: %w", sp.ID, err)
	}
	c := r.Curve
	t, q := gen.cadences(sp)
	if len(t) != c.Len() || len(q) != c.Len() {
		return journalLine{}, csv, fmt.Errorf("sets: star %s: the generator's calendar has %d cadences, its light curve %d; "+
			"the valid times given to the matcher would be wrong (a generator bug)", sp.ID, len(t), c.Len())
	}
	valid := 0
	for i := range t {
		if t[i] != c.Time[i] || q[i] != c.Quality[i] {
			return journalLine{}, csv, fmt.Errorf("sets: star %s: the generator's calendar differs from its light curve at "+
				"cadence %d (time %v vs %v, quality %d vs %d); a generator bug", sp.ID, i, t[i], c.Time[i], q[i], c.Quality[i])
		}
		if q[i]&lc.DefaultQualityMask != 0 {
			continue
		}
		if math.IsNaN(c.Flux[i]) || math.IsInf(c.Flux[i], 0) || math.IsNaN(t[i]) {
			return journalLine{}, csv, fmt.Errorf("sets: star %s: cadence %d at %.5f has no finite flux but no quality flag of "+
				"the default mask; the valid times given to the matcher would include it (a generator bug)", sp.ID, i, t[i])
		}
		valid++
	}
	return journalLine{
		Index: sp.Index,
		Info: StarInfo{ID: sp.ID, Index: sp.Index, Star: r.Star, Cadences: c.Len(), ValidCadences: valid,
			Digest: starDigest(csv, sj, aj)},
		Answer: r.Answer,
	}, csv, nil
}

// finishBuild writes the finished set's files into the build directory and moves it into place.
func finishBuild(home, tmp string, p *buildPlan, done map[int]journalLine, dirPerm, filePerm os.FileMode) error {
	n := len(p.specs)
	infos := make([]StarInfo, n)
	answers := make([]data.Answer, n)
	for i := range n {
		l, ok := done[i]
		if !ok {
			return fmt.Errorf("sets: internal error: star %d of %s missing at the end of the build", i, p.m.Set)
		}
		infos[i], answers[i] = l.Info, l.Answer
	}
	return writeSet(home, tmp, p.m, infos, answers, nil, dirPerm, filePerm)
}

// writeSet completes manifest m with the fingerprint and checksums, writes answers.json, stars.json and
// manifest.json (last) into the build directory tmp, removes the build's own files and renames tmp to the
// set's directory. An existing set directory is first renamed aside and removed after the switch.
// extra, when set, is called before the manifest is written (imported sets write their star directories).
func writeSet(home, tmp string, m manifest, infos []StarInfo, answers []data.Answer, extra func() error,
	dirPerm, filePerm os.FileMode) error {
	m.Fingerprint = fingerprint(infos)
	ab, err := encodeJSON(answers)
	if err != nil {
		return fmt.Errorf("sets: encoding answers: %w", err)
	}
	sb, err := encodeJSON(infos)
	if err != nil {
		return fmt.Errorf("sets: encoding star metadata: %w", err)
	}
	m.AnswersSHA256, m.StarsSHA256 = sha256Hex(ab), sha256Hex(sb)
	mb, err := encodeJSON(m)
	if err != nil {
		return err
	}
	if extra != nil {
		if err := extra(); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{answersFile, ab}, {starsFile, sb}, {manifestFile, mb}} {
		if err := writeFileSync(filepath.Join(tmp, f.name), f.b, filePerm); err != nil {
			return fmt.Errorf("sets: cannot write %s of set %s: %w", f.name, m.Set, err)
		}
	}
	for _, f := range []string{buildFile, journalFile} {
		if err := os.Remove(filepath.Join(tmp, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("sets: cannot tidy the build directory: %w", err)
		}
	}
	return moveIntoPlace(home, m.Set)
}

// moveIntoPlace renames a complete build directory (one holding manifest.json) to the set's directory.
func moveIntoPlace(home, name string) error {
	dst, tmp := setDir(home, name), buildDir(home, name)
	old := filepath.Join(home, "sets", ".old-"+name)
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("sets: cannot remove %s: %w", old, err)
	}
	if _, err := os.Stat(dst); err == nil {
		if err := os.Rename(dst, old); err != nil {
			return fmt.Errorf("sets: cannot move the old copy of set %s aside: %w", name, err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("sets: cannot move the built set %s into place: %w", name, err)
	}
	if d, err := os.Open(filepath.Dir(dst)); err == nil {
		d.Sync()
		d.Close()
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("sets: set %s is in place but its old copy %s could not be removed: %w", name, old, err)
	}
	return nil
}
