package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
)

func init() { register(newDataCmd) }

func newDataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Build, inspect and import the benchmark's data sets",
		Long: `Build, inspect and import the benchmark's data sets (SPEC A2, A8).

Sets live in the data directory ($TRANSITBENCH_HOME, else $XDG_DATA_HOME/transitbench, else
~/.local/share/transitbench) under sets/NAME. A simulated set stores its answers and star metadata; light
curves are regenerated from seeds when needed. The hidden sets A and B take their seed from the secret file
secret.seed in the data directory (mode 0600), made at their first build.`,
		Args: cobra.NoArgs,
		RunE: groupHelp,
	}
	cmd.AddCommand(newDataBuildCmd(), newDataStatusCmd(), newDataVerifyCmd(), newDataSummaryCmd(), newDataShowCmd(), newDataMiniCmd(), newDataImportCmd())
	return cmd
}

// dataBuildResult is one line of 'data build --json': the set's summary and the build time in seconds.
type dataBuildResult struct {
	sets.Summary
	Seconds float64 `json:"seconds"`
}

func newDataBuildCmd() *cobra.Command {
	var setName, seedFile string
	var force bool
	var stars, workers int
	cmd := &cobra.Command{
		Use:   "build --set dev|A|B|train|all",
		Short: "Build data sets from the simulator",
		Long: `Build data sets from the simulator: dev (196 stars), A and B (hidden, 1,000 stars each), the train pool
(--stars, default 2,000), or all four. A set already built is only checked and summarised, unless --force.

An interrupted build (Ctrl-C, a crash) leaves its finished stars in sets/.build-NAME; the next build continues
from them. A set built by another simulator version, or whose files are damaged, must be rebuilt with --force;
dev, train, and hidden sets with an unchanged secret seed come out identical.

--seed-file FILE installs an operator's secret seed (64 hexadecimal digits) for A and B into the data
directory before building; replacing a seed that built hidden sets were made with needs --force and
rebuilds them as new sets.

--json prints a list of {"set", "kind", "generator", "hidden", "stars", "categories", "populations",
"scored_stars", "planets", "counted_ebs", "fingerprint", "seconds"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := dataBuildNames(setName)
			if err != nil {
				return err
			}
			if seedFile != "" && !(containsName(names, sets.A) || containsName(names, sets.B)) {
				return usageErrorf("--seed-file only applies to the hidden sets: use it with --set A, B or all")
			}
			if workers < 0 {
				return usageErrorf("--workers %d: give a number of stars to simulate at once, or 0 for one per CPU", workers)
			}
			if seedFile != "" {
				if err := isRegularFileArg("--seed-file", seedFile, "a file holding the secret seed (64 hexadecimal digits)"); err != nil {
					return err
				}
			}
			if stars < 0 || stars > 0 && !containsName(names, sets.Train) {
				return usageErrorf("--stars sets the train pool's size (a positive number): use it with --set train or all")
			}
			home, err := data.Home()
			if err != nil {
				return err
			}
			if seedFile != "" {
				if err := sets.InstallSeedFile(home, seedFile, force); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var out []dataBuildResult
			for _, name := range names {
				start := time.Now()
				opt := sets.Options{Context: ctx, Force: force, Workers: workers,
					Progress: newProgressPrinter(cmd.ErrOrStderr(), "building").update}
				if name == sets.Train {
					opt.Stars = stars
				}
				s, err := sets.Open(home, name, opt)
				if err != nil {
					return err
				}
				out = append(out, dataBuildResult{Summary: s.Summary(), Seconds: time.Since(start).Seconds()})
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "set\tstars\tscored\tplanets\tcounted EBs\tgenerator\tfingerprint\ttime")
			for _, r := range out {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s…\t%.1fs\n", r.Set, r.Stars, r.ScoredStars, r.Planets,
					r.CountedEBs, r.Generator, r.Fingerprint[:16], r.Seconds)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&setName, "set", "", "set to build: dev, A, B, train or all")
	cmd.Flags().StringVar(&seedFile, "seed-file", "", "install this secret seed (64 hex digits) for the hidden sets first")
	cmd.Flags().BoolVar(&force, "force", false, "rebuild even if the set is built (and allow replacing the secret seed)")
	cmd.Flags().IntVar(&stars, "stars", 0, fmt.Sprintf("train pool size (default %d, or the built pool's)", sets.DefaultTrainStars))
	cmd.Flags().IntVar(&workers, "workers", 0, "stars simulated at once (default: number of CPUs)")
	return cmd
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// dataBuildNames expands --set for 'data build'.
func dataBuildNames(set string) ([]string, error) {
	switch set {
	case "":
		return nil, usageErrorf("data build needs --set: dev, A, B, train or all")
	case "all":
		return sets.Standard, nil
	case sets.Dev, sets.A, sets.B, sets.Train:
		return []string{set}, nil
	}
	return nil, usageErrorf("data build cannot build set %q: use dev, A, B, train or all (other sets come from "+
		"'transitbench data import')", set)
}

// openSetForCmd opens a set for the inspection commands, building a standard one on first use with progress on
// stderr. A bad set name is a usage error.
func openSetForCmd(cmd *cobra.Command, name string) (*sets.Set, error) {
	if name == "" {
		return nil, usageErrorf("give --set NAME (dev, A, B, train, or an imported set)")
	}
	home, err := data.Home()
	if err != nil {
		return nil, err
	}
	s, err := sets.Open(home, name, sets.Options{Context: cmd.Context(),
		Progress: newProgressPrinter(cmd.ErrOrStderr(), "building").update})
	if errors.Is(err, sets.ErrBadName) {
		return nil, usageErrorf("--set: %v", err)
	}
	if errors.Is(err, sets.ErrNotBuilt) {
		return nil, notFoundf("--set: %v", err)
	}
	return s, err
}

func newDataStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "List the data directory's sets: built, half-built or missing",
		Long: `List the standard sets and every other set in the data directory, without building or checking them:
whether each is built, and whether an interrupted build waits to be continued (by the next build or the next
command that opens the set).

--json prints a list of {"set", "built", "interrupted", "stars_done", "stars", "generator"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := data.Home()
			if err != nil {
				return err
			}
			list := sets.List(home)
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), list)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "set\tstate\tstars\tgenerator\n")
			for _, st := range list {
				state := "not built"
				switch {
				case st.Built && st.Interrupted:
					state = fmt.Sprintf("built; a rebuild stopped at %d stars", st.StarsDone)
				case st.Built:
					state = "built"
				case st.Interrupted:
					state = fmt.Sprintf("half-built: %d of %d stars (the next build continues)", st.StarsDone, st.Stars)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", st.Set, state, st.Stars, st.Generator)
			}
			return tw.Flush()
		},
	}
}

