package sets

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"transitbench/data"
	"transitbench/data/sim"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/noise"
	"transitbench/engine/stat"
)

// ImportVersion names the importer's output; sets imported by another version must be imported again.
const ImportVersion = "kepler-import-1"

// YearDays is the span of data an imported star keeps: the cadences within YearDays of its first one (SPEC A3's
// one Kepler year of ≈ 372 d, four quarters).
const YearDays = 372.0

// ImportOptions says where an imported set's data come from.
type ImportOptions struct {
	// FITSDir holds Kepler long-cadence files named kplr<9-digit KIC>-<timestamp>_llc.fits, any number of
	// quarters per star.
	FITSDir string
	// Labels is the label table, a CSV file described at Import.
	Labels string
	// Force replaces an existing set of the same name.
	Force bool
	// Progress, when set, is called after every imported star.
	Progress func(Progress)
	// Category, when not "", makes Labels a catalogue (such as the KOI table): rows without a category take
	// this one, FALSE POSITIVE rows (koi_disposition) are left out, and stars without FITS files in FITSDir are
	// left out instead of refused (ImportResult.Unfiled counts them).
	Category string
}

// ImportResult is an imported set and what was left out.
type ImportResult struct {
	Set *Set
	// Unlabelled lists the KIC numbers that have FITS files but no label row; they are not imported.
	Unlabelled []int
	// Unfiled counts the stars of a catalogue (ImportOptions.Category) left out for having no FITS file.
	Unfiled int
}

