package sets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/engine/lc"
)

// small is a composition for tests: every category, odd counts so the population split is exercised.
var small = Composition{Injected: 5, Untouched: 3, EB: 2, Confirmed: 1}

func openFake(t *testing.T, home, name string, opt Options) *Set {
	t.Helper()
	if opt.gen == nil {
		opt.gen = &fakeGen{}
	}
	s, err := Open(home, name, opt)
	if err != nil {
		t.Fatalf("Open(%s): %v", name, err)
	}
	return s
}

func count(slots []slot) map[string]int {
	m := map[string]int{}
	for _, s := range slots {
		m[s.Category]++
		m[s.Category+"/"+s.Population]++
	}
	return m
}

func TestPlanCompositions(t *testing.T) {
	seed := publicSeed()
	cases := []struct {
		name string
		c    Composition
		want map[string]int
	}{
		// SPEC A2's table; populations split ⌈n/2⌉ random, ⌊n/2⌋ false-alarm.
		{Dev, DevComposition, map[string]int{"injected": 78, "untouched": 69, "eb": 29, "confirmed": 20,
			"injected/random": 39, "injected/false_alarm": 39, "untouched/random": 35, "untouched/false_alarm": 34,
			"eb/": 29, "confirmed/": 20}},
		{A, HiddenComposition, map[string]int{"injected": 400, "untouched": 350, "eb": 150, "confirmed": 100,
			"injected/random": 200, "injected/false_alarm": 200, "untouched/random": 175, "untouched/false_alarm": 175}},
	}
	for _, c := range cases {
		p := plan(c.name, seed, c.c)
		if len(p) != c.c.Total() {
			t.Fatalf("%s: %d stars, want %d", c.name, len(p), c.c.Total())
		}
		got := count(p)
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s = %d, want %d", c.name, k, got[k], v)
			}
		}
		// Shuffled: the first Injected slots are not all injected stars.
		if count(p[:c.c.Injected])["injected"] == c.c.Injected {
			t.Errorf("%s: the order is not shuffled", c.name)
		}
	}
	if !slices.Equal(plan(Dev, seed, DevComposition), plan(Dev, seed, DevComposition)) {
		t.Error("plan is not deterministic")
	}
	if slices.Equal(plan(Dev, seed, DevComposition), plan("dev2", seed, DevComposition)) {
		t.Error("two set names give the same order")
	}
}

func TestTrainComposition(t *testing.T) {
	if got, want := TrainComposition(2000), (Composition{Injected: 800, Untouched: 700, EB: 300, Confirmed: 200}); got != want {
		t.Errorf("TrainComposition(2000) = %+v, want %+v", got, want)
	}
	for _, n := range []int{1, 7, 13, 999, 1001} {
		c := TrainComposition(n)
		if c.Total() != n {
			t.Errorf("TrainComposition(%d) = %+v holds %d stars", n, c, c.Total())
		}
		// Largest remainder: each count within 1 of its exact share (40/35/15/10 %).
		for i, got := range []int{c.Injected, c.Untouched, c.EB, c.Confirmed} {
			exact := float64(n) * []float64{0.40, 0.35, 0.15, 0.10}[i]
			if float64(got) < exact-1 || float64(got) > exact+1 {
				t.Errorf("TrainComposition(%d) category %d = %d, exact share %.2f", n, i, got, exact)
			}
		}
	}
}

func TestStarSeed(t *testing.T) {
	// Reference values computed independently with Python's hashlib from StarSeed's definition
	// (length-prefixed SHA-256 of label, "sim-1", set name, PublicSeed bytes, index), so a change of the
	// derivation, which would change every set, is caught.
	cases := []struct {
		set   string
		index int
		want  uint64
	}{{"dev", 0, 2521208458117113648}, {"dev", 42, 3668023574743355400}, {"train", 42, 2385635873947634538}}
	for _, c := range cases {
		if got := StarSeed("sim-1", c.set, publicSeed(), c.index); got != c.want {
			t.Errorf("StarSeed(sim-1, %s, public, %d) = %d, want %d", c.set, c.index, got, c.want)
		}
	}
}

