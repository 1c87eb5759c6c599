package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	// --time-system NAME or --time-offset DAYS: the files' time system, when their header does not name it
	// (stargazer.ImportTime; TimeOffsetSet records that --time-offset was given, 0 included).
	TimeSystem    string
	TimeOffset    float64
	TimeOffsetSet bool
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

The time system is reported for each file with the reason it was assumed, and times are stored as full days:
- named by --time-system NAME (BJD, JD, HJD, MJD = JD - 2400000.5, RJD = JD - 2400000, BJD-2450000,
  BKJD = BJD - 2454833 for Kepler and K2, BTJD = BJD - 2457000 for TESS) or --time-offset DAYS (the days
  to add to reach full JD/BJD), which apply to every file given and must put the times within 1800-2300;
- else named by the header of the time column (bkjd, btjd, mjd, rjd, bjd-2450000, "time [BJD - 2450000]");
- else from the times' magnitude: full JD/BJD/HJD (2.3-2.6 million), JD - 2400000 (30000-100000, or MJD
  when the header says mjd), BJD - 2450000 (up to 10000-15000).
4-digit times (from 0, the largest 1000-9999) are refused unless named: BJD - 2450000, BKJD and BTJD all
give such numbers for recent data, years apart (radvel's K2 examples are in BKJD). Times in days from an
unknown zero are kept as given and cannot be combined with files in JD. Points are sorted by time.

Imported tasks have no truth: 'rv fit TASK --pipeline honest' fits them, 'rv submit --dry-run' gives the
truth-free metrics, and baselines, truthcheck and grade leave them out. Refused: a value that is not a finite
number, sigma <= 0, rows with different columns, fewer than 10 points.

JSON: {"task", "path", "n_obs", "instrument_labels", "span_days", "M_star_sun", "M_star_assumed",
"files": [{"file", "format", "header", "points", "time_system": {"name", "offset", "known", "reason"}}]}.`,
	}, runF, runRVImport, func(o *rvImportOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Files = common.at(cmd), args
		o.TimeOffsetSet = cmd.Flags().Changed("time-offset")
	})
	c.Flags().StringVar(&opts.Name, "name", "", "task id (default: the first file's name)")
	c.Flags().Float64Var(&opts.MStarSun, "mstar", 0, "the star's mass in solar masses (default 1)")
	c.Flags().BoolVar(&opts.Replace, "replace", false, "overwrite an imported task of the same name")
	c.Flags().StringVar(&opts.TimeSystem, "time-system", "", "the files' time system: "+strings.Join(stargazer.TimeSystemNames(), ", "))
	c.Flags().Float64Var(&opts.TimeOffset, "time-offset", 0, "days to add to the files' times to reach full JD/BJD (e.g. 2450000)")
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
	if opts.TimeSystem != "" && opts.TimeOffsetSet {
		return usageErrorf("--time-system %s and --time-offset %g: give one", opts.TimeSystem, opts.TimeOffset)
	}
	if opts.TimeSystem != "" && !slices.Contains(stargazer.TimeSystemNames(), strings.ToUpper(opts.TimeSystem)) {
		return usageErrorf("--time-system %s: give one of %s", opts.TimeSystem, strings.Join(stargazer.TimeSystemNames(), ", "))
	}
	tm := stargazer.ImportTime{System: opts.TimeSystem, Offset: opts.TimeOffset, OffsetSet: opts.TimeOffsetSet}
	res := rvImportJSON{Task: name, MStarSun: mstar, MStarAssumed: assumed}
	var series []*stargazer.Series
	for _, f := range opts.Files {
		s, err := readSeriesFile(f, tm)
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

// timeSystemNote says what time system the importer assumed for a file's times, why, and what it did with them.
func timeSystemNote(ts stargazer.TimeSystem) string {
	switch {
	case !ts.Known:
		return fmt.Sprintf("%s (%s)", ts.Name, ts.Reason)
	case ts.Offset != 0:
		return fmt.Sprintf("%s assumed: %s (stored as full days: +%.1f)", ts.Name, ts.Reason, ts.Offset)
	}
	return fmt.Sprintf("%s assumed: %s (full days, stored as given)", ts.Name, ts.Reason)
}

// readSeriesFile reads one RV file (stargazer.ParseSeriesAs with the time system tm); a file with no instrument
// column is one instrument named after the file.
func readSeriesFile(path string, tm stargazer.ImportTime) (*stargazer.Series, error) {
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
	s, err := stargazer.ParseSeriesAs(b, path, stargazer.NameFromFile(filepath.Base(path)), tm)
	if err != nil {
		return nil, withCode(codeBadInput, err)
	}
	return s, nil
}
