package sets

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"transitbench/data"
	"transitbench/engine/lc"
)

// Names of the standard sets (SPEC A2).
const (
	Dev   = "dev"
	A     = "A"
	B     = "B"
	Train = "train"
)

// Standard lists the standard sets in build order.
var Standard = []string{Dev, A, B, Train}

// Set is a built data set. Name, Generator (the simulator's version, or the importer's), Fingerprint (see
// fingerprint), IDs (in order) and Answers (by id) are read from the data directory; the light curves are made on
// demand. A Set is safe for concurrent use.
type Set struct {
	Name        string
	Kind        string // KindSimulated or KindImported
	Generator   string
	Fingerprint string
	Composition Composition
	IDs         []string
	Answers     map[string]data.Answer
	// TrainPlanet is the train pool's planet knobs (see TrainPlanetKnobs); nil for other sets.
	TrainPlanet *TrainPlanetKnobs

	dir        string
	hidden     bool
	answersSHA string
	infos      map[string]*StarInfo
	specs      map[string]starSpec // simulated sets
	gen        generator

	mu    sync.Mutex
	cache []*starResult // the most recently made stars, newest last
}

// cacheSize is how many materialised stars a Set keeps (≈ 0.5 MB each).
const cacheSize = 4

// Hidden reports whether the set is one of the hidden grading sets (A, B), whose answers never leave the data
// directory.
func (s *Set) Hidden() bool { return s.hidden }

// Dir returns the set's directory in the data directory.
func (s *Set) Dir() string { return s.dir }

// Info returns what the set records about star id (metadata, cadence counts, digest).
func (s *Set) Info(id string) (StarInfo, error) {
	in, ok := s.infos[id]
	if !ok {
		return StarInfo{}, s.unknown(id)
	}
	return *in, nil
}

func (s *Set) unknown(id string) error {
	return fmt.Errorf("sets: set %s has no star %q (ids run from %s to %s)", s.Name, id, s.IDs[0], s.IDs[len(s.IDs)-1])
}

// IsHidden reports whether name is a hidden set's name: A, B and the mini tasks' secret pool MiniPool.
func IsHidden(name string) bool { return name == A || name == B || name == MiniPool }

// Open returns the set called name of the data directory home, building it first when it is not built (or
// when opt.Force is set). The standard sets are dev, A, B (hidden, seeded by the secret seed file, created on first
// build) and train; other names are custom simulated sets, which need opt.Composition, or sets made by Import.
// A set built by another generator version, a damaged set, a hidden set whose secret seed file is missing or
// changed, or a set of another composition than asked gives an error saying what to do; an interrupted build is
// continued.
func Open(home, name string, opt Options) (*Set, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	if home == "" {
		return nil, errors.New("sets: no data directory given")
	}
	gen := opt.gen
	if gen == nil {
		gen = newSimGenerator()
	}
	if !opt.Force {
		s, err := load(home, name, gen)
		if err == nil {
			return s.checked(opt)
		}
		if !errors.Is(err, ErrNotBuilt) || opt.AsBuilt {
			return nil, err
		}
	} else if m, err := readManifest(setDir(home, name), name); err == nil && m.Kind == KindImported {
		return nil, fmt.Errorf("sets: set %s was imported from %s; import it again with 'transitbench data import' "+
			"instead of rebuilding it", name, m.Source)
	}
	if _, ok := wantedComposition(name, opt); !ok {
		return nil, fmt.Errorf("%w: there is no set %q in %s; build a standard set (dev, A, B, train) or "+
			"import one with 'transitbench data import' (a custom simulated set needs Options.Composition)",
			ErrNotBuilt, name, home)
	}
	release, err := lockBuild(home, lockKey(name))
	if err != nil {
		return nil, err
	}
	defer release()
	if !opt.Force {
		// Another process may have built the set while this one waited for the lock.
		if s, err := load(home, name, gen); err == nil {
			return s.checked(opt)
		} else if !errors.Is(err, ErrNotBuilt) {
			return nil, err
		}
	}
	p, err := planFor(home, name, opt, gen)
	if err != nil {
		return nil, err
	}
	if err := build(home, p, opt, gen); err != nil {
		return nil, err
	}
	return load(home, name, gen)
}

// lockKey names the build lock of a set: the hidden sets share one, since they share the secret seed.
func lockKey(name string) string {
	if IsHidden(name) {
		return "hidden"
	}
	return name
}