// dataVerifyResult is the JSON output of 'data verify'.
type dataVerifyResult struct {
	Set         string   `json:"set"`
	Stars       int      `json:"stars"`
	Differ      []string `json:"differ"`
	Fingerprint string   `json:"fingerprint"`
	Seconds     float64  `json:"seconds"`
}

func newDataVerifyCmd() *cobra.Command {
	var setName string
	var workers int
	cmd := &cobra.Command{
		Use:   "verify --set NAME",
		Short: "Regenerate every star of a set and check it against the set's fingerprint",
		Long: `Regenerate every star of a set (re-read, for an imported set) and compare its bytes with the digest
recorded when the set was built. No difference proves that this machine and program reproduce the set and its
fingerprint; a difference means the simulator changed without a new version, or the set's files were changed:
rebuild the set with 'transitbench data build --set NAME --force'. Exits 1 when a star differs.

--json prints {"set", "stars", "differ": [ids], "fingerprint", "seconds"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if workers < 0 {
				return usageErrorf("--workers %d: give a number of stars to regenerate at once, or 0 for one per CPU", workers)
			}
			s, err := openSetForCmd(cmd, setName)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			start := time.Now()
			differ, err := s.Verify(ctx, workers, newProgressPrinter(cmd.ErrOrStderr(), "verifying").update)
			if err != nil {
				return err
			}
			res := dataVerifyResult{Set: s.Name, Stars: len(s.IDs), Differ: append([]string{}, differ...),
				Fingerprint: s.Fingerprint, Seconds: time.Since(start).Seconds()}
			if len(differ) > 0 {
				return failWithResult(fmt.Errorf("set %s: %d of %d stars differ from when it was built (first: %s); "+
					"rebuild it with 'transitbench data build --set %s --force'", s.Name, len(differ), len(s.IDs),
					differ[0], s.Name), res)
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "set %s: all %d stars reproduce fingerprint %s\n", s.Name, len(s.IDs), s.Fingerprint)
			return nil
		},
	}
	cmd.Flags().StringVar(&setName, "set", "", "set name")
	cmd.Flags().IntVar(&workers, "workers", 0, "stars regenerated at once (default: number of CPUs)")
	return cmd
}

func newDataSummaryCmd() *cobra.Command {
	var setName string
	cmd := &cobra.Command{
		Use:   "summary --set NAME",
		Short: "Count a set's stars by category and population",
		Long: `Count a set's stars by category and population, with its scored stars, planets, counted eclipsing
binaries and fingerprint. A standard set not built yet is built first.

--json prints {"set", "kind", "generator", "hidden", "stars", "categories": {"injected", "untouched", "eb",
"confirmed"}, "populations": {"random", "false_alarm"}, "scored_stars", "planets", "counted_ebs",
"fingerprint"}. Populations count the injected and untouched stars; planets are the scored planets.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openSetForCmd(cmd, setName)
			if err != nil {
				return err
			}
			sum := s.Summary()
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), sum)
			}
			w := cmd.OutOrStdout()
			c := sum.Categories
			fmt.Fprintf(w, "set %s (%s, generator %s%s)\n", sum.Set, sum.Kind, sum.Generator, map[bool]string{true: ", hidden"}[sum.Hidden])
			fmt.Fprintf(w, "stars        %d: %d injected, %d untouched, %d eclipsing binaries, %d confirmed hosts\n",
				sum.Stars, c.Injected, c.Untouched, c.EB, c.Confirmed)
			fmt.Fprintf(w, "populations  %d random, %d false-alarm\n", sum.Populations.Random, sum.Populations.FalseAlarm)
			fmt.Fprintf(w, "scored       %d stars, %d planets, %d counted eclipsing binaries\n", sum.ScoredStars,
				sum.Planets, sum.CountedEBs)
			fmt.Fprintf(w, "fingerprint  %s\n", sum.Fingerprint)
			return nil
		},
	}
	cmd.Flags().StringVar(&setName, "set", "", "set name: dev, A, B, train, or an imported set")
	return cmd
}