func TestBuildDeterministic(t *testing.T) {
	h1, h2 := t.TempDir(), t.TempDir()
	opt := Options{Composition: &small}
	s1 := openFake(t, h1, Dev, Options{Composition: &small, Workers: 1, gen: &fakeGen{}})
	s2 := openFake(t, h2, Dev, Options{Composition: &small, Workers: 3, gen: &fakeGen{}})
	if s1.Fingerprint != s2.Fingerprint || len(s1.Fingerprint) != 64 {
		t.Fatalf("fingerprints differ: %s vs %s", s1.Fingerprint, s2.Fingerprint)
	}
	for _, f := range []string{manifestFile, answersFile, starsFile} {
		b1, _ := os.ReadFile(filepath.Join(s1.Dir(), f))
		b2, _ := os.ReadFile(filepath.Join(s2.Dir(), f))
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between two builds", f)
		}
	}
	if want := []string{"dev-0000", "dev-0010"}; s1.IDs[0] != want[0] || s1.IDs[10] != want[1] {
		t.Errorf("ids %v…%v, want %v", s1.IDs[0], s1.IDs[10], want)
	}
	// Loading again gives the same set and does not rebuild.
	g := &fakeGen{}
	opt.gen = g
	s3 := openFake(t, h1, Dev, opt)
	if s3.Fingerprint != s1.Fingerprint || g.calls.Load() != 0 {
		t.Errorf("reopening rebuilt the set (%d stars made)", g.calls.Load())
	}
	// Another name gives other stars.
	s4 := openFake(t, h1, "other", Options{Composition: &small})
	if s4.Fingerprint == s1.Fingerprint {
		t.Error("two set names give the same fingerprint")
	}
}

func TestFingerprintCoversStarBytes(t *testing.T) {
	home := t.TempDir()
	s := openFake(t, home, Dev, Options{Composition: &small})
	// Recompute the fingerprint from the star-directory bytes WriteStarDir writes and the answers.
	var infos []StarInfo
	for _, id := range s.IDs {
		dir := filepath.Join(t.TempDir(), id)
		if err := s.WriteStarDir(id, dir); err != nil {
			t.Fatal(err)
		}
		csv, _ := os.ReadFile(filepath.Join(dir, data.LightCurveFile))
		sj, _ := os.ReadFile(filepath.Join(dir, data.StarFile))
		a := s.Answers[id]
		aj, _ := jsonMarshal(a)
		infos = append(infos, StarInfo{ID: id, Digest: starDigest(csv, sj, aj)})
	}
	if got := fingerprint(infos); got != s.Fingerprint {
		t.Errorf("fingerprint from written star directories %s, set says %s", got, s.Fingerprint)
	}
}