// checked returns s when it is what opt asks for, else an error.
func (s *Set) checked(opt Options) (*Set, error) {
	if err := s.check(opt); err != nil {
		return nil, err
	}
	return s, nil
}

// check compares a loaded set with what opt asks for.
func (s *Set) check(opt Options) error {
	want, ok := wantedComposition(s.Name, opt)
	if s.Name == Train && opt.Stars == 0 && opt.Composition == nil || s.Kind == KindImported || opt.AsBuilt {
		ok = false // any pool size will do; an imported set is what its label table made it
	}
	if ok && want != s.Composition {
		hint := rebuildHint(s.Name)
		if s.Name == Train {
			hint = fmt.Sprintf("rebuild it with 'transitbench data build --set train --stars %d --force'", want.Total())
		}
		return fmt.Errorf("%w: set %s on disk has composition %+v (%d stars), not the %+v asked for; %s",
			ErrMismatch, s.Name, s.Composition, len(s.IDs), want, hint)
	}
	return nil
}

// wantedComposition returns the composition asked for set name, and whether there is one.
func wantedComposition(name string, opt Options) (Composition, bool) {
	if opt.Composition != nil {
		return *opt.Composition, true
	}
	switch name {
	case Dev:
		return DevComposition, true
	case A, B:
		return HiddenComposition, true
	case MiniPool:
		return MiniPoolComposition, true
	case Train:
		n := opt.Stars
		if n == 0 {
			n = DefaultTrainStars
		}
		return TrainComposition(n), true
	}
	return Composition{}, false
}

// idWidth returns the number of digits of a set's star ids: 6 for the train pool, else 4 or more.
func idWidth(name string, n int) int {
	w := 4
	if name == Train {
		w = 6
	}
	return max(w, len(strconv.Itoa(n-1)))
}

// StarID returns the id of star index of set name with ids of width digits, e.g. "dev-0042".
func StarID(name string, width, index int) string { return fmt.Sprintf("%s-%0*d", name, width, index) }

// planFor decides the seed and lays out the stars of a simulated set to build.
func planFor(home, name string, opt Options, gen generator) (*buildPlan, error) {
	comp, ok := wantedComposition(name, opt)
	if !ok {
		return nil, fmt.Errorf("%w: set %q has no composition", ErrNotBuilt, name)
	}
	if err := comp.valid(); err != nil {
		return nil, err
	}
	hidden := IsHidden(name)
	m := manifest{Format: manifestFormat, Set: name, Kind: KindSimulated, Generator: gen.version(), Hidden: hidden,
		Composition: comp, Stars: comp.Total(), IDWidth: idWidth(name, comp.Total())}
	if name == Train {
		m.TrainPlanet = TrainPlanet
	}
	var seed []byte
	if hidden {
		var err error
		if seed, err = hiddenSeedForBuild(home, name, opt.Force); err != nil {
			return nil, err
		}
		m.SeedCheck = seedCheck(seed)
	} else {
		seed = publicSeed()
		m.Seed = PublicSeed
	}
	return &buildPlan{m: m, specs: specsFor(&m, seed)}, nil
}

// hiddenSeedForBuild returns the secret seed to build hidden set name with, creating one when no hidden set
// needs the old one. It refuses to make a new seed while another hidden set built with the missing one exists,
// unless force is set.
func hiddenSeedForBuild(home, name string, force bool) ([]byte, error) {
	seed, err := readSecretSeed(home)
	if err == nil {
		return seed, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; fix the file, or restore it from a backup", err)
	}
	var others []string
	for _, o := range builtHidden(home) {
		if o != name {
			others = append(others, o)
		}
	}
	if len(others) > 0 && !force {
		return nil, fmt.Errorf("%w: the secret seed file %s is missing, but hidden set %s was built with it: a new "+
			"seed would give %s and %s different seeds. Restore the file from a backup (mode 0600) or supply it with "+
			"'transitbench data build --set %s --seed-file FILE'; if the seed is lost, rebuild both with --force",
			ErrSecretSeed, SecretSeedPath(home), others[0], name, others[0], name)
	}
	return ensureSecretSeed(home)
}

// specsFor lists the star specs of the simulated set described by m.
func specsFor(m *manifest, seed []byte) []starSpec {
	slots := plan(m.Set, seed, m.Composition)
	out := make([]starSpec, len(slots))
	for i, sl := range slots {
		out[i] = starSpec{Set: m.Set, Index: i, Seed: StarSeed(m.Generator, m.Set, seed, i),
			Category: sl.Category, Population: sl.Population, ID: StarID(m.Set, m.IDWidth, i), MESQuantile: sl.MESQuantile}
	}
	return out
}

