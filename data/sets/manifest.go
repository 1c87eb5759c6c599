package sets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"transitbench/data"
)

// Files of a built set, in <home>/sets/<name>/.
const (
	manifestFile = "manifest.json" // what the set is: generator, seed (or its check), composition, checksums
	answersFile  = "answers.json"  // the answers, a JSON array of data.Answer in id order
	starsFile    = "stars.json"    // per-star metadata, a JSON array of StarInfo in id order
	starsDir     = "stars"         // imported sets only: one star directory per star
)

// Files of a build in progress, in <home>/sets/.build-<name>/.
const (
	buildFile   = "build.json"    // the manifest the build aims at, without results
	journalFile = "journal.jsonl" // one line per finished star
)

// manifestFormat is the version of the on-disk layout; a set written in another layout must be rebuilt.
const manifestFormat = 1

// Kinds of set.
const (
	KindSimulated = "simulated" // made by the simulator from seeds; stars regenerated on demand
	KindImported  = "imported"  // made from Kepler FITS files; star directories stored
)

// Errors of opening a set; test with errors.Is.
var (
	// ErrNotBuilt: the set has not been built (or imported) in this data directory.
	ErrNotBuilt = errors.New("sets: set not built")
	// ErrCorrupt: a file of a built set is unreadable, malformed or fails its checksum.
	ErrCorrupt = errors.New("sets: set files are damaged")
	// ErrStale: the set was built by another generator version or in another layout.
	ErrStale = errors.New("sets: set was built by another generator version")
	// ErrBadName: a set name that cannot name a set.
	ErrBadName = errors.New("sets: not a set name")
	// ErrMismatch: the set on disk is not the one asked for (composition, size or seed), or a star regenerated
	// differently from its recorded digest.
	ErrMismatch = errors.New("sets: set does not match")
)

// manifest is manifest.json: what a set is and the checksums of its other files. It holds no time stamp, so
// the same set gives the same bytes on every machine.
type manifest struct {
	Format      int         `json:"format"`
	Set         string      `json:"set"`
	Kind        string      `json:"kind"`
	Generator   string      `json:"generator"`
	Hidden      bool        `json:"hidden"`
	Seed        string      `json:"seed,omitempty"`       // public sets: the set seed in hex
	SeedCheck   string      `json:"seed_check,omitempty"` // hidden sets: seedCheck of the secret seed
	Composition Composition `json:"composition"`
	Stars       int         `json:"stars"`
	IDWidth     int         `json:"id_width"`
	Source      string      `json:"source,omitempty"` // imported sets: the FITS directory and label table
	// TrainPlanet: the train pool's departure from the default planet knobs (TrainPlanet); nil for other sets.
	TrainPlanet TrainPlanetKnobs `json:"train_planet,omitzero"`

	Fingerprint   string `json:"fingerprint,omitempty"`
	AnswersSHA256 string `json:"answers_sha256,omitempty"`
	StarsSHA256   string `json:"stars_sha256,omitempty"`
}

// StarInfo is what a set records about one star besides its answer: nothing in it reveals the category.
// Digest is the hex SHA-256 of the star's star-directory bytes and answer (see Fingerprint).
type StarInfo struct {
	ID            string    `json:"id"`
	Index         int       `json:"index"`
	Star          data.Star `json:"star"`
	Cadences      int       `json:"cadences"`
	ValidCadences int       `json:"valid_cadences"` // finite time and flux, no bit of lc.DefaultQualityMask
	Digest        string    `json:"digest"`
	KIC           int       `json:"kic,omitempty"` // imported sets: the Kepler Input Catalog number
}

// setDir returns the directory of a built set; buildDir that of its build in progress.
func setDir(home, name string) string   { return filepath.Join(home, "sets", name) }
func buildDir(home, name string) string { return filepath.Join(home, "sets", ".build-"+name) }

// rebuildHint tells how to rebuild a set.
func rebuildHint(name string) string {
	return fmt.Sprintf("rebuild it with 'transitbench data build --set %s --force'", name)
}

