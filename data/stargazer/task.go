package stargazer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"transitbench/engine/rv"
	"transitbench/engine/stat"
)

// Task is one RV task as stored in the Stargazer JSON format. Field names follow the published files.
type Task struct {
	TaskID            string         `json:"task_id"`
	TruthDifficulty   int            `json:"truth_difficulty"`
	Observations      Observations   `json:"observations"`
	Config            Config         `json:"config"`
	DifficultyDetails map[string]any `json:"difficulty_details,omitempty"`
	Meta              map[string]any `json:"meta,omitempty"`

	// Real is true for tasks built from published observations (file real_*.json, or meta.rv_semantics
	// "rv_only"); they are used as stored.
	Real bool `json:"-"`
	// Imported is true for tasks imported from the user's own RV files (meta.source "imported", or read
	// from the user task folder): they have no truth and their tier is TierUser.
	Imported bool `json:"-"`
	// Converted is true once the load-time conversion (Convert) has been applied.
	Converted bool `json:"-"`
}

// Observations is the RV time series: times in days (absolute JD for real tasks), velocities and 1σ errors in
// m/s, and each point's instrument label.
type Observations struct {
	TimesDays   []float64 `json:"times_days"`
	RVsMS       []float64 `json:"rvs_ms"`
	SigmasMS    []float64 `json:"sigmas_ms"`
	Instruments []string  `json:"instruments"`
}

// Config is the task's generating configuration, truth included.
type Config struct {
	Engine               string         `json:"engine,omitempty"`
	Instruments          []Instrument   `json:"instruments,omitempty"`
	IntegratorPreference string         `json:"integrator_preference,omitempty"`
	LOSAxis              string         `json:"los_axis,omitempty"`
	Metadata             map[string]any `json:"metadata,omitempty"`
	Noise                Noise          `json:"noise"`
	Planets              []TruthPlanet  `json:"planets"`
	Schedule             *Schedule      `json:"schedule,omitempty"`
	Star                 Star           `json:"star"`
}

// Instrument is one spectrograph's settings in the generator.
type Instrument struct {
	GammaMS       float64 `json:"gamma_ms"`
	Label         string  `json:"label"`
	SigmaJitterMS float64 `json:"sigma_jitter_ms"`
	SigmaWhiteMS  float64 `json:"sigma_white_ms"`
}

// Schedule repeats the observation times and instruments in the generator's configuration.
type Schedule struct {
	Instruments []string  `json:"instruments"`
	TimesDays   []float64 `json:"times_days"`
}

// Star holds the host's mass (M☉) and systemic velocity (m/s).
type Star struct {
	MStarSun float64 `json:"M_star_sun"`
	GammaMS  float64 `json:"gamma_ms"`
}

// Noise is the generator's noise model: white noise σ_white (the quoted errors), extra jitter, and an optional
// quasi-periodic rotation Gaussian process.
type Noise struct {
	SigmaWhiteMS  float64 `json:"sigma_white_ms"`
	SigmaJitterMS float64 `json:"sigma_jitter_ms"`
	GP            GP      `json:"gp"`
}

// GP is celerite2's RotationTerm: amplitude σ (m/s), rotation period (days), Q0, dQ and the weight f of the
// half-period mode.
type GP struct {
	Q0         float64 `json:"Q0"`
	DQ         float64 `json:"dQ"`
	F          float64 `json:"f"`
	PeriodDays float64 `json:"period_days"`
	SigmaMS    float64 `json:"sigma_ms"`
	UseGP      bool    `json:"use_gp"`
}

// TruthPlanet is a planet of the truth: period (days), minimum mass (Jupiter masses), eccentricity, the star's
// argument of periastron ω, node Ω, mean longitude l and inclination i (radians).
type TruthPlanet struct {
	OmegaNodeRad float64  `json:"Omega_rad"`
	PDays        float64  `json:"P_days"`
	E            float64  `json:"e"`
	IncRad       float64  `json:"inc_rad"`
	LRad         float64  `json:"l_rad"`
	MSinIMJup    float64  `json:"m_sin_i_mjup"`
	MTrueMJup    *float64 `json:"m_true_mjup"`
	OmegaRad     float64  `json:"omega_rad"`
}

// Errors of the task reader.
var (
	ErrNoTasks     = errors.New("stargazer: no task files found")
	ErrUnknownTask = errors.New("stargazer: unknown task")
)