// load opens a built set and checks it: manifest, generator version, checksums, fingerprint, ids, and for a
// simulated set its seed and that the answers follow its plan.
func load(home, name string, gen generator) (*Set, error) {
	dir := setDir(home, name)
	m, err := readManifest(dir, name)
	if errors.Is(err, ErrNotBuilt) {
		// A build that completed but was not moved into place (stopped between its two renames).
		if _, e := os.Stat(filepath.Join(buildDir(home, name), manifestFile)); e == nil {
			if e := moveIntoPlace(home, name); e != nil {
				return nil, e
			}
			m, err = readManifest(dir, name)
		}
	}
	if err != nil {
		return nil, err
	}
	switch {
	case m.Kind == KindSimulated && name == Train && m.TrainPlanet != TrainPlanet:
		return nil, fmt.Errorf("%w: set %s was built with other train-only planet knobs (%v) than this program's (%v); %s",
			ErrStale, name, m.TrainPlanet, TrainPlanet, rebuildHint(name))
	case m.Kind == KindSimulated && m.Generator != gen.version():
		return nil, fmt.Errorf("%w: set %s was built by generator %s, this program's is %s, which makes different "+
			"stars; %s (its stars and fingerprint will change)", ErrStale, name, m.Generator, gen.version(), rebuildHint(name))
	case m.Kind == KindImported && m.Generator != ImportVersion && m.Generator != importWithSim:
		return nil, fmt.Errorf("%w: set %s was imported by %s, this program's importer is %s (with injections, "+
			"%s); import it again with 'transitbench data import'", ErrStale, name, m.Generator, ImportVersion,
			importWithSim)
	}
	ab, err := readChecked(dir, answersFile, m.AnswersSHA256, name)
	if err != nil {
		return nil, err
	}
	sb, err := readChecked(dir, starsFile, m.StarsSHA256, name)
	if err != nil {
		return nil, err
	}
	var answers []data.Answer
	var infos []StarInfo
	if err := json.Unmarshal(ab, &answers); err != nil {
		return nil, fmt.Errorf("%w: %s: %v; %s", ErrCorrupt, filepath.Join(dir, answersFile), err, rebuildHint(name))
	}
	if err := json.Unmarshal(sb, &infos); err != nil {
		return nil, fmt.Errorf("%w: %s: %v; %s", ErrCorrupt, filepath.Join(dir, starsFile), err, rebuildHint(name))
	}
	if len(answers) != m.Stars || len(infos) != m.Stars {
		return nil, fmt.Errorf("%w: set %s should hold %d stars, its files hold %d answers and %d stars; %s",
			ErrCorrupt, name, m.Stars, len(answers), len(infos), rebuildHint(name))
	}
	if fp := fingerprint(infos); fp != m.Fingerprint {
		return nil, fmt.Errorf("%w: the star digests of set %s do not give its fingerprint; %s", ErrCorrupt, name,
			rebuildHint(name))
	}
	s := &Set{Name: name, Kind: m.Kind, Generator: m.Generator, Fingerprint: m.Fingerprint, Composition: m.Composition,
		IDs: make([]string, m.Stars), Answers: make(map[string]data.Answer, m.Stars), dir: dir, hidden: m.Hidden,
		infos: make(map[string]*StarInfo, m.Stars), gen: gen, answersSHA: m.AnswersSHA256}
	if m.TrainPlanet != (TrainPlanetKnobs{}) {
		tp := m.TrainPlanet
		s.TrainPlanet = &tp
	}
	for i := range infos {
		id := StarID(name, m.IDWidth, i)
		if infos[i].ID != id || answers[i].ID != id || infos[i].Index != i {
			return nil, fmt.Errorf("%w: star %d of set %s is listed as %q / %q, expected %q; %s", ErrCorrupt, i, name,
				infos[i].ID, answers[i].ID, id, rebuildHint(name))
		}
		s.IDs[i] = id
		s.Answers[id] = answers[i]
		s.infos[id] = &infos[i]
	}
	if m.Kind == KindImported {
		return s, nil
	}
	seed, err := loadSeed(home, m)
	if err != nil {
		return nil, err
	}
	s.specs = make(map[string]starSpec, m.Stars)
	for _, sp := range specsFor(m, seed) {
		if a := answers[sp.Index]; a.Category != sp.Category {
			return nil, fmt.Errorf("%w: the answer of %s says %q, the set's plan %q; %s", ErrCorrupt, sp.ID, a.Category,
				sp.Category, rebuildHint(name))
		}
		s.specs[sp.ID] = sp
	}
	return s, nil
}

