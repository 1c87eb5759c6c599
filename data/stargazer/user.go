package stargazer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// TierUser is the tier of tasks imported from the user's own RV files ('transitbench rv import'): they have
// no truth, so they are fitted and browsed but not graded.
const TierUser = "user"

// SourceImported is the value of meta.source that marks an imported task.
const SourceImported = "imported"

// DefaultImportMStarSun is the star mass an import assumes when none is given (M☉).
const DefaultImportMStarSun = 1.0

// UserDir returns the folder of imported tasks under the data directory home: home/rv/tasks. Every rv command
// and the terminal UI's RV browser list its tasks beside the published ones.
func UserDir(home string) string { return filepath.Join(home, "rv", "tasks") }

// ErrBadTaskName is returned for a task name that cannot be a file name and task id.
var ErrBadTaskName = errors.New("stargazer: bad task name")

var taskNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// CheckTaskName checks a name given to an imported task: 1–64 letters, digits, '_', '.', '-', starting with a
// letter or digit.
func CheckTaskName(name string) error {
	if !taskNameRE.MatchString(name) || strings.HasSuffix(name, ".json") {
		return fmt.Errorf("%w %q: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", ErrBadTaskName, name)
	}
	return nil
}

// NameFromFile derives a task name from a file's base name (its extension dropped, other characters replaced
// by '_').
func NameFromFile(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	b := []byte(base)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
		if !ok {
			b[i] = '_'
		}
	}
	name := strings.TrimLeft(string(b), "_.-")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "imported"
	}
	return name
}

// NewImportedTask builds a task in the published schema, without truth, from the series read from one or more
// files (names: the files, for the record). Every series' times are put on full Julian days with its detected
// offset; a series in days from an unknown zero is kept as given, and may then not be mixed with another file.
// Points are sorted by time (the first becomes t_ref). The task is marked real ("rv_semantics": "rv_only")
// and imported (meta.source), and records each file's format and time system.
func NewImportedTask(id string, series []*Series, names []string, mStarSun float64) (*Task, error) {
	if err := CheckTaskName(id); err != nil {
		return nil, err
	}
	if !(mStarSun > 0 && mStarSun <= MaxStarMassSun) {
		return nil, fmt.Errorf("%w: star mass %g M☉ must lie in (0, %g]", ErrBadSeries, mStarSun, float64(MaxStarMassSun))
	}
	type point struct {
		t, v, s float64
		inst    string
	}
	var pts []point
	var files []map[string]any
	for k, s := range series {
		if k > 0 && s.Time.Known != series[0].Time.Known {
			return nil, fmt.Errorf("%w: %s is in %s but %s in %s; give every file in full or reduced JD/BJD",
				ErrBadSeries, names[k], s.Time.Name, names[0], series[0].Time.Name)
		}
		for i := range s.Times {
			pts = append(pts, point{s.Times[i] + s.Time.Offset, s.RVs[i], s.Sigmas[i], s.Instruments[i]})
		}
		files = append(files, map[string]any{"file": filepath.Base(names[k]), "format": s.Format, "points": len(s.Times),
			"time_system": s.Time.Name, "time_offset_days": s.Time.Offset})
	}
	sort.SliceStable(pts, func(a, b int) bool { return pts[a].t < pts[b].t })
	t := &Task{TaskID: id, Real: true, Imported: true,
		Meta: map[string]any{"rv_semantics": "rv_only", "source": SourceImported, "files": files}}
	o := &t.Observations
	for _, p := range pts {
		o.TimesDays = append(o.TimesDays, p.t)
		o.RVsMS = append(o.RVsMS, p.v)
		o.SigmasMS = append(o.SigmasMS, p.s)
		o.Instruments = append(o.Instruments, p.inst)
	}
	t.Config.Star.MStarSun = mStarSun
	t.Config.Planets = []TruthPlanet{}
	return t, nil
}

// LoadUserDir reads the imported tasks in dir (UserDir of the data directory). A missing folder holds no
// tasks; a file that does not load is left out and listed in skipped, as LoadDir does.
func LoadUserDir(dir string) (tasks []*Task, skipped []Skipped) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(paths)
	for _, p := range paths {
		t, err := ReadFile(p)
		if err != nil {
			skipped = append(skipped, Skipped{Path: p, Error: err.Error()})
			continue
		}
		t.Real, t.Imported = true, true
		tasks = append(tasks, t)
	}
	return tasks, skipped
}

// ErrTaskExists is returned by WriteImported when the task is already imported.
var ErrTaskExists = errors.New("stargazer: task already imported")

// WriteImported writes an imported task to dir/ID.json, refusing to replace an existing file unless replace.
func WriteImported(dir string, t *Task, replace bool) (string, error) {
	path := filepath.Join(dir, t.TaskID+".json")
	if _, err := os.Stat(path); err == nil && !replace {
		return "", fmt.Errorf("%w: %s (%s); give another --name, or --replace to overwrite it", ErrTaskExists, t.TaskID, path)
	}
	return path, WriteFile(path, t)
}