// Import builds the set name from real Kepler data (SPEC A2, "real data path"): for every star of the label
// table, its quarters in opt.FITSDir are read with data.ReadKeplerFITS (PDCSAP flux normalised by each quarter's
// median, stitched), the cadences within YearDays of the first are kept, and its star directory is stored in the
// set (real light curves cannot be regenerated from a seed). Stars get ids <name>-0000, <name>-0001, … in
// increasing KIC order; the KIC is kept in the set's metadata, not in star.json.
//
// An "injected" row without a period gets a planet injected by the simulator's own injection (sim.InjectPlanet:
// MES uniform in [4, 20], period log-uniform, depth solved so the measured MES matches), seeded with
// StarSeed(sim.Version, name, set seed, index): the public seed for public names, the secret seed for A and B.
// The set's generator is then ImportVersion+"+"+sim.Version, and a new simulator version means importing again.
// An "injected" row with a period describes a signal already in the data.
//
// The label table is CSV with a header row; column names are matched without regard to case, and the KOI
// table's names are accepted as aliases:
//
//	kic (kepid)             Kepler Input Catalog number (required)
//	category                injected | untouched | eb | confirmed | labelled (required unless
//	                        ImportOptions.Category gives it)
//	population              random | false_alarm (injected and untouched stars; default random)
//	period (koi_period)     days
//	t0 (koi_time0bk)        mid-transit or primary eclipse, BKJD days
//	duration (koi_duration) T14 in hours
//	depth (koi_depth)       ppm
//	rp_rs (koi_ror), b (koi_impact), mes, secondary_depth (ppm), counted (true/false, eclipsing binaries),
//	kepmag, teff, logg, radius_rsun, mass_msun (override the FITS header's stellar parameters)
//
// A star takes one row, except a confirmed host and a labelled star, which take one row per planet. Injected,
// untouched and labelled stars are scored (a labelled star's planets as SPEC A5 scores several planets: each
// claimable once; those without a transit with data in the year kept are left out); an eclipsing binary is
// scored when counted; confirmed hosts never. Where mes is not given it is
// measured as SPEC A4 defines it, with a box of the row's depth and duration as the transit model. star.json's
// CDPP values are measured on the year kept (engine/noise.CDPP on the flux flattened by engine/detrend).
// Stellar parameters missing from both the header and the table are written as 0; a missing mass is derived
// from logg and radius, M = 10^(logg − 4.438) · R² in solar units.
func Import(home, name string, opt ImportOptions) (res *ImportResult, err error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	release, err := lockBuild(home, lockKey(name))
	if err != nil {
		return nil, err
	}
	defer release()
	if _, err := os.Stat(filepath.Join(setDir(home, name), manifestFile)); err == nil && !opt.Force {
		return nil, fmt.Errorf("sets: set %s already exists in %s; give --force to replace it", name, home)
	}
	labels, err := readLabels(opt.Labels, opt.Category)
	if err != nil {
		return nil, err
	}
	files, err := fitsByKIC(opt.FITSDir)
	if err != nil {
		return nil, err
	}
	res = &ImportResult{}
	if opt.Category != "" {
		for kic := range labels {
			if len(files[kic]) == 0 {
				delete(labels, kic)
				res.Unfiled++
			}
		}
		if len(labels) == 0 {
			return nil, fmt.Errorf("sets: no star of the label table has a kplr*_llc.fits file in %s", opt.FITSDir)
		}
	}
	kics, err := labelledKICs(labels, files, opt.FITSDir, res)
	if err != nil {
		return nil, err
	}

	hidden := IsHidden(name)
	dirPerm, filePerm := perms(hidden)
	tmp, err := makeImportDir(home, name, dirPerm)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp) // a failed import leaves nothing behind
		}
	}()

	width := idWidth(name, len(kics))
	m := manifest{Format: manifestFormat, Set: name, Kind: KindImported, Generator: ImportVersion, Hidden: hidden,
		Stars: len(kics), IDWidth: width, Source: fmt.Sprintf("fits=%s labels=%s", abs(opt.FITSDir), abs(opt.Labels))}
	imp := starImport{tmp: tmp, set: name, dirPerm: dirPerm, filePerm: filePerm}
	if injects(labels) {
		m.Generator = importWithSim
		if imp.setSeed, err = importSeed(home, name, &m); err != nil {
			return nil, err
		}
	}
	infos := make([]StarInfo, len(kics))
	answers := make([]data.Answer, len(kics))
	for i, kic := range kics {
		if infos[i], answers[i], err = imp.star(StarID(name, width, i), i, kic, files[kic], labels[kic]); err != nil {
			return nil, err
		}
		m.Composition.add(answers[i].Category)
		if opt.Progress != nil {
			opt.Progress(Progress{Set: name, Done: i + 1, Total: len(kics)})
		}
	}
	if err := writeSet(home, tmp, m, infos, answers, nil, dirPerm, filePerm); err != nil {
		return nil, err
	}
	s, err := load(home, name, nil)
	if err != nil {
		return nil, err
	}
	res.Set = s
	return res, nil
}