// loadSeed returns the set seed a built simulated set was made with, checking a hidden set's secret seed file
// against the manifest.
func loadSeed(home string, m *manifest) ([]byte, error) {
	if !m.Hidden {
		seed, err := hex.DecodeString(m.Seed)
		if err != nil || len(seed) == 0 {
			return nil, fmt.Errorf("%w: the manifest of set %s has no usable seed; %s", ErrCorrupt, m.Set, rebuildHint(m.Set))
		}
		return seed, nil
	}
	path := SecretSeedPath(home)
	seed, err := readSecretSeed(home)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: hidden set %s was built with the secret seed in %s, which is missing, so its stars "+
			"cannot be made. Restore the file from a backup (mode 0600), or supply the seed with 'transitbench data "+
			"build --set %s --seed-file FILE'. Only if the seed is lost for good, %s: that makes a new, different "+
			"set, and grades on the old one are not comparable", ErrSecretSeed, m.Set, path, m.Set, rebuildHint(m.Set))
	}
	if err != nil {
		return nil, fmt.Errorf("%w (hidden set %s needs it)", err, m.Set)
	}
	if got := seedCheck(seed); got != m.SeedCheck {
		return nil, fmt.Errorf("%w: the secret seed in %s is not the one hidden set %s was built with (check %s, "+
			"built with %s). Put the original seed back, or %s to make a new set with this seed (grades on the old "+
			"one are not comparable)", ErrSecretSeed, path, m.Set, got, m.SeedCheck, rebuildHint(m.Set))
	}
	return seed, nil
}

// Star materialises star id: its light curve and star.json content. The caller owns the result.
func (s *Set) Star(id string) (*lc.LightCurve, *data.Star, error) {
	r, err := s.result(id)
	if err != nil {
		return nil, nil, err
	}
	c := &lc.LightCurve{
		Time:    append([]float64(nil), r.Curve.Time...),
		Flux:    append([]float64(nil), r.Curve.Flux...),
		FluxErr: append([]float64(nil), r.Curve.FluxErr...),
		Quality: append([]int32(nil), r.Curve.Quality...),
	}
	st := r.Star
	st.CDPPppm = make(map[string]float64, len(r.Star.CDPPppm))
	for k, v := range r.Star.CDPPppm {
		st.CDPPppm[k] = v
	}
	return c, &st, nil
}

// result returns star id's made (or read) star, from the cache when it is there.
func (s *Set) result(id string) (*starResult, error) {
	if _, ok := s.infos[id]; !ok {
		return nil, s.unknown(id)
	}
	s.mu.Lock()
	for _, r := range s.cache {
		if r.Star.ID == id {
			s.mu.Unlock()
			return r, nil
		}
	}
	s.mu.Unlock()
	r, err := s.fresh(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.cache = append(s.cache, r)
	if len(s.cache) > cacheSize {
		s.cache = s.cache[1:]
	}
	s.mu.Unlock()
	return r, nil
}

// fresh makes (or, for an imported set, reads) star id, bypassing the cache.
func (s *Set) fresh(id string) (*starResult, error) {
	if s.Kind == KindImported {
		return s.readStored(id)
	}
	return materialise(s.gen, s.specs[id])
}

// readStored reads a stored star directory of an imported set.
func (s *Set) readStored(id string) (*starResult, error) {
	c, st, err := data.ReadStarDir(filepath.Join(s.dir, starsDir, id))
	if err != nil {
		return nil, fmt.Errorf("%w: star %s of imported set %s: %v; import the set again", ErrCorrupt, id, s.Name, err)
	}
	return &starResult{Curve: c, Star: *st, Answer: s.Answers[id]}, nil
}

// WriteStarDir writes star id's directory (SPEC A1: lightcurve.csv and star.json) into dir, creating dir when
// needed. It checks the bytes against the digest recorded when the set was built, so a solution never sees a star
// that differs from the one the set's answers and fingerprint describe.
func (s *Set) WriteStarDir(id, dir string) error {
	csv, sj, err := s.starBytes(id)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sets: cannot create star directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, data.LightCurveFile), csv, 0o644); err != nil {
		return fmt.Errorf("sets: cannot write star directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, data.StarFile), sj, 0o644); err != nil {
		return fmt.Errorf("sets: cannot write star directory: %w", err)
	}
	return nil
}