// readManifest reads and checks the manifest of the set in dir.
func readManifest(dir, name string) (*manifest, error) {
	path := filepath.Join(dir, manifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s has no %s", ErrNotBuilt, dir, manifestFile)
		}
		return nil, fmt.Errorf("%w: cannot read %s: %v", ErrCorrupt, path, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s is not valid JSON (%v); %s", ErrCorrupt, path, err, rebuildHint(name))
	}
	switch {
	case m.Format != manifestFormat:
		return nil, fmt.Errorf("%w: %s has layout %d, this program reads layout %d; %s",
			ErrStale, path, m.Format, manifestFormat, rebuildHint(name))
	case m.Set != name:
		return nil, fmt.Errorf("%w: %s describes set %q, not %q; %s", ErrCorrupt, path, m.Set, name, rebuildHint(name))
	case m.Kind != KindSimulated && m.Kind != KindImported:
		return nil, fmt.Errorf("%w: %s has unknown kind %q; %s", ErrCorrupt, path, m.Kind, rebuildHint(name))
	case m.Stars <= 0 || m.Fingerprint == "" || m.AnswersSHA256 == "" || m.StarsSHA256 == "":
		return nil, fmt.Errorf("%w: %s is incomplete (no stars, fingerprint or checksums); %s",
			ErrCorrupt, path, rebuildHint(name))
	}
	return &m, nil
}

// readChecked reads a file of a built set and checks its SHA-256 against the manifest's.
func readChecked(dir, file, wantHex, name string) ([]byte, error) {
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read %s: %v; %s", ErrCorrupt, path, err, rebuildHint(name))
	}
	if got := sha256Hex(b); got != wantHex {
		return nil, fmt.Errorf("%w: %s fails its checksum (SHA-256 %s…, manifest says %s…): the file was changed "+
			"or damaged; %s", ErrCorrupt, path, got[:12], short(wantHex), rebuildHint(name))
	}
	return b, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// encodeJSON returns v as JSON indented by one space per level, with a final newline.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeFileSync writes b to path with mode perm and flushes it to disk.
func writeFileSync(path string, b []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// perms returns the directory and file modes of a set: private for hidden sets.
func perms(hidden bool) (dir, file os.FileMode) {
	if hidden {
		return 0o700, 0o600
	}
	return 0o755, 0o644
}

// fingerprint returns the set fingerprint from the stars' ids and digests in id order: the hex SHA-256 of the
// lines "<id> <digest>\n". A star's digest is SHA-256 over the length-prefixed bytes of its lightcurve.csv and
// star.json (exactly as data.WriteStarDir writes them) and its answer as compact JSON (see starDigest).
func fingerprint(infos []StarInfo) string {
	h := sha256.New()
	for _, in := range infos {
		fmt.Fprintf(h, "%s %s\n", in.ID, in.Digest)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// starDigest returns the hex digest of one star: SHA-256 over the length-prefixed (8 bytes, big-endian) label
// "transitbench star", lightcurve.csv, star.json and the answer's compact JSON.
func starDigest(csv, starJSON, answerJSON []byte) string {
	h := hashKey("transitbench star", csv, starJSON, answerJSON)
	return hex.EncodeToString(h[:])
}

// validName reports whether name can name a set: a letter, then up to 31 letters, digits, '_' or '-'; "all"
// and names starting with "mini" are reserved.
func validName(name string) error {
	ok := len(name) >= 1 && len(name) <= 32 && isLetter(name[0])
	for i := 1; ok && i < len(name); i++ {
		c := name[i]
		ok = isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if !ok || name == "all" || strings.HasPrefix(name, "mini") {
		return fmt.Errorf("%w: %q; use dev, A, B, train, or a name of letters, digits, "+
			"'_' and '-' starting with a letter (not \"all\", not starting with \"mini\")", ErrBadName, name)
	}
	return nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