// labelledKICs returns the KIC numbers of the label table in order, and records in res.Unlabelled, in order,
// those of the FITS files the table does not name. Every KIC of the table needs a file.
func labelledKICs(labels map[int][]labelRow, files map[int][]string, fitsDir string, res *ImportResult) ([]int, error) {
	for kic := range files {
		if _, ok := labels[kic]; !ok {
			res.Unlabelled = append(res.Unlabelled, kic)
		}
	}
	slices.Sort(res.Unlabelled)
	kics := make([]int, 0, len(labels))
	var missing []string
	for kic := range labels {
		kics = append(kics, kic)
		if len(files[kic]) == 0 {
			missing = append(missing, strconv.Itoa(kic))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("sets: the label table names KIC %s, which has no kplr*_llc.fits file in %s; add the "+
			"files or remove the rows", strings.Join(missing, ", "), fitsDir)
	}
	slices.Sort(kics)
	return kics, nil
}

// makeImportDir creates an empty build directory for the imported set name, with its stars directory.
func makeImportDir(home, name string, dirPerm os.FileMode) (string, error) {
	if err := os.MkdirAll(filepath.Join(home, "sets"), 0o755); err != nil {
		return "", fmt.Errorf("sets: cannot create the sets directory: %w", err)
	}
	tmp := buildDir(home, name)
	if err := os.RemoveAll(tmp); err != nil {
		return "", fmt.Errorf("sets: cannot clear %s: %w", tmp, err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, starsDir), dirPerm); err != nil {
		return "", fmt.Errorf("sets: cannot create the build directory: %w", err)
	}
	os.Chmod(tmp, dirPerm)
	os.Chmod(filepath.Join(tmp, starsDir), dirPerm)
	return tmp, nil
}

// starImport is what importing one star needs to know of its set.
type starImport struct {
	tmp, set          string // the build directory and the set's name
	setSeed           []byte // the seed of injected planets, when the table asks for them
	dirPerm, filePerm os.FileMode
}

// star imports star i (KIC kic, from its FITS files and label rows) as star id: it reads the light curve,
// injects the planet the labels ask for, and writes the star directory into the build directory.
func (imp starImport) star(id string, i, kic int, files []string, rows []labelRow) (StarInfo, data.Answer, error) {
	c, st, err := importCurve(files, rows[0])
	if err != nil {
		return StarInfo{}, data.Answer{}, err
	}
	st.ID = id
	a, err := labelAnswer(id, rows, c)
	if err != nil {
		return StarInfo{}, data.Answer{}, err
	}
	if a.Category == data.CategoryInjected && a.Planet == nil {
		p, err := sim.InjectPlanet(c, *st, StarSeed(sim.Version, imp.set, imp.setSeed, i), sim.DefaultKnobs())
		if err != nil {
			return StarInfo{}, data.Answer{}, fmt.Errorf("sets: injecting a planet into KIC %d: %w", kic, err)
		}
		a.Planet = p
	}
	csvb, sj, err := data.EncodeStarDir(c, st)
	if err != nil {
		return StarInfo{}, data.Answer{}, fmt.Errorf("sets: encoding KIC %d: %w", kic, err)
	}
	aj, err := json.Marshal(a)
	if err != nil {
		return StarInfo{}, data.Answer{}, err
	}
	sd := filepath.Join(imp.tmp, starsDir, id)
	if err := os.Mkdir(sd, imp.dirPerm); err != nil {
		return StarInfo{}, data.Answer{}, fmt.Errorf("sets: cannot write star %s: %w", id, err)
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{data.LightCurveFile, csvb}, {data.StarFile, sj}} {
		if err := writeFileSync(filepath.Join(sd, f.name), f.b, imp.filePerm); err != nil {
			return StarInfo{}, data.Answer{}, fmt.Errorf("sets: cannot write star %s: %w", id, err)
		}
	}
	valid := 0
	for j := range c.Time {
		if c.Good(j, lc.DefaultQualityMask) {
			valid++
		}
	}
	info := StarInfo{ID: id, Index: i, Star: *st, Cadences: c.Len(), ValidCadences: valid,
		Digest: starDigest(csvb, sj, aj), KIC: kic}
	return info, a, nil
}

// importWithSim is the generator of an imported set with injected planets.
var importWithSim = ImportVersion + "+" + sim.Version

// injects reports whether the label table asks for an injection: an injected star without a period.
func injects(labels map[int][]labelRow) bool {
	for _, rows := range labels {
		if rows[0].str("category") == data.CategoryInjected && !stat.Finite(rows[0].num("period")) {
			return true
		}
	}
	return false
}

// importSeed returns the set seed for injections into imported set name, recording it (public) or its check
// (hidden) in m.
func importSeed(home, name string, m *manifest) ([]byte, error) {
	if !m.Hidden {
		m.Seed = PublicSeed
		return publicSeed(), nil
	}
	seed, err := hiddenSeedForBuild(home, name, false)
	if err != nil {
		return nil, err
	}
	m.SeedCheck = seedCheck(seed)
	return seed, nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

var kplrName = regexp.MustCompile(`^kplr(\d{9})-\d+_llc\.fits$`)

// fitsByKIC lists the Kepler long-cadence files of dir by KIC number, each list sorted by name (by time).
func fitsByKIC(dir string) (map[int][]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("sets: cannot read the FITS directory: %w", err)
	}
	out := map[int][]string{}
	for _, e := range ents {
		mm := kplrName.FindStringSubmatch(e.Name())
		if mm == nil || e.IsDir() {
			continue
		}
		kic, _ := strconv.Atoi(mm[1])
		out[kic] = append(out[kic], filepath.Join(dir, e.Name()))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sets: %s holds no Kepler long-cadence file (kplr<KIC>-<time>_llc.fits)", dir)
	}
	for _, fs := range out {
		slices.Sort(fs)
	}
	return out, nil
}

// importCurve reads a star's quarters, keeps its first year and describes the star.
func importCurve(files []string, row labelRow) (*lc.LightCurve, *data.Star, error) {
	full, err := data.ReadKeplerFITS(files...)
	if err != nil {
		return nil, nil, err
	}
	_, h, err := data.ReadKeplerFITSFile(files[0])
	if err != nil {
		return nil, nil, err
	}
	c := firstYear(full)

	pick := func(label, header float64) float64 {
		switch {
		case stat.Finite(label):
			return label
		case stat.Finite(header):
			return header
		}
		return 0
	}
	st := &data.Star{Kepmag: pick(row.num("kepmag"), h.Kepmag), Teff: pick(row.num("teff"), h.Teff),
		Logg: pick(row.num("logg"), h.Logg), RadiusRsun: pick(row.num("radius_rsun"), h.RadiusRsun),
		MassMsun: row.num("mass_msun"), CadenceDays: lc.CadenceDays, TimeSystem: "BKJD"}
	if !stat.Finite(st.MassMsun) {
		st.MassMsun = 0
		if st.Logg > 0 && st.RadiusRsun > 0 {
			st.MassMsun = math.Round(math.Pow(10, st.Logg-4.438)*st.RadiusRsun*st.RadiusRsun*1000) / 1000
		}
	}
	t, flat := flattened(c)
	st.CDPPppm = map[string]float64{}
	for _, hrs := range []float64{3, 6, 12} {
		v := noise.CDPP(t, flat, hrs)
		if !stat.Finite(v) {
			v = 0
		}
		st.CDPPppm[strconv.FormatFloat(hrs, 'f', 1, 64)] = math.Round(v*10) / 10
	}
	return c, st, nil
}

// firstYear returns the cadences of c (sorted by time) within YearDays of its first one: t < t₀ + YearDays.
func firstYear(c *lc.LightCurve) *lc.LightCurve {
	n := 0
	for n < c.Len() && c.Time[n] < c.Time[0]+YearDays {
		n++
	}
	return &lc.LightCurve{Time: c.Time[:n], Flux: c.Flux[:n], FluxErr: c.FluxErr[:n], Quality: c.Quality[:n]}
}

// flattened returns the times of c and its flux flattened by detrend.Flatten, NaN where a cadence is not valid.
func flattened(c *lc.LightCurve) (t, flat []float64) {
	f := make([]float64, c.Len())
	for i := range f {
		f[i] = math.NaN()
		if c.Good(i, lc.DefaultQualityMask) {
			f[i] = c.Flux[i]
		}
	}
	flat, _ = detrend.Flatten(c.Time, f, detrend.Options{})
	return c.Time, flat
}

// labelRow is one row of the label table, by lower-case column name (aliases resolved).
type labelRow struct {
	kic, line int
	cols      map[string]string
}

func (r labelRow) str(k string) string { return strings.TrimSpace(r.cols[k]) }

// num returns a numeric column, NaN when empty or absent.
func (r labelRow) num(k string) float64 {
	s := r.str(k)
	if s == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// labelAliases maps the KOI table's column names to the label table's.
var labelAliases = map[string]string{"kepid": "kic", "koi_period": "period", "period_days": "period",
	"koi_time0bk": "t0", "t0_days": "t0", "koi_duration": "duration", "duration_hours": "duration",
	"koi_depth": "depth", "depth_ppm": "depth", "koi_ror": "rp_rs", "koi_impact": "b"}

var numericLabels = []string{"period", "t0", "duration", "depth", "rp_rs", "b", "mes", "secondary_depth", "kepmag",
	"teff", "logg", "radius_rsun", "mass_msun"}

// maxLabelBytes bounds the label table: the whole KOI table (9,564 rows, 150 columns) is about 10 MB.
const maxLabelBytes = 256 << 20

// readLabels reads the label table at path, grouping rows by KIC (parseLabels; category, when not "", is the
// category of rows that name none).
func readLabels(path, category string) (map[int][]labelRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sets: cannot read the label table: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxLabelBytes {
		return nil, fmt.Errorf("sets: label table %s is %d bytes, more than %d; give a CSV of one row per star", path, fi.Size(), maxLabelBytes)
	}
	return parseLabelsAs(f, path, category)
}

// parseLabels reads a label table (described at Import) from r, grouping rows by KIC in file order; path labels
// errors. Every row has a positive kic and a lower-case category; every numeric column that is not empty holds
// a finite number (an unknown value is left empty, never "nan").
func parseLabels(r io.Reader, path string) (map[int][]labelRow, error) {
	return parseLabelsAs(r, path, "")
}

// parseLabelsAs is parseLabels with a default category: when category is not "", the table may lack the
// category column, rows with an empty category take it, and rows whose koi_disposition is FALSE POSITIVE are
// left out (a catalogue such as the KOI table).
func parseLabelsAs(r io.Reader, path, category string) (map[int][]labelRow, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("sets: label table %s has no header row: %v", path, err)
	}
	names := make([]string, len(head))
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		if a, ok := labelAliases[h]; ok {
			h = a
		}
		names[i] = h
	}
	if !slices.Contains(names, "kic") || (category == "" && !slices.Contains(names, "category")) {
		return nil, fmt.Errorf("sets: label table %s needs the columns kic and category (it has %q)", path,
			truncateList(head, 20))
	}
	out := map[int][]labelRow{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// The error (a *csv.ParseError) gives the line; FieldPos has no record to point into after one.
			return nil, fmt.Errorf("sets: label table %s: %v", path, err)
		}
		line, _ := cr.FieldPos(0)
		r := labelRow{line: line, cols: map[string]string{}}
		for i, v := range rec {
			if i < len(names) {
				r.cols[names[i]] = v
			}
		}
		kic, err := strconv.Atoi(r.str("kic"))
		if err != nil || kic <= 0 {
			return nil, fmt.Errorf("sets: label table %s, line %d: kic %q is not a positive number", path, line, truncateField(r.str("kic")))
		}
		r.kic = kic
		r.cols["category"] = strings.ToLower(r.str("category"))
		if category != "" && r.cols["category"] == "" {
			r.cols["category"] = category
		}
		if category != "" && strings.EqualFold(r.str("koi_disposition"), "FALSE POSITIVE") {
			continue
		}
		for _, k := range numericLabels {
			if s := r.str(k); s != "" {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("sets: label table %s, line %d: %s %q is not a finite number; leave the field empty when it is unknown",
						path, line, k, truncateField(s))
				}
			}
		}
		out[kic] = append(out[kic], r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sets: label table %s has no rows", path)
	}
	return out, nil
}

// truncateField cuts a field quoted in an error to 40 bytes (on a UTF-8 boundary).
func truncateField(s string) string { return clipBytes(s, 40) }

// truncateList joins at most n names for an error, cut to 200 bytes in all.
func truncateList(names []string, n int) string {
	s := strings.Join(names[:min(n, len(names))], ", ")
	if len(names) > n {
		s += fmt.Sprintf(", … (%d columns)", len(names))
	}
	return clipBytes(s, 200)
}

// clipBytes cuts s to at most n bytes on a UTF-8 boundary, with "…" appended when cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