// WriteStarDirAs is WriteStarDir with star.json's id replaced by alias (SPEC A1: on a hidden set a solution
// sees a per-run id that names neither the set nor the star's index). star.json is decoded into data.Star and
// encoded again, so no field but the documented ones reaches the solution. The light curve is written as
// checked by WriteStarDir.
func (s *Set) WriteStarDirAs(id, alias, dir string) error {
	if alias == "" {
		return fmt.Errorf("sets: an empty alias for star %s of set %s", id, s.Name)
	}
	csv, sj, err := s.starBytes(id)
	if err != nil {
		return err
	}
	var st data.Star
	if err := json.Unmarshal(sj, &st); err != nil {
		return fmt.Errorf("sets: star %s of set %s: %w", id, s.Name, err)
	}
	st.ID = alias
	if sj, err = data.EncodeStar(&st); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sets: cannot create star directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, data.LightCurveFile), csv, 0o644); err != nil {
		return fmt.Errorf("sets: cannot write star directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, data.StarFile), sj, 0o644); err != nil {
		return fmt.Errorf("sets: cannot write star directory: %w", err)
	}
	return nil
}

// starBytes returns star id's lightcurve.csv and star.json bytes, checked against its recorded digest.
func (s *Set) starBytes(id string) (csv, starJSON []byte, err error) {
	r, err := s.result(id)
	if err != nil {
		return nil, nil, err
	}
	return s.checkedBytes(id, r)
}

// checkedBytes returns the star-directory bytes of r, star id, checked against its recorded digest.
func (s *Set) checkedBytes(id string, r *starResult) (csv, starJSON []byte, err error) {
	if s.Kind == KindImported {
		dir := filepath.Join(s.dir, starsDir, id)
		if csv, err = os.ReadFile(filepath.Join(dir, data.LightCurveFile)); err == nil {
			starJSON, err = os.ReadFile(filepath.Join(dir, data.StarFile))
		}
	} else {
		csv, starJSON, err = data.EncodeStarDir(r.Curve, &r.Star)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("sets: star %s of set %s: %w", id, s.Name, err)
	}
	aj, err := json.Marshal(s.Answers[id])
	if err != nil {
		return nil, nil, err
	}
	if d := starDigest(csv, starJSON, aj); d != s.infos[id].Digest {
		return nil, nil, fmt.Errorf("%w: star %s of set %s came out different from when the set was built (digest "+
			"%s…, recorded %s…): the generator is not deterministic here or the set's files were changed; %s",
			ErrMismatch, id, s.Name, d[:12], short(s.infos[id].Digest), rebuildHint(s.Name))
	}
	return csv, starJSON, nil
}

// ValidTimes returns the times (BKJD days) of star id's valid cadences, those whose quality has no bit of
// lc.DefaultQualityMask set, in time order. For a simulated set it uses the generator's calendar alone, which
// is much cheaper than making the star (the build checked that the two agree and that every such cadence has a
// finite flux); for an imported set it reads the star and also requires a finite time and flux.
func (s *Set) ValidTimes(id string) ([]float64, error) {
	if _, ok := s.infos[id]; !ok {
		return nil, s.unknown(id)
	}
	if s.Kind == KindImported {
		r, err := s.result(id)
		if err != nil {
			return nil, err
		}
		out := make([]float64, 0, r.Curve.Len())
		for i := range r.Curve.Time {
			if r.Curve.Good(i, lc.DefaultQualityMask) {
				out = append(out, r.Curve.Time[i])
			}
		}
		return out, nil
	}
	t, q := s.gen.cadences(s.specs[id])
	return validTimes(t, q), nil
}

// AnswersJSON returns the answers as written to answers.json: a JSON array of data.Answer in id order. It is
// meant for copying a public set's answers into a workspace; it refuses for hidden sets.
func (s *Set) AnswersJSON() ([]byte, error) {
	if s.hidden {
		return nil, fmt.Errorf("sets: the answers of hidden set %s stay in the data directory", s.Name)
	}
	b, err := os.ReadFile(filepath.Join(s.dir, answersFile))
	if err != nil {
		return nil, fmt.Errorf("sets: cannot read the answers of set %s: %w", s.Name, err)
	}
	if sha256Hex(b) != s.answersSHA {
		return nil, fmt.Errorf("%w: the answers of set %s changed since it was opened; %s", ErrCorrupt, s.Name,
			rebuildHint(s.Name))
	}
	return b, nil
}