// dataShowResult is the JSON output of 'data show': the star's metadata and, for public sets, its answer.
type dataShowResult struct {
	Set    string        `json:"set"`
	Hidden bool          `json:"hidden"`
	Info   sets.StarInfo `json:"info"`
	Answer *data.Answer  `json:"answer,omitempty"`
}

func newDataShowCmd() *cobra.Command {
	var setName, starID string
	cmd := &cobra.Command{
		Use:   "show --set NAME --star ID",
		Short: "Show one star's metadata (and its answer, for public sets)",
		Long: `Show one star's metadata: star.json's content, its cadences and valid cadences, its digest (and KIC
for imported sets). The answer is shown for public sets only; a hidden set's answers stay in the data directory.

--json prints {"set", "hidden", "info": {"id", "index", "star", "cadences", "valid_cadences", "digest", "kic"},
"answer"} with "answer" (data.Answer) left out for hidden sets.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if starID == "" {
				return usageErrorf("give --star ID (e.g. --star dev-0042)")
			}
			s, err := openSetForCmd(cmd, setName)
			if err != nil {
				return err
			}
			info, err := s.Info(starID)
			if err != nil {
				return notFoundf("%v", err)
			}
			res := dataShowResult{Set: s.Name, Hidden: s.Hidden(), Info: info}
			if !s.Hidden() {
				a := s.Answers[starID]
				res.Answer = &a
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			printStar(cmd.OutOrStdout(), res)
			return nil
		},
	}
	cmd.Flags().StringVar(&setName, "set", "", "set name")
	cmd.Flags().StringVar(&starID, "star", "", "star id, e.g. dev-0042")
	return cmd
}

// printStar prints 'data show' for people.
func printStar(w io.Writer, r dataShowResult) {
	st := r.Info.Star
	fmt.Fprintf(w, "star %s of set %s\n", r.Info.ID, r.Set)
	if r.Info.KIC != 0 {
		fmt.Fprintf(w, "KIC          %d\n", r.Info.KIC)
	}
	fmt.Fprintf(w, "Kp %.2f  Teff %.0f K  logg %.2f  R %.2f Rsun  M %.2f Msun\n", st.Kepmag, st.Teff, st.Logg,
		st.RadiusRsun, st.MassMsun)
	fmt.Fprintf(w, "CDPP         3 h %.0f ppm, 6 h %.0f ppm, 12 h %.0f ppm\n", st.CDPPppm["3.0"], st.CDPPppm["6.0"],
		st.CDPPppm["12.0"])
	fmt.Fprintf(w, "cadences     %d (%d valid)\n", r.Info.Cadences, r.Info.ValidCadences)
	if r.Answer == nil {
		fmt.Fprintln(w, "answer       hidden (the set is a grading set)")
		return
	}
	a := r.Answer
	pop := ""
	if a.Population != "" {
		pop = ", " + strings.ReplaceAll(a.Population, "_", "-") + " population"
	}
	fmt.Fprintf(w, "answer       %s%s, scored %v\n", a.Category, pop, a.Scored)
	printPlanet := func(label string, p data.Planet) {
		fmt.Fprintf(w, "%-12s P %.5f d  t0 %.4f  T14 %.2f h  depth %.0f ppm  Rp/R* %.4f  b %.2f  MES %.1f  %d transits\n",
			label, p.PeriodDays, p.T0Days, 24*p.DurationDays, 1e6*p.Depth, p.RpRs, p.B, p.MES, p.NTransits)
	}
	if a.Planet != nil {
		printPlanet("planet", *a.Planet)
	}
	for i, p := range a.Confirmed {
		printPlanet(fmt.Sprintf("confirmed %d", i+1), p)
	}
	if e := a.EB; e != nil {
		fmt.Fprintf(w, "eb           %s, P %.5f d  t0 %.4f  primary %.0f ppm / %.2f h  secondary %.0f ppm / %.2f h at phase %.3f\n",
			e.Morphology, e.PeriodDays, e.T0Days, 1e6*e.PrimaryDepth, 24*e.PrimaryDurationDays, 1e6*e.SecondaryDepth,
			24*e.SecondaryDurationDays, e.SecondaryPhase)
		fmt.Fprintf(w, "             counted %v  giveaway %s\n", e.Counted, strings.Join(e.Giveaway, ", "))
	}
	if f := a.FalseAlarm; f != nil {
		fmt.Fprintf(w, "false alarm  %s", f.Kind)
		if f.PeriodDays > 0 {
			fmt.Fprintf(w, ", P %.5f d  t0 %.4f", f.PeriodDays, f.T0Days)
		}
		fmt.Fprintln(w)
	}
}

func newDataMiniCmd() *cobra.Command {
	var task string
	var stars int
	cmd := &cobra.Command{
		Use:   "mini --task ID",
		Short: "List a mini task's labelled and hidden stars",
		Long: fmt.Sprintf(`List a mini task's stars (SPEC A8): %d labelled stars and %d hidden stars holding %d injected planets.
Tasks mini-train-NNNNNNNN (any number, at least 8 digits) draw from the train pool, mini-dev-00000000 …
mini-dev-%08d from dev. The draw is a pure function of the task id and the pool. The reward of a task is
clip((credit − false)/%d, −1, 1) over its hidden stars.

--json prints {"task", "pool", "labelled": [ids], "hidden": [ids], "planets"}.`,
			sets.MiniLabelled, sets.MiniHidden, sets.MiniPlanets, sets.MiniDevTasks-1, sets.MiniPlanets),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := sets.ParseMiniTask(task); err != nil {
				return usageErrorf("--task: %v", err)
			}
			if stars < 0 {
				return usageErrorf("--stars %d: give the train pool's size, or 0 for the default", stars)
			}
			home, err := data.Home()
			if err != nil {
				return err
			}
			m, err := sets.OpenMiniTask(home, task, sets.Options{Context: cmd.Context(), Stars: stars,
				Progress: newProgressPrinter(cmd.ErrOrStderr(), "building").update})
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), m)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "mini task %s: stars of set %s\n", m.ID, m.Pool)
			fmt.Fprintf(w, "labelled (%d)  %s\n", len(m.Labelled), strings.Join(m.Labelled, " "))
			fmt.Fprintf(w, "hidden (%d)    %s\n", len(m.Hidden), strings.Join(m.Hidden, " "))
			fmt.Fprintf(w, "the hidden stars hold %d injected planets\n", m.Planets)
			return nil
		},
	}
	cmd.Flags().StringVar(&task, "task", "", "task id, e.g. mini-dev-00000007 or mini-train-00001234")
	cmd.Flags().IntVar(&stars, "stars", 0, "train pool size to build when it is not built yet (default 2000)")
	return cmd
}

func newDataImportCmd() *cobra.Command {
	var fitsDir, labels, setName string
	var force bool
	cmd := &cobra.Command{
		Use:   "import --fits DIR --labels CSV --set NAME",
		Short: "Build a set from Kepler FITS light curves and a label table",
		Long: `Build a set from real Kepler data: DIR holds kplr<KIC>-<time>_llc.fits files (any quarters), CSV the
labels, one row per star (one per planet for confirmed hosts), with a header naming its columns:
kic, category (injected|untouched|eb|confirmed), and optionally population, period (days), t0 (BKJD days),
duration (hours), depth (ppm), rp_rs, b, mes, secondary_depth (ppm), counted (true|false, for eclipsing
binaries), kepmag, teff, logg, radius_rsun, mass_msun. The KOI table's names (kepid, koi_period, koi_time0bk,
koi_duration, koi_depth, koi_ror, koi_impact) are accepted too.

Each star keeps the cadences within 372 days of its first (one Kepler year), PDCSAP flux normalised per
quarter. An "injected" row without a period gets a planet from the simulator's injection (MES uniform in
[4, 20], seeded by the set name and the public seed, or the secret seed for A and B); an "injected" row with a
period describes a signal already in the data. Star directories are stored in the set, ids are NAME-0000,
NAME-0001, … in KIC order.