func TestStarAndValidTimes(t *testing.T) {
	home := t.TempDir()
	s := openFake(t, home, Dev, Options{Composition: &small})
	for _, id := range s.IDs {
		c, st, err := s.Star(id)
		if err != nil {
			t.Fatal(err)
		}
		if st.ID != id || s.Answers[id].ID != id {
			t.Errorf("star %s carries id %q / answer %q", id, st.ID, s.Answers[id].ID)
		}
		vt, err := s.ValidTimes(id)
		if err != nil {
			t.Fatal(err)
		}
		var want []float64
		for i := range c.Time {
			if c.Good(i, lc.DefaultQualityMask) {
				want = append(want, c.Time[i])
			}
		}
		if !slices.Equal(vt, want) {
			t.Errorf("%s: ValidTimes gives %d times, the light curve has %d good cadences", id, len(vt), len(want))
		}
		in, _ := s.Info(id)
		if in.ValidCadences != len(want) || in.Cadences != c.Len() {
			t.Errorf("%s: info says %d/%d cadences, curve %d/%d", id, in.ValidCadences, in.Cadences, len(want), c.Len())
		}
		// The caller owns the result: changing it does not change the next call's.
		c.Flux[0] = 42
		c2, _, _ := s.Star(id)
		if c2.Flux[0] == 42 {
			t.Fatal("Star returns the cached light curve itself")
		}
		// WriteStarDir writes what data.ReadStarDir reads back as the same star.
		dir := filepath.Join(t.TempDir(), "star")
		if err := s.WriteStarDir(id, dir); err != nil {
			t.Fatal(err)
		}
		rc, rst, err := data.ReadStarDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		// lightcurve.csv keeps 7 decimals of time (data.AppendCSV), so times agree to 5e-8 d.
		if rst.ID != id || rc.Len() != c2.Len() || math.Abs(rc.Time[10]-c2.Time[10]) > 5e-8 {
			t.Errorf("%s: star directory reads back as %s with %d cadences", id, rst.ID, rc.Len())
		}
	}
	if _, _, err := s.Star("dev-9999"); err == nil || !strings.Contains(err.Error(), "dev-0000") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestAnswersJSON(t *testing.T) {
	home := t.TempDir()
	s := openFake(t, home, Dev, Options{Composition: &small})
	b, err := s.AnswersJSON()
	if err != nil {
		t.Fatal(err)
	}
	var got []data.Answer
	if err := json.Unmarshal(b, &got); err != nil || len(got) != len(s.IDs) {
		t.Fatalf("answers.json holds %d answers: %v", len(got), err)
	}
	for i, a := range got {
		if a.ID != s.IDs[i] || a.Category != s.Answers[a.ID].Category {
			t.Errorf("answer %d is %+v", i, a)
		}
	}
	os.WriteFile(filepath.Join(s.Dir(), answersFile), append(b, ' '), 0o644)
	if _, err := s.AnswersJSON(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("changed answers.json gave %v", err)
	}
}

func TestDriftingGeneratorDetected(t *testing.T) {
	home := t.TempDir()
	g := &fakeGen{}
	s := openFake(t, home, Dev, Options{Composition: &small, gen: g})
	if differ, err := s.Verify(context.Background(), 2, nil); err != nil || len(differ) != 0 {
		t.Fatalf("a deterministic generator fails verification: %v, %v", differ, err)
	}
	g.drift.Store(true)
	if differ, err := s.Verify(context.Background(), 2, nil); err != nil || len(differ) != len(s.IDs) {
		t.Errorf("a drifting generator: %d of %d stars differ, %v", len(differ), len(s.IDs), err)
	}
	err := s.WriteStarDir(s.IDs[0], t.TempDir())
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a star that regenerates differently gave %v, want ErrMismatch with a hint", err)
	}
}

func TestWrongCategoryRefused(t *testing.T) {
	g := &badCategoryGen{}
	_, err := Open(t.TempDir(), Dev, Options{Composition: &small, gen: g})
	if err == nil || !strings.Contains(err.Error(), "asked for category") {
		t.Errorf("a generator making the wrong category gave %v", err)
	}
}

type badCategoryGen struct{ fakeGen }

func (g *badCategoryGen) generate(sp starSpec) (*starResult, error) {
	r, err := g.fakeGen.generate(sp)
	if err == nil && sp.Category == data.CategoryEB {
		r.Answer.Category = data.CategoryUntouched
	}
	return r, err
}