// Limits of a usable task, each far beyond the 120 published tasks (times 0–943 d synthetic, JD ≈ 2.45·10⁶
// real; |RV| ≤ 9,400 m/s; σ 0.1–23 m/s; P 1.2–5,218 d; M★ 0.31–1.3 M☉; true masses ≤ 140 M_J):
//   - MaxTaskBytes bounds a task file (the published ones are 4–60 kB);
//   - MaxObservations bounds the series (the published ones hold ≤ 1,000 points);
//   - |time| ≤ MaxTimeDays (10⁷ d: any JD of this era), |RV| and σ ≤ MaxVelocityMS (10⁷ m/s, 3 % of c),
//     σ ≥ MinSigmaMS (1 mm/s; the best spectrographs reach 0.1 m/s), so that every χ² term stays finite;
//   - 0 < P ≤ MaxPeriodDays (10⁶ d), 0 ≤ e < 1, 0 < i ≤ π, m sin i > 0, the true mass m sin i / sin i (or
//     m_true_mjup) ≤ MaxTrueMassMJup (10⁴ M_J, ten solar masses), 0 < M★ ≤ MaxStarMassSun (10³ M☉).
const (
	MaxTaskBytes    = 64 << 20
	MaxObservations = 1_000_000
	MaxTimeDays     = 1e7
	MaxVelocityMS   = 1e7
	MinSigmaMS      = 1e-3
	MaxPeriodDays   = 1e6
	MaxTrueMassMJup = 1e4
	MaxStarMassSun  = 1e3
)

// ErrBadTask wraps every problem with a task file's content.
var ErrBadTask = errors.New("stargazer: bad task file")

// rawTask mirrors the fields of a task that Parse checks, with pointers, so that a JSON null or a missing
// number is told apart from 0 (encoding/json reads null into a float64 as 0 and leaves it unchanged).
type rawTask struct {
	Observations rawObservations `json:"observations"`
	Config       struct {
		Star struct {
			MStarSun *float64 `json:"M_star_sun"`
		} `json:"star"`
		Planets []rawPlanet `json:"planets"`
	} `json:"config"`
}

// rawObservations mirrors the observations of a task, as rawTask does.
type rawObservations struct {
	TimesDays   []*float64 `json:"times_days"`
	RVsMS       []*float64 `json:"rvs_ms"`
	SigmasMS    []*float64 `json:"sigmas_ms"`
	Instruments []*string  `json:"instruments"`
}

// rawPlanet mirrors one truth planet of a task, as rawTask does.
type rawPlanet struct {
	OmegaNodeRad *float64 `json:"Omega_rad"`
	PDays        *float64 `json:"P_days"`
	E            *float64 `json:"e"`
	IncRad       *float64 `json:"inc_rad"`
	LRad         *float64 `json:"l_rad"`
	MSinIMJup    *float64 `json:"m_sin_i_mjup"`
	OmegaRad     *float64 `json:"omega_rad"`
}

// Parse decodes one task from JSON and validates it; it does not convert. Every problem gives one line
// wrapping ErrBadTask that names the file, the field and the value: a JSON null or a missing value where a number
// is needed (null is never read as 0), series of different lengths, a time, RV or σ that is not finite or
// beyond the limits above, σ ≤ 0, and truth planets with P ≤ 0, e outside [0, 1), i outside (0, π], a
// non-positive m sin i or an implausible true mass. Times are kept in file order (real tasks are not always
// sorted; t_ref is the first element as stored), so they need not be sorted. An empty instruments list means
// one instrument for every point.
func Parse(b []byte, name string) (*Task, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadTask, name, fmt.Sprintf(format, a...))
	}
	if len(b) > MaxTaskBytes {
		return nil, bad("%d bytes, more than %d; this is not a task file", len(b), MaxTaskBytes)
	}
	var t Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, bad("not a task file: %v", err)
	}
	var raw rawTask
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, bad("not a task file: %v", err)
	}
	n := len(raw.Observations.TimesDays)
	if err := checkObservations(raw.Observations, bad); err != nil {
		return nil, err
	}
	if err := checkNum(bad, "config.star.M_star_sun", raw.Config.Star.MStarSun, 0, MaxStarMassSun, true); err != nil {
		return nil, err
	}
	for k, p := range raw.Config.Planets {
		if err := checkPlanet(bad, k, p, t.Config.Planets[k]); err != nil {
			return nil, err
		}
	}
	obs := t.Observations
	if len(obs.Instruments) == 0 {
		obs.Instruments = make([]string, n)
		for i := range obs.Instruments {
			obs.Instruments[i] = "instA"
		}
		t.Observations.Instruments = obs.Instruments
	}
	if _, err := rv.NewData(obs.TimesDays, obs.RVsMS, obs.SigmasMS, obs.Instruments); err != nil {
		return nil, bad("%v", err)
	}
	if t.TaskID == "" {
		t.TaskID = strings.TrimSuffix(filepath.Base(name), ".json")
	}
	sem, _ := t.Meta["rv_semantics"].(string)
	t.Real = strings.HasPrefix(t.TaskID, "real_") || sem == "rv_only"
	if src, _ := t.Meta["source"].(string); src == SourceImported {
		t.Real, t.Imported = true, true
	}
	return &t, nil
}

