package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"transitbench/engine/bls"
)

// A star page's figures depend on the star alone (its light curve, the BLS search, the folds at the truth and
// the peak) but for the folds at the latest run's rows, and drawing them is most of a site's build: the search
// and one re-detrended measurement per fold, about 0.3 CPU-seconds a star. The site keeps what it drew of each
// dev star in a cache folder (Options.CacheDir), one file per star: the star's BLS peaks, its light-curve and
// periodogram figures and, per ephemeris folded, the fold figures and the vetting numbers. A later build of the
// star draws only the folds it has not drawn yet (a new run's rows), on the light curve detrended again without
// searching it; a build with every fold in the cache reads the star's light curve not at all.
//
// An entry holds for one program, one data set and one figure size: its key is the SHA-256 of the running
// executable (any change of the code that draws a figure changes it), the set's fingerprint and the star's
// digest (data/sets), and Options.Columns. An entry with another key is drawn again and replaced. Only dev stars
// have pages, so the cache holds nothing of a hidden set.

// cacheVersion changes when the layout of a cache entry does.
const cacheVersion = 1

// maxCachedFolds bounds the folds an entry keeps (the first ones drawn are dropped first): a star's page folds
// at most MaxRowFolds rows, the truth and a peak, and each run may bring new rows.
const maxCachedFolds = 24

// starCache is a cache entry: what the site drew of one star.
type starCache struct {
	Key      cacheKey     `json:"key"`
	Peaks    []bls.Peak   `json:"peaks"`
	Overview []Figure     `json:"overview"` // the light curve (raw and detrended) and the periodogram
	Folds    []cachedFold `json:"folds"`
	byEph    map[string]*cachedFold
	changed  bool
}

// cacheKey says which program drew an entry, from which star of which set, at which size.
type cacheKey struct {
	Version     int
	Program     string
	Fingerprint string // the set's
	Digest      string // the star's
	Columns     int
}

// cachedFold is what a star page shows of one ephemeris: its fold figures and its vetting line.
type cachedFold struct {
	Eph     string // ephKey
	Figures []Figure
	Vetting Vetting
}

// cacheKeyOf is the key star id's entry must have: this program, the dev set as built, s.opt.Columns.
func (s *Site) cacheKeyOf(id string) cacheKey {
	k := cacheKey{Version: cacheVersion, Program: program(), Columns: s.opt.Columns}
	if set, err := s.devSet(); err == nil {
		info, _ := set.Info(id)
		k.Fingerprint, k.Digest = set.Fingerprint, info.Digest
	}
	return k
}

// ephKey names an ephemeris exactly: its label (the figures' captions and titles show it) and its numbers.
func ephKey(label string, periodDays, t0Days, durationDays float64) string {
	return fmt.Sprintf("%s|%x|%x|%x", label, periodDays, t0Days, durationDays)
}

var (
	programOnce sync.Once
	programHash string
)

// program is the SHA-256 of the running executable ("" when it cannot be read: then nothing is cached).
func program() string {
	programOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			programHash = hex.EncodeToString(h.Sum(nil))
		}
	})
	return programHash
}

// cachePath is the file of star id's entry; "" when the site keeps no cache.
func (s *Site) cachePath(id string) string {
	if s.opt.CacheDir == "" || program() == "" {
		return ""
	}
	return filepath.Join(s.opt.CacheDir, id+".gob")
}

// loadCache reads star id's entry; an empty entry with the key when there is none, it cannot be read or its
// key differs.
func (s *Site) loadCache(id string, key cacheKey) *starCache {
	c := &starCache{Key: key, byEph: map[string]*cachedFold{}}
	path := s.cachePath(id)
	if path == "" {
		return c
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var got starCache
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&got) != nil || got.Key != key {
		return c
	}
	got.byEph = map[string]*cachedFold{}
	for i := range got.Folds {
		got.byEph[got.Folds[i].Eph] = &got.Folds[i]
	}
	return &got
}

// fold returns the cached fold at the ephemeris key k.
func (c *starCache) fold(k string) (*cachedFold, bool) {
	f, ok := c.byEph[k]
	return f, ok
}

// addFold keeps a fold drawn, dropping the oldest beyond maxCachedFolds.
func (c *starCache) addFold(f cachedFold) {
	c.Folds = append(c.Folds, f)
	if len(c.Folds) > maxCachedFolds {
		c.Folds = c.Folds[len(c.Folds)-maxCachedFolds:]
	}
	c.byEph = map[string]*cachedFold{}
	for i := range c.Folds {
		c.byEph[c.Folds[i].Eph] = &c.Folds[i]
	}
	c.changed = true
}

// saveCache writes star id's entry when it changed, through a temporary file renamed into place so that a
// reader never sees half an entry (a file cut short does not decode, and is drawn again). A failure to write only costs the next build the drawing.
func (s *Site) saveCache(id string, c *starCache) {
	path := s.cachePath(id)
	if path == "" || !c.changed {
		return
	}
	var b bytes.Buffer // gob, not JSON: a vetting number may be NaN (no odd transit, say)
	if gob.NewEncoder(&b).Encode(c) != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+id+"-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b.Bytes())
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