func TestInterruptedBuildResumes(t *testing.T) {
	comp := Composition{Injected: 20, Untouched: 10, EB: 6, Confirmed: 4}
	ref := openFake(t, t.TempDir(), Dev, Options{Composition: &comp})

	home := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	stopAt := 15
	_, err := Open(home, Dev, Options{Composition: &comp, Workers: 2, Context: ctx, gen: &fakeGen{},
		Progress: func(p Progress) {
			if p.Done >= stopAt {
				cancel()
			}
		}})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("cancelled build gave %v, want ErrInterrupted", err)
	}
	if _, err := os.Stat(filepath.Join(buildDir(home, Dev), journalFile)); err != nil {
		t.Fatalf("no half-built directory left: %v", err)
	}
	if _, err := os.Stat(setDir(home, Dev)); !os.IsNotExist(err) {
		t.Fatalf("a half-built set is in place: %v", err)
	}
	if st := StatusOf(home, Dev); st.Built || !st.Interrupted || st.StarsDone < stopAt || st.Stars != comp.Total() {
		t.Errorf("status of the half-built set: %+v", st)
	}
	// Tear the journal's last line, as a crash in mid-write would.
	jp := filepath.Join(buildDir(home, Dev), journalFile)
	jb, _ := os.ReadFile(jp)
	os.WriteFile(jp, append(jb, []byte(`{"index":3,"info":{"id":"dev-00`)...), 0o644)

	var first Progress
	g := &fakeGen{}
	s, err := Open(home, Dev, Options{Composition: &comp, gen: g, Progress: func(p Progress) {
		if first.Total == 0 {
			first = p
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Resumed < stopAt || first.Resumed >= comp.Total() {
		t.Errorf("resumed %d stars, want at least %d of %d", first.Resumed, stopAt, comp.Total())
	}
	if int(g.calls.Load()) != comp.Total()-first.Resumed {
		t.Errorf("made %d stars after resuming %d of %d", g.calls.Load(), first.Resumed, comp.Total())
	}
	if s.Fingerprint != ref.Fingerprint {
		t.Errorf("resumed build's fingerprint %s differs from a clean build's %s", s.Fingerprint, ref.Fingerprint)
	}
	if _, err := os.Stat(buildDir(home, Dev)); !os.IsNotExist(err) {
		t.Errorf("build directory left behind: %v", err)
	}
	if st := StatusOf(home, Dev); !st.Built || st.Interrupted || st.Stars != comp.Total() {
		t.Errorf("status of the finished set: %+v", st)
	}
	if st := StatusOf(home, Train); st.Built || st.Interrupted {
		t.Errorf("status of a set never built: %+v", st)
	}
	openFake(t, home, "zeta", Options{Composition: &small})
	var listed []string
	for _, st := range List(home) {
		listed = append(listed, st.Set)
	}
	if !slices.Equal(listed, []string{Dev, A, B, Train, "zeta"}) {
		t.Errorf("List gives %v", listed)
	}
}

func TestBuildOfAnotherPlanDiscarded(t *testing.T) {
	home := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	comp := Composition{Injected: 4, Untouched: 4}
	if _, err := Open(home, Dev, Options{Composition: &comp, Context: ctx, gen: &fakeGen{}}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v", err)
	}
	// A build with another composition does not take over the first one's stars.
	var first Progress
	openFake(t, home, Dev, Options{Composition: &small, Progress: func(p Progress) {
		if first.Total == 0 {
			first = p
		}
	}})
	if first.Resumed != 0 || first.Total != small.Total() {
		t.Errorf("first progress %+v", first)
	}
}

func TestCompleteBuildNotMovedIsRepaired(t *testing.T) {
	home := t.TempDir()
	s := openFake(t, home, Dev, Options{Composition: &small})
	// A crash between the two renames leaves the complete set in the build directory only.
	if err := os.Rename(setDir(home, Dev), buildDir(home, Dev)); err != nil {
		t.Fatal(err)
	}
	g := &fakeGen{}
	s2 := openFake(t, home, Dev, Options{Composition: &small, gen: g})
	if s2.Fingerprint != s.Fingerprint || g.calls.Load() != 0 {
		t.Errorf("repair rebuilt %d stars", g.calls.Load())
	}
}

func TestDamageDetected(t *testing.T) {
	home := t.TempDir()
	openFake(t, home, Dev, Options{Composition: &small})
	dir := setDir(home, Dev)
	cases := []struct {
		file   string
		change func([]byte) []byte
		want   error
	}{
		{manifestFile, func(b []byte) []byte { return b[:len(b)/2] }, ErrCorrupt},
		{answersFile, func(b []byte) []byte { return bytes.Replace(b, []byte(`"scored": true`), []byte(`"scored": false`), 1) }, ErrCorrupt},
		{starsFile, func(b []byte) []byte { return bytes.Replace(b, []byte(`"kepmag": 1`), []byte(`"kepmag": 2`), 1) }, ErrCorrupt},
		{manifestFile, func(b []byte) []byte { return bytes.Replace(b, []byte(`"fake-1"`), []byte(`"fake-0"`), 1) }, ErrStale},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.file)
		orig, _ := os.ReadFile(path)
		changed := c.change(orig)
		if bytes.Equal(orig, changed) {
			t.Fatalf("%s: the change did not apply", c.file)
		}
		os.WriteFile(path, changed, 0o644)
		_, err := Open(home, Dev, Options{Composition: &small, gen: &fakeGen{}})
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "data build --set dev --force") {
			t.Errorf("%s changed: got %v, want %v with a rebuild hint", c.file, err, c.want)
		}
		os.WriteFile(path, orig, 0o644)
	}
	// --force rebuilds a damaged set.
	os.WriteFile(filepath.Join(dir, answersFile), []byte("[]"), 0o644)
	s := openFake(t, home, Dev, Options{Composition: &small, Force: true})
	if len(s.IDs) != small.Total() {
		t.Errorf("forced rebuild holds %d stars", len(s.IDs))
	}
}

func TestCompositionMismatch(t *testing.T) {
	home := t.TempDir()
	openFake(t, home, Dev, Options{Composition: &small})
	got, err := Open(home, Dev, Options{gen: &fakeGen{}})
	if !errors.Is(err, ErrMismatch) || got != nil {
		t.Errorf("opening a small dev as the standard one gave %v, want ErrMismatch", err)
	}
	if s, err := Open(home, Dev, Options{gen: &fakeGen{}, AsBuilt: true}); err != nil || s.Composition != small {
		t.Errorf("opening the small dev as built gave %v, %v", s, err)
	}
	if _, err := Open(home, A, Options{gen: &fakeGen{}, AsBuilt: true}); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("opening an unbuilt A as built gave %v, want ErrNotBuilt", err)
	}
	if _, err := os.Stat(filepath.Join(home, "sets", A)); !os.IsNotExist(err) {
		t.Errorf("opening an unbuilt set as built built it: %v", err)
	}
	tc := TrainComposition(30)
	openFake(t, home, Train, Options{Stars: 30})
	if s := openFake(t, home, Train, Options{}); s.Composition != tc || s.IDs[0] != "train-000000" {
		t.Errorf("train pool reopened as %+v, first id %s", s.Composition, s.IDs[0])
	}
	if _, err := Open(home, Train, Options{Stars: 40, gen: &fakeGen{}}); !errors.Is(err, ErrMismatch) ||
		!strings.Contains(err.Error(), "--stars 40 --force") {
		t.Errorf("asking for another pool size gave %v", err)
	}
	empty := t.TempDir()
	if _, err := Open(empty, "nosuch", Options{gen: &fakeGen{}}); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("unknown custom set gave %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "sets")); !os.IsNotExist(err) {
		t.Errorf("opening an unknown set wrote to the data directory: %v", err)
	}
	for _, bad := range []string{"", "all", "mini-x", "a/b", "../x", "9lives"} {
		if _, err := Open(home, bad, Options{gen: &fakeGen{}}); err == nil {
			t.Errorf("set name %q accepted", bad)
		}
	}
}

