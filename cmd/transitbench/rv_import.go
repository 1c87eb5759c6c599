package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/data/stargazer"
)

// rvImportOptions are the inputs of 'rv import'. Its --json output is rvImportJSON.
type rvImportOptions struct {
	rvCommon
	Files    []string // the RV files (arguments)
	Name     string   // --name: the task id ("": from the first file's name)
	MStarSun float64  // --mstar: the star's mass in M☉ (0: stargazer.DefaultImportMStarSun, said in the output)
	Replace  bool     // --replace: overwrite an imported task of the same name
}

// rvImportJSON is what 'rv import --json' prints: the task written and what was read from each file.
type rvImportJSON struct {
	Task         string             `json:"task"`
	Path         string             `json:"path"`
	NObs         int                `json:"n_obs"`
	Instruments  []string           `json:"instrument_labels"`
	SpanDays     float64            `json:"span_days"`
	MStarSun     float64            `json:"M_star_sun"`
	MStarAssumed bool               `json:"M_star_assumed"` // --mstar was not given: DefaultImportMStarSun
	Files        []rvImportFileJSON `json:"files"`
}

// rvImportFileJSON is one file of 'rv import'.
type rvImportFileJSON struct {
	File       string               `json:"file"`
	Format     string               `json:"format"` // radvel, csv or table
	Header     bool                 `json:"header"`
	Points     int                  `json:"points"`
	TimeSystem stargazer.TimeSystem `json:"time_system"`
}

// newRVImportCmd builds the command; runF, when not nil, replaces runRVImport (tests check the options the flags
// produce with it).
func newRVImportCmd(common *rvCommon, runF func(context.Context, rvImportOptions, io.Writer) error) *cobra.Command {
	c, opts := rvSubcommand(&cobra.Command{Use: "import FILE...", Args: cobra.MinimumNArgs(1),
		Short: "Import your own RV series as a task (tier user) that every rv command and the terminal UI list",
		Long: `Import one or more RV files as one task in the data directory's user task folder
($TRANSITBENCH_HOME/rv/tasks), listed by every rv command and the terminal UI's RV browser beside the
published tasks, in tier "user". Formats: radvel's table (time mnvel errvel tel ...), a CSV whose header names
time, rv and error columns (and optionally the instrument: tel, inst, instrument), or rows of time, rv, error
and optionally instrument separated by commas or blanks with no header. Velocities and errors are m/s; lines
starting with # are comments. A file with no instrument column is one instrument named after the file.

The time system is detected from the times (and the header's name for them) and reported: full JD/BJD/HJD
(2.3-2.6 million), BJD - 2400000 or MJD, BJD - 2450000; times are stored as full days. Times in days from an
unknown zero are kept as given and cannot be combined with files in JD. Points are sorted by time.

Imported tasks have no truth: 'rv fit TASK --pipeline honest' fits them, 'rv submit --dry-run' gives the
truth-free metrics, and baselines, truthcheck and grade leave them out. Refused: a value that is not a finite
number, sigma <= 0, rows with different columns, fewer than 10 points.

JSON: {"task", "path", "n_obs", "instrument_labels", "span_days", "M_star_sun", "M_star_assumed",
"files": [{"file", "format", "header", "points", "time_system": {"name", "offset", "known"}}]}.`,
	}, runF, runRVImport, func(o *rvImportOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Files = common.at(cmd), args
	})
	c.Flags().StringVar(&opts.Name, "name", "", "task id (default: the first file's name)")
	c.Flags().Float64Var(&opts.MStarSun, "mstar", 0, "the star's mass in solar masses (default 1)")
	c.Flags().BoolVar(&opts.Replace, "replace", false, "overwrite an imported task of the same name")
	return c
}

// runRVImport reads opts.Files, builds the task and writes it into the user task folder.
func runRVImport(_ context.Context, opts rvImportOptions, out io.Writer) error {
	name := opts.Name
	if name == "" {
		name = stargazer.NameFromFile(opts.Files[0])
	}
	if err := stargazer.CheckTaskName(name); err != nil {
		return usageErrorf("--name: %v", err)
	}
	mstar, assumed := opts.MStarSun, false
	if mstar == 0 {
		mstar, assumed = stargazer.DefaultImportMStarSun, true
	}
	if !(mstar > 0 && mstar <= stargazer.MaxStarMassSun) {
		return usageErrorf("--mstar %g: give the star's mass in solar masses, in (0, %g]", mstar, float64(stargazer.MaxStarMassSun))
	}
	res := rvImportJSON{Task: name, MStarSun: mstar, MStarAssumed: assumed}
	var series []*stargazer.Series
	for _, f := range opts.Files {
		s, err := readSeriesFile(f)
		if err != nil {
			return err
		}
		series = append(series, s)
		res.Files = append(res.Files, rvImportFileJSON{File: f, Format: s.Format, Header: s.Header, Points: len(s.Times), TimeSystem: s.Time})
	}
	task, err := stargazer.NewImportedTask(name, series, opts.Files, mstar)
	if err != nil {
		return withCode(codeBadInput, err)
	}
	if all, _, _, err := opts.loadTasks(); err == nil {
		for _, t := range all {
			if t.TaskID == name && !t.Imported {
				return usageErrorf("--name %s is a published task's id; give another name", name)
			}
		}
	}
	home, err := opts.home()
	if err != nil {
		return err
	}
	if res.Path, err = stargazer.WriteImported(stargazer.UserDir(home), task, opts.Replace); err != nil {
		if errors.Is(err, stargazer.ErrTaskExists) {
			return usageErrorf("%v", err)
		}
		return err
	}
	d := task.Data()
	res.NObs, res.Instruments, res.SpanDays = d.Len(), d.Instruments, d.Span()
	if opts.JSON {
		return writeJSON(out, res)
	}
	for _, f := range res.Files {
		fmt.Fprintf(out, "%s: %s, %d points, time %s\n", f.File, f.Format, f.Points, timeSystemNote(f.TimeSystem))
	}
	note := ""
	if assumed {
		note = " (assumed; give --mstar)"
	}
	fmt.Fprintf(out, "task %s: %d points over %.0f d, instruments %s, M★ %.3f M☉%s\nwritten to %s; fit it with 'transitbench rv fit %s --pipeline honest'\n",
		res.Task, res.NObs, res.SpanDays, strings.Join(res.Instruments, ", "), mstar, note, res.Path, res.Task)
	return nil
}

// timeSystemNote says what the importer detected and did with a file's times.
func timeSystemNote(ts stargazer.TimeSystem) string {
	switch {
	case !ts.Known:
		return ts.Name + " (kept as given)"
	case ts.Offset != 0:
		return fmt.Sprintf("%s detected (stored as full days: +%.1f)", ts.Name, ts.Offset)
	}
	return ts.Name + " detected (full days, stored as given)"
}

// readSeriesFile reads one RV file (stargazer.ParseSeries); a file with no instrument column is one instrument
// named after the file.
func readSeriesFile(path string) (*stargazer.Series, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, notFoundf("cannot read %s: %v", path, errors.Unwrap(err))
	}
	if fi.IsDir() {
		return nil, usageErrorf("%s is a directory: give RV files", path)
	}
	if fi.Size() > stargazer.MaxImportBytes {
		return nil, badInputf("%s: %d bytes, more than %d; give an RV table", path, fi.Size(), stargazer.MaxImportBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	s, err := stargazer.ParseSeries(b, path, stargazer.NameFromFile(filepath.Base(path)))
	if err != nil {
		return nil, withCode(codeBadInput, err)
	}
	return s, nil
}
