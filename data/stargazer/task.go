package stargazer

import (
	"encoding/json"
	"errors"
	"fmt"
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

// Parse decodes one task from JSON and checks that its series is usable. It does not convert.
func Parse(b []byte, name string) (*Task, error) {
	var t Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("stargazer: %s is not a task file: %w", name, err)
	}
	o := t.Observations
	if len(o.TimesDays) == 0 {
		return nil, fmt.Errorf("stargazer: %s has no observations", name)
	}
	if len(o.Instruments) == 0 {
		o.Instruments = make([]string, len(o.TimesDays))
		for i := range o.Instruments {
			o.Instruments[i] = "instA"
		}
		t.Observations.Instruments = o.Instruments
	}
	if _, err := rv.NewData(o.TimesDays, o.RVsMS, o.SigmasMS, o.Instruments); err != nil {
		return nil, fmt.Errorf("stargazer: %s: %w", name, err)
	}
	if !(t.Config.Star.MStarSun > 0) {
		return nil, fmt.Errorf("stargazer: %s: star mass %g is not positive", name, t.Config.Star.MStarSun)
	}
	if t.TaskID == "" {
		t.TaskID = strings.TrimSuffix(filepath.Base(name), ".json")
	}
	sem, _ := t.Meta["rv_semantics"].(string)
	t.Real = strings.HasPrefix(t.TaskID, "real_") || sem == "rv_only"
	return &t, nil
}

// ReadFile reads one task file and applies the load-time conversion to synthetic tasks.
func ReadFile(path string) (*Task, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("stargazer: cannot read task: %w", err)
	}
	t, err := Parse(b, path)
	if err != nil {
		return nil, err
	}
	t.Convert()
	return t, nil
}

// LoadDir reads every task under dir: the files *.json in dir itself and in its subfolders synthetic/ and
// real/ (the published layout). Synthetic tasks are converted. Tasks are sorted by tier, then difficulty,
// then id.
func LoadDir(dir string) ([]*Task, error) {
	var paths []string
	for _, sub := range []string{".", "synthetic", "real"} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, "*.json"))
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w in %s: point --tasks (or $TRANSITBENCH_STARGAZER) at the folder holding synthetic/ and real/, or generate tasks with 'transitbench rv generate'", ErrNoTasks, dir)
	}
	tasks := make([]*Task, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		t, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		if seen[t.TaskID] {
			return nil, fmt.Errorf("stargazer: task id %s appears twice under %s", t.TaskID, dir)
		}
		seen[t.TaskID] = true
		tasks = append(tasks, t)
	}
	SortTasks(tasks)
	return tasks, nil
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