func TestPublicSetsShareNoStar(t *testing.T) {
	home := t.TempDir()
	dev := openFake(t, home, Dev, Options{Composition: &small})
	train := openFake(t, home, Train, Options{Stars: 50})
	seen := map[uint64]string{}
	for _, s := range []*Set{dev, train} {
		for id, sp := range s.specs {
			if o, dup := seen[sp.Seed]; dup {
				t.Errorf("%s and %s share seed %d", o, id, sp.Seed)
			}
			seen[sp.Seed] = id
		}
	}
}

func TestConcurrentOpenBuildsOnce(t *testing.T) {
	home := t.TempDir()
	g := &fakeGen{}
	comp := Composition{Injected: 10, Untouched: 10, EB: 5, Confirmed: 5}
	fps := make(chan string, 4)
	for range 4 {
		go func() {
			s, err := Open(home, Dev, Options{Composition: &comp, gen: g})
			if err != nil {
				t.Error(err)
				fps <- ""
				return
			}
			fps <- s.Fingerprint
		}()
	}
	first := <-fps
	for range 3 {
		if fp := <-fps; fp != first || fp == "" {
			t.Errorf("concurrent opens gave fingerprints %q and %q", first, fp)
		}
	}
	if n := g.calls.Load(); n != int64(comp.Total()) {
		t.Errorf("four concurrent opens made %d stars, want %d (one build)", n, comp.Total())
	}
}