// checkNum checks that the number field x is given and lies in [lo, hi], or (lo, hi] when loOpen; bad makes
// the error.
func checkNum(bad func(string, ...any) error, field string, x *float64, lo, hi float64, loOpen bool) error {
	switch {
	case x == nil:
		return bad("%s is null or missing; give a number", field)
	case math.IsNaN(*x) || math.IsInf(*x, 0) || *x > hi || *x < lo || loOpen && *x == lo:
		open := "["
		if loOpen {
			open = "("
		}
		return bad("%s = %g must lie in %s%g, %g]", field, *x, open, lo, hi)
	}
	return nil
}

// checkObservations checks the series of a task: present, not too long, of equal lengths, every number given
// and within its limits, every instrument label given; bad makes the error.
func checkObservations(o rawObservations, bad func(string, ...any) error) error {
	n := len(o.TimesDays)
	if n == 0 {
		return bad("observations.times_days is empty or missing; a task needs observations")
	}
	if n > MaxObservations {
		return bad("observations.times_days holds %d points, more than %d", n, MaxObservations)
	}
	if len(o.RVsMS) != n || len(o.SigmasMS) != n || len(o.Instruments) != 0 && len(o.Instruments) != n {
		return bad("observations: times_days has %d points, rvs_ms %d, sigmas_ms %d, instruments %d; every point needs a time, a velocity, an error (and an instrument when instruments is given)",
			n, len(o.RVsMS), len(o.SigmasMS), len(o.Instruments))
	}
	for i := range n {
		if err := checkNum(bad, fmt.Sprintf("observations.times_days[%d]", i), o.TimesDays[i], -MaxTimeDays, MaxTimeDays, false); err != nil {
			return err
		}
		if err := checkNum(bad, fmt.Sprintf("observations.rvs_ms[%d]", i), o.RVsMS[i], -MaxVelocityMS, MaxVelocityMS, false); err != nil {
			return err
		}
		if err := checkNum(bad, fmt.Sprintf("observations.sigmas_ms[%d]", i), o.SigmasMS[i], MinSigmaMS, MaxVelocityMS, false); err != nil {
			return err
		}
		if len(o.Instruments) > 0 && o.Instruments[i] == nil {
			return bad("observations.instruments[%d] is null; give an instrument label", i)
		}
	}
	return nil
}

// checkPlanet checks truth planet k, as given (p) and as decoded (tp): every number given and within its
// limits, a bound orbit and a plausible true mass; bad makes the error.
func checkPlanet(bad func(string, ...any) error, k int, p rawPlanet, tp TruthPlanet) error {
	f := func(field string) string { return fmt.Sprintf("config.planets[%d].%s", k, field) }
	checks := []error{
		checkNum(bad, f("P_days"), p.PDays, 0, MaxPeriodDays, true),
		checkNum(bad, f("m_sin_i_mjup"), p.MSinIMJup, 0, MaxTrueMassMJup, true),
		checkNum(bad, f("inc_rad"), p.IncRad, 0, math.Pi, true),
		checkNum(bad, f("omega_rad"), p.OmegaRad, -MaxTimeDays, MaxTimeDays, false),
		checkNum(bad, f("Omega_rad"), p.OmegaNodeRad, -MaxTimeDays, MaxTimeDays, false),
		checkNum(bad, f("l_rad"), p.LRad, -MaxTimeDays, MaxTimeDays, false),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if p.E == nil {
		return bad("%s is null or missing; give a number", f("e"))
	}
	if e := *p.E; !(e >= 0 && e < 1) {
		return bad("%s = %g must lie in [0, 1) (a bound orbit)", f("e"), e)
	}
	mTrue := tp.MSinIMJup / math.Sin(tp.IncRad)
	if tp.MTrueMJup != nil {
		if m := *tp.MTrueMJup; !(m > 0 && m <= MaxTrueMassMJup) {
			return bad("%s = %g must lie in (0, %g] M_J or be null", f("m_true_mjup"), m, float64(MaxTrueMassMJup))
		}
		mTrue = *tp.MTrueMJup
	}
	if !(mTrue <= MaxTrueMassMJup) {
		return bad("config.planets[%d]: the true mass m sin i / sin i = %g M_J is above %g M_J (sin i = %.3g); check inc_rad and m_sin_i_mjup",
			k, mTrue, float64(MaxTrueMassMJup), math.Sin(tp.IncRad))
	}
	return nil
}

// ReadFile reads one task file, validates it (Parse) and applies the load-time conversion to synthetic tasks.
func ReadFile(path string) (*Task, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("stargazer: cannot read task: %w", err)
	}
	if fi.Size() > MaxTaskBytes {
		return nil, fmt.Errorf("%w: %s: %d bytes, more than %d; this is not a task file", ErrBadTask, path, fi.Size(), MaxTaskBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stargazer: cannot read task: %w", err)
	}
	t, err := Parse(b, path)
	if err != nil {
		return nil, err
	}
	if err := t.Convert(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadTask, path, err)
	}
	return t, nil
}