--json prints the set's summary as 'data summary --json' does, plus "unlabelled": the KICs with files but no
label row, which are left out.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if fitsDir == "" || labels == "" || setName == "" {
				return usageErrorf("data import needs --fits DIR, --labels CSV and --set NAME")
			}
			if fi, err := os.Stat(fitsDir); err != nil || !fi.IsDir() {
				return notFoundf("--fits %s is not a directory: give the directory holding the kplr*_llc.fits files", fitsDir)
			}
			if err := isRegularFileArg("--labels", labels, "the label table (a CSV file)"); err != nil {
				return err
			}
			home, err := data.Home()
			if err != nil {
				return err
			}
			res, err := sets.Import(home, setName, sets.ImportOptions{FITSDir: fitsDir, Labels: labels, Force: force,
				Progress: newProgressPrinter(cmd.ErrOrStderr(), "importing").update})
			if err != nil {
				if errors.Is(err, sets.ErrBadName) {
					return usageErrorf("%v", err)
				}
				return err
			}
			sum := res.Set.Summary()
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), struct {
					sets.Summary
					Unlabelled []int `json:"unlabelled"`
				}{sum, append([]int{}, res.Unlabelled...)})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported set %s: %d stars (%d scored, %d planets), fingerprint %s\n",
				sum.Set, sum.Stars, sum.ScoredStars, sum.Planets, sum.Fingerprint)
			if len(res.Unlabelled) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "left out (no label row): KIC %v\n", res.Unlabelled)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&fitsDir, "fits", "", "directory of kplr*_llc.fits files")
	cmd.Flags().StringVar(&labels, "labels", "", "label table (CSV)")
	cmd.Flags().StringVar(&setName, "set", "", "name of the new set")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing set of that name")
	return cmd
}