func TestGeneratorPanicIsAnError(t *testing.T) {
	_, err := Open(t.TempDir(), Dev, Options{Composition: &small, gen: &panicGen{}})
	if err == nil || !strings.Contains(err.Error(), "generator failed on star") {
		t.Errorf("a panicking generator gave %v", err)
	}
}

type panicGen struct{ fakeGen }

func (g *panicGen) generate(sp starSpec) (*starResult, error) {
	if sp.Index == 3 {
		panic("index out of range")
	}
	return g.fakeGen.generate(sp)
}

// TestPlanStratifiesMES: within each population of injected stars the MES quantiles fall one in each n-th of
// (0, 1), so the share with MES ≥ 7.1 (quantile ≥ (7.1 − 4)/16 for MES uniform in [4, 20]) is 80.6 % to within one
// star on every set and seed; other stars carry none.
func TestPlanStratifiesMES(t *testing.T) {
	const q71 = (7.1 - 4) / 16
	for _, c := range []struct {
		name string
		c    Composition
		seed []byte
	}{
		{Dev, DevComposition, publicSeed()},
		{A, HiddenComposition, []byte("some secret seed")},
		{B, HiddenComposition, []byte("another secret seed")},
	} {
		p := plan(c.name, c.seed, c.c)
		for _, pop := range []string{data.PopulationRandom, data.PopulationFalseAlarm} {
			var qs []float64
			for _, s := range p {
				if s.Category == data.CategoryInjected && s.Population == pop {
					qs = append(qs, s.MESQuantile)
				}
			}
			n := len(qs)
			slices.Sort(qs)
			for k, q := range qs {
				if lo, hi := float64(k)/float64(n), float64(k+1)/float64(n); !(q > lo && q < hi) {
					t.Fatalf("%s/%s: the %d-th smallest quantile %v is outside its stratum (%v, %v)", c.name, pop, k, q, lo, hi)
				}
			}
			above := 0
			for _, q := range qs {
				if q >= q71 {
					above++
				}
			}
			if want := (1 - q71) * float64(n); math.Abs(float64(above)-want) > 1 {
				t.Errorf("%s/%s: %d of %d planets at MES ≥ 7.1, want %.2f ± 1", c.name, pop, above, n, want)
			}
		}
		for _, s := range p {
			if s.Category != data.CategoryInjected && s.MESQuantile != 0 {
				t.Fatalf("%s: a %s star has MES quantile %v", c.name, s.Category, s.MESQuantile)
			}
		}
	}
}