// Skipped is a task file LoadDir left out, and why.
type Skipped struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// LoadDir reads every task under dir: the files *.json in dir itself and in its subfolders synthetic/ and
// real/ (the published layout). Synthetic tasks are converted. Tasks are sorted by tier, then difficulty,
// then id. A file that does not read, parse, validate or convert, or whose task id repeats an earlier one, is
// left out and listed in skipped (in file order) so the other tasks still load; callers show the list as
// warnings. The error is ErrNoTasks when no file is found, or the first file's problem when none loads.
func LoadDir(dir string) (tasks []*Task, skipped []Skipped, err error) {
	var paths []string
	for _, sub := range []string{".", "synthetic", "real"} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, "*.json"))
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%w in %s: point --tasks (or $TRANSITBENCH_STARGAZER) at the folder holding synthetic/ and real/, or generate tasks with 'transitbench rv generate'", ErrNoTasks, dir)
	}
	tasks = make([]*Task, 0, len(paths))
	seen := map[string]string{}
	var first error
	for _, p := range paths {
		t, err := ReadFile(p)
		if err == nil {
			if prev, dup := seen[t.TaskID]; dup {
				err = fmt.Errorf("%w: %s: task id %s is also the id of %s; give each task a unique task_id", ErrBadTask, p, t.TaskID, prev)
			}
		}
		if err != nil {
			skipped = append(skipped, Skipped{Path: p, Error: err.Error()})
			if first == nil {
				first = err
			}
			continue
		}
		seen[t.TaskID] = p
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, skipped, fmt.Errorf("no task under %s loads (%d of %d files left out); the first problem: %w", dir, len(skipped), len(paths), first)
	}
	SortTasks(tasks)
	return tasks, skipped, nil
}

// SortTasks orders tasks by tier (easy, medium, hard, real), then difficulty, then id.
func SortTasks(tasks []*Task) {
	sort.SliceStable(tasks, func(a, b int) bool {
		ta, tb := tierRank(tasks[a].Tier()), tierRank(tasks[b].Tier())
		if ta != tb {
			return ta < tb
		}
		if tasks[a].TruthDifficulty != tasks[b].TruthDifficulty {
			return tasks[a].TruthDifficulty < tasks[b].TruthDifficulty
		}
		return tasks[a].TaskID < tasks[b].TaskID
	})
}

// Find returns the task with the given id.
func Find(tasks []*Task, id string) (*Task, error) {
	for _, t := range tasks {
		if t.TaskID == id {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%w %q: see 'transitbench rv list' for the ids", ErrUnknownTask, id)
}

// Data returns the observations as the numerics' series (t_ref = the first time as stored).
func (t *Task) Data() *rv.Data {
	o := t.Observations
	d, err := rv.NewData(o.TimesDays, o.RVsMS, o.SigmasMS, o.Instruments)
	if err != nil {
		panic("stargazer: task " + t.TaskID + " was not validated: " + err.Error())
	}
	return d
}

// TruthPlanets returns the truth as forward-model planets: K from m sin i (rv.SemiAmplitude with the task's
// star mass) and M0 = l − Ω − ω.
func (t *Task) TruthPlanets() []rv.Planet {
	out := make([]rv.Planet, len(t.Config.Planets))
	for i, p := range t.Config.Planets {
		out[i] = rv.Planet{
			PeriodDays: p.PDays,
			KMS:        rv.SemiAmplitude(p.MSinIMJup, p.PDays, p.E, t.Config.Star.MStarSun),
			E:          p.E,
			OmegaRad:   p.OmegaRad,
			M0Rad:      rv.M0FromLongitude(p.LRad, p.OmegaNodeRad, p.OmegaRad),
		}
	}
	return out
}

// MedianSigma returns the median of the quoted errors (m/s).
func (t *Task) MedianSigma() float64 {
	return stat.Median(slices.Clone(t.Observations.SigmasMS))
}

// HasCorrelatedNoise reports whether the generator added a Gaussian-process term.
func (t *Task) HasCorrelatedNoise() bool {
	return t.Config.Noise.GP.UseGP && t.Config.Noise.GP.SigmaMS > 0
}