// progressPrinter shows a build's progress on w: a bar with an ETA redrawn in place on a terminal, else a
// line per tenth of the work.
type progressPrinter struct {
	w      io.Writer
	verb   string
	tty    bool
	start  time.Time
	last   int // last tenth printed (non-terminal) or last percent drawn (terminal)
	begun  bool
	resume int
}

func newProgressPrinter(w io.Writer, verb string) *progressPrinter {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressPrinter{w: w, verb: verb, tty: tty, last: -1}
}

func (p *progressPrinter) update(pr sets.Progress) {
	if pr.Total == 0 {
		return
	}
	if !p.begun {
		p.begun, p.start, p.resume = true, time.Now(), pr.Resumed
		if !p.tty {
			p.last = 10 * pr.Resumed / pr.Total
		}
		if pr.Resumed > 0 {
			fmt.Fprintf(p.w, "%s %s: continuing an interrupted build, %d of %d stars already made\n", p.verb, pr.Set,
				pr.Resumed, pr.Total)
		} else if !p.tty {
			fmt.Fprintf(p.w, "%s %s: %d stars\n", p.verb, pr.Set, pr.Total)
		}
	}
	elapsed := time.Since(p.start)
	eta := ""
	if made := pr.Done - p.resume; made > 0 && pr.Done < pr.Total {
		left := time.Duration(float64(elapsed) / float64(made) * float64(pr.Total-pr.Done))
		eta = fmt.Sprintf(", %s left", left.Round(time.Second))
	}
	if p.tty {
		pct := 100 * pr.Done / pr.Total
		if pct == p.last && pr.Done != pr.Total {
			return
		}
		p.last = pct
		const width = 30
		fill := width * pr.Done / pr.Total
		fmt.Fprintf(p.w, "\r%s %-5s [%s%s] %3d%% %d/%d%s   ", p.verb, pr.Set, strings.Repeat("=", fill),
			strings.Repeat(" ", width-fill), pct, pr.Done, pr.Total, eta)
		if pr.Done == pr.Total {
			fmt.Fprintf(p.w, "\n")
		}
		return
	}
	tenth := 10 * pr.Done / pr.Total
	if tenth == p.last && pr.Done != pr.Total {
		return
	}
	p.last = tenth
	fmt.Fprintf(p.w, "%s %s: %d%% (%d/%d stars, %.1fs%s)\n", p.verb, pr.Set, 100*pr.Done/pr.Total, pr.Done,
		pr.Total, elapsed.Seconds(), eta)
}
