package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/engine/bls"
	"transitbench/engine/lc"
	"transitbench/engine/multi"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
	"transitbench/workspace"
	"transitbench/workspace/quicklook"
)

func init() { register(newBLSCmd) }

// blsPeakJSON is one peak of `bls --json`: the search's box (period, t0, duration, its depth and SNR: what
// the search ranked it by) and the peak measured (quicklook.Stats: the fitted ephemeris, depth, MES, the
// refined secondary and odd/even, the box statistics under "box").
type blsPeakJSON struct {
	PeriodDays   float64          `json:"period_days"`
	T0Days       float64          `json:"t0_days"`
	DurationDays float64          `json:"duration_days"`
	Depth        float64          `json:"depth"`
	DepthErr     float64          `json:"depth_err"`
	SNR          float64          `json:"snr"`
	Power        float64          `json:"power"`
	NTransits    int              `json:"n_transits"`
	Measured     *quicklook.Stats `json:"measured,omitempty"`
	// Single marks a peak with fewer than three transits: a single event, reported by its events (each transit
	// with data at its own mid-time), without a measurement at a period.
	Single bool        `json:"single,omitempty"`
	Events []vet.Event `json:"events,omitempty"`
}

// blsJSON is the output of `bls --json`; seconds is the time of the search alone (not reading or detrending).
type blsJSON struct {
	NPoints    int     `json:"n_points"`
	NPeriods   int     `json:"n_periods"`
	NDurations int     `json:"n_durations"`
	Objective  string  `json:"objective"`
	Detrended  bool    `json:"detrended"`
	WindowDays float64 `json:"detrend_window_days"`
	// Search is "quick-look" (the coarse periodogram with refined peaks every front end shows) or "grid" (the
	// grid the flags describe).
	Search  string        `json:"search"`
	Seconds float64       `json:"seconds"`
	Peaks   []blsPeakJSON `json:"peaks"`
	// Masks are the --mask windows removed before the search.
	Masks []multi.Mask `json:"masks,omitempty"`
	// Planets are the planets --planets found one after another, each with its transits masked before the
	// next search and measured with every other found signal masked (absent without --planets); peaks are then
	// the first search's. Singles are the deep events with fewer than three transits found on the way: events
	// without a period.
	Planets []blsPlanetJSON `json:"planets,omitempty"`
	Singles []blsSingleJSON `json:"singles,omitempty"`
	// MinMES is the --planets stop rule: the MES below which the search stopped.
	MinMES float64 `json:"min_mes,omitempty"`
}

// blsPlanetJSON is one planet of `bls --planets`: the search's peak, the window masked after it, and its
// measurement with every other found signal masked (quicklook.Stats; the trapezoid fit under "fit").
type blsPlanetJSON struct {
	Peak     blsPeakJSON     `json:"peak"`
	Measured quicklook.Stats `json:"measured"`
	Fit      vet.Trapezoid   `json:"fit"`
	Mask     multi.Mask      `json:"mask"`
}

// blsSingleJSON is a single event of `bls --planets`: its transits with data, each at its own mid-time.
type blsSingleJSON struct {
	Events []vet.Event `json:"events"`
}

// blsOptions are the inputs of 'transitbench bls'.
type blsOptions struct {
	Files     []string // the light curve, several Kepler FITS files of one star or a folder of quarters (the arguments)
	Star, Set string   // --star ID [--set dev]: a star of a public data set instead of files
	Masks     []string // --mask P,t0,D: known transits to mask (repeatable)
	Planets   int      // --planets: find up to N planets, masking each before the next search (0: one search)
	MinMES    float64  // --min-mes: the measured MES below which --planets stops
	PMin      float64  // --pmin: shortest period, days (0: 0.5)
	PMax      float64  // --pmax: longest period, days (0: a third of the span)
	Periods   int      // --periods: periods uniform in log period (0: Ofir's grid)
	Durations string   // --durations: comma-separated durations in days ("": the default durations)
	Objective string   // --objective: snr or likelihood
	Peaks     int      // --peaks: distinct peaks to print
	NoDetrend bool     // --no-detrend: search the flux as read
	Workers   int      // --workers: goroutines sharing the periods
}

func newBLSCmd() *cobra.Command {
	opts := &blsOptions{}
	cmd := &cobra.Command{
		Use:   "bls FILE...",
		Short: "Search a light curve for periodic transits (box least squares)",
		Long: `Search a light curve for periodic transits with box least squares and print the strongest distinct peaks.

FILE is anything the readers take: a Kepler FITS file, an IPAC table, a CSV (time,flux,flux_err,quality) or a
star directory (whose star.json's radius and mass bound the durations), or --star ID [--set dev], a star of a
public data set read as the star view and the agent server read it; several Kepler FITS files of one star,
or a folder of them, are stitched as quarters (each normalised by its median). Cadences flagged by the default
quality mask are dropped. The analysis is the one every front end shows (workspace/quicklook): the flux is
detrended with a running biweight three times the longest duration searched (12 h, longer for a low-density
star; --no-detrend skips it), and without grid flags the search is the quick-look search (a coarse periodogram
whose five strongest peaks are refined on the unbinned light curve), the peaks the star view, the agent
server and the results site show.

Grid flags ask for a grid instead: periods at Ofir's density (oversampling 3) from --pmin (0.5 d) to --pmax (a
third of the span) with durations from 0.5 h to the star's longest inside physical bounds at each period;
--periods N takes N periods uniform in log period, and --durations d1,d2,... (days) exactly those durations
at every period; --objective likelihood scores by likelihood. A grid of more than 5,000,000 (period, duration)
pairs is refused with its size: raise --pmin, lower --pmax or give --periods N.

Every peak is then measured as Kepler's DV measures a TCE (engine/vet.Measure): the light curve re-detrended
with the peak's transits (and --mask windows) masked, at the trapezoid's fitted T14. The statistics printed
first are the measured ones: period, t0, T14, depth, MES (SPEC A4's, the MES the data sets' answers state),
transits with data, the secondary eclipse searched clear of the whole transit and odd/even as a ratio with a
systematic floor (vet.Refine). The search's box (duration, SNR: what the peaks are ranked by) follows, and the
box statistics last under "box" (engine/vet.Compute's odd/even and secondary without the floor: inputs of the
learned vetter, engine/pipeline's features, not flags to read).

--mask P,t0,D (repeatable; days) removes the cadences within D/2 of every transit t0 + kP before the search:
the transits of planets already known. --planets N searches, masks the best peak's transits over 2 × its
fitted T14, and searches again, until N planets are found or the best peak's measured MES (with the signals
found before it masked) is below --min-mes; each planet is then measured with every other found signal masked.
The default --min-mes is chosen from its false-alarm rate on stars without planets (README, "Planets one after
another"). Deep events with fewer than three transits are masked on the way and listed as single events: each
transit with data at its own mid-time, with its depth and event MES, and no period.

Input checks: times must be BKJD days (BJD − 2454833). A span above 100,000 d (seconds), times beyond ±10⁷ d
and Julian dates (≈ 2.45·10⁶) are refused with what to convert: JD is refused rather than converted, so a
reported t0 is always in the time system of the file given. Flux must be relative: a flux whose median is ≤ 0 or with more than 10 % of values ≤ 0
(standardised or differenced) is refused; a positive flux whose median is outside 0.5–2 (e.g. e⁻/s) is divided
by its median, flux errors too, with a warning on stderr.

--json prints {"n_points", "n_periods", "n_durations", "objective", "detrended", "detrend_window_days", "search"
("quick-look" or "grid"), "seconds" (the search alone), "peaks": [{"period_days", "t0_days", "duration_days",
"depth", "depth_err", "snr", "power", "n_transits" (the search's box), "single" and "events" (a peak with fewer
than three transits: its transits with data, as "singles" below), or "measured": {"period_days", "t0_days",
"t14_days", "depth", "depth_err", "mes", "n_transits", "secondary_depth", "secondary_depth_err", "secondary_mes",
"secondary_phase", "odd_even_ratio", "odd_even_ratio_err", "odd_even_sigma", "box": {"odd_even_sigma",
"secondary_depth", "secondary_mes"}}}], "masks": [{"period_days", "t0_days", "window_days"}], "min_mes",
"planets": [{"peak", "measured", "fit": {"t14_days", "ingress_fraction", "depth", "offset_days"}, "mask"}],
"singles": [{"events": [{"t0_days", "duration_days", "depth", "depth_err", "mes", "cadences"}]}]}.`,
		Example: `  transitbench bls star/lightcurve.csv
  transitbench bls lc.csv --pmin 0.5 --pmax 124 --periods 20000 --durations 0.04,0.1,0.2 --no-detrend --json
  transitbench bls ../shared/data/kepler/fits/kic011442793 --planets 4
  transitbench bls --star dev-0042 --json
  transitbench bls lc.csv --mask 3.5225,121.1194,0.27`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Star != "" {
				if len(args) > 0 {
					return usageErrorf("bls takes either light-curve FILEs or --star ID, not both")
				}
				return nil
			}
			return lightCurveArgs("bls")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runBLS(cmd.Context(), streamsOf(cmd), opts)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&opts.PMin, "pmin", 0, "shortest period in days (default 0.5)")
	f.Float64Var(&opts.PMax, "pmax", 0, "longest period in days (default a third of the data span)")
	f.IntVar(&opts.Periods, "periods", 0, "number of periods uniform in log period (default: Ofir's optimal grid)")
	f.StringVar(&opts.Durations, "durations", "", "comma-separated durations in days, tried at every period (default 0.5 h to 12 h in physical bounds)")
	f.StringVar(&opts.Objective, "objective", "snr", "what a box is scored by: snr or likelihood")
	f.IntVar(&opts.Peaks, "peaks", 5, "number of distinct peaks to print")
	f.BoolVar(&opts.NoDetrend, "no-detrend", false, "search the flux as read, without the biweight detrending")
	f.IntVar(&opts.Workers, "workers", 1, "goroutines sharing the periods")
	f.StringVar(&opts.Star, "star", "", "search star ID of a public data set (as the star view and the agent server do) instead of files")
	f.StringVar(&opts.Set, "set", sets.Dev, "with --star: the star's data set")
	f.StringArrayVar(&opts.Masks, "mask", nil, "mask the transits of a known planet: P,t0,D in days (period, a mid-transit time, window width); repeatable")
	f.IntVar(&opts.Planets, "planets", 0, "find up to N planets, masking each one's transits (2 × its fitted T14) before searching again")
	f.Float64Var(&opts.MinMES, "min-mes", quicklook.DefaultMinMES, "with --planets: stop when the best peak's measured MES is below this")
	return cmd
}

// checkBLS checks the flags before any work and returns the objective and the durations (nil: the default).
func checkBLS(opts *blsOptions) (bls.Objective, []float64, error) {
	obj, err := bls.ParseObjective(opts.Objective)
	if err != nil {
		return obj, nil, usageErrorf("--objective %q: use snr or likelihood", opts.Objective)
	}
	pmin, pmax := opts.PMin, opts.PMax
	if pmin < 0 || pmax < 0 || math.IsNaN(pmin) || math.IsNaN(pmax) {
		return obj, nil, usageErrorf("--pmin and --pmax must be positive numbers of days")
	}
	if pmin > 0 && pmax > 0 && pmin >= pmax {
		return obj, nil, usageErrorf("--pmin %g must be below --pmax %g", pmin, pmax)
	}
	if opts.Periods < 0 {
		return obj, nil, usageErrorf("--periods %d: give a positive number of periods", opts.Periods)
	}
	if opts.Peaks < 1 {
		return obj, nil, usageErrorf("--peaks %d: give at least 1", opts.Peaks)
	}
	if opts.Planets < 0 {
		return obj, nil, usageErrorf("--planets %d: give a positive number of planets", opts.Planets)
	}
	if !(opts.MinMES > 0) || math.IsInf(opts.MinMES, 0) {
		return obj, nil, usageErrorf("--min-mes %g: give a positive MES", opts.MinMES)
	}
	durs, err := parseDurations(opts.Durations)
	if err != nil {
		return obj, nil, usageErrorf("--durations: %v", err)
	}
	if durs != nil && pmin > 0 && durs[len(durs)-1] >= pmin {
		return obj, nil, usageErrorf("--durations: the longest duration %g d must be shorter than --pmin %g d", durs[len(durs)-1], pmin)
	}
	return obj, durs, nil
}

// runBLS reads the light curve, prepares it (quicklook.Prepare: detrended for the longest duration searched)
// and searches it (quicklook's BLS: the quick-look search, or the grid the flags describe), then prints the
// strongest peaks measured (under JSON the blsJSON); with --planets it finds planets one after another
// (quicklook.FindPlanets) and prints them; warnings go to s.Err.
func runBLS(_ context.Context, s streams, opts *blsOptions) error {
	obj, durs, err := checkBLS(opts)
	if err != nil {
		return err
	}
	masks, err := parseMasks(opts.Masks)
	if err != nil {
		return err
	}
	var c *lc.LightCurve
	var name string
	var star *data.Star
	if opts.Star != "" {
		c, star, err = setStar(opts.Set, opts.Star)
		name = opts.Star
	} else {
		c, name, star, err = blsInput(s.Err, opts.Files)
	}
	if err != nil {
		return err
	}
	so := quicklook.SearchOptions{PMinDays: opts.PMin, PMaxDays: opts.PMax, Periods: opts.Periods, Durations: durs,
		Objective: obj, Peaks: opts.Peaks, Workers: opts.Workers, Masks: masks}
	a := quicklook.Prepare(c, star, quicklook.PrepareOptions{NoDetrend: opts.NoDetrend})
	var res *quicklook.BLSResult
	var planets []quicklook.Planet
	if opts.Planets > 0 {
		planets, res, err = quicklook.FindPlanets(a, quicklook.PlanetOptions{Planets: opts.Planets, MinMES: opts.MinMES, Search: so})
	} else {
		res, err = a.BLS(so)
	}
	if err != nil {
		var big *quicklook.GridTooLargeError
		switch {
		case errors.As(err, &big):
			span := c.Time[len(c.Time)-1] - c.Time[0]
			return usageErrorf("%v, above the cap of %d (period, duration) pairs; "+
				"raise --pmin, lower --pmax (e.g. --pmax %.4g) or give --periods N (e.g. --periods 20000)",
				big, bls.MaxGridWork, math.Min(span/bls.DefaultMinTransits, 100))
		case errors.Is(err, bls.ErrBadGrid):
			return usageErrorf("%v", err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	out := blsJSON{Objective: obj.String(), Detrended: !opts.NoDetrend, Search: "quick-look", Peaks: []blsPeakJSON{}, Masks: masks}
	if so.Grid() {
		out.Search = "grid"
	}
	if l := longestDuration(durs); l > 0 {
		a = a.ForDuration(l)
	}
	out.WindowDays = a.WindowDays
	if res != nil {
		out.NPoints, out.NPeriods, out.NDurations, out.Seconds = res.NPoints, res.NPeriods, res.NDurations, res.Seconds
		for i, p := range res.Peaks {
			out.Peaks = append(out.Peaks, peakJSON(p, res.Measured[i], res.Events[i]))
		}
	}
	if opts.Planets > 0 {
		out.MinMES = opts.MinMES
		if out.MinMES == 0 {
			out.MinMES = quicklook.DefaultMinMES
		}
	}
	for _, p := range planets {
		if p.Single {
			out.Singles = append(out.Singles, blsSingleJSON{Events: p.Events})
			continue
		}
		out.Planets = append(out.Planets, blsPlanetJSON{Peak: peakJSON(p.Peak, p.Measurement, nil),
			Measured: quicklook.StatsOf(p.Measurement), Fit: p.Fit, Mask: p.Mask})
	}
	if s.JSON {
		return writeJSON(s.Out, out)
	}
	return printBLS(s.Out, name, out)
}

// longestDuration is the last of the sorted durations (0 without).
func longestDuration(durs []float64) float64 {
	if len(durs) == 0 {
		return 0
	}
	return durs[len(durs)-1]
}

// peakJSON is a peak and its measurement as `bls --json` prints them: a peak with events (fewer than three
// transits) is a single event, reported by them.
func peakJSON(p bls.Peak, m vet.Measurement, events []vet.Event) blsPeakJSON {
	out := blsPeakJSON{PeriodDays: p.PeriodDays, T0Days: p.T0Days, DurationDays: p.DurationDays, Depth: p.Depth,
		DepthErr: p.DepthErr, SNR: p.SNR, Power: p.Power, NTransits: p.NTransits}
	if events != nil {
		out.Single, out.Events = true, events
		return out
	}
	st := quicklook.StatsOf(m)
	out.Measured = &st
	return out
}

// blsInput reads the light curve, checks that some cadence passes the default quality mask and rescales a flux
// that is not relative (warning on errw): the curve, its name and the star (star.json's when the input is a star
// directory; nil otherwise).
func blsInput(errw io.Writer, files []string) (*lc.LightCurve, string, *data.Star, error) {
	c, name, err := readInputs(files)
	if err != nil {
		return nil, name, nil, err
	}
	// The flagged cadences stay (quicklook flags them), so that a star directory is analysed exactly as the
	// star view and the agent server analyse the star.
	var good []float64
	for i := range c.Time {
		if c.Good(i, lc.DefaultQualityMask) {
			good = append(good, c.Flux[i])
		}
	}
	if len(good) == 0 {
		return nil, name, nil, fmt.Errorf("%s: no cadence passes the default quality mask; check the quality column", name)
	}
	if med := stat.Median(finiteValues(good)); med < minRelativeFlux || med > maxRelativeFlux {
		fmt.Fprintf(errw, "transitbench: warning: %s: the flux median is %.6g, not ≈ 1; dividing flux and flux_err by it (relative flux expected)\n", name, med)
		for i := range c.Flux {
			c.Flux[i] /= med
			c.FluxErr[i] /= med
		}
	}
	return c, name, starOfInput(files), nil
}

// setStar reads star id of a public data set (opened as built) with its metadata, refusing the hidden sets and
// stars.
func setStar(set, id string) (*lc.LightCurve, *data.Star, error) {
	if sets.IsHidden(set) || workspace.IsHiddenStar(id) {
		return nil, nil, hiddenf("set %s, star %s: hidden stars are not shown; search a dev or train star", set, id)
	}
	home, err := data.Home()
	if err != nil {
		return nil, nil, err
	}
	if err := checkSetName(home, "--set", set); err != nil {
		return nil, nil, err
	}
	s, err := sets.Open(home, set, sets.Options{AsBuilt: true})
	if err != nil {
		return nil, nil, err
	}
	if _, err := s.Info(id); err != nil {
		return nil, nil, notFoundf("%v (see 'transitbench data mini' or data/dev for star ids)", err)
	}
	return s.Star(id)
}

// starOfInput is star.json's star when files is one star directory, else nil.
func starOfInput(files []string) *data.Star {
	if len(files) != 1 {
		return nil
	}
	if fi, err := os.Stat(files[0]); err != nil || !fi.IsDir() {
		return nil
	}
	if _, star, err := data.ReadStarDir(files[0]); err == nil {
		return star
	}
	return nil
}

// parseMasks reads the --mask values P,t0,D (days).
func parseMasks(specs []string) ([]multi.Mask, error) {
	var out []multi.Mask
	for _, spec := range specs {
		parts := strings.Split(spec, ",")
		var v [3]float64
		ok := len(parts) == 3
		for i := 0; ok && i < 3; i++ {
			x, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
			v[i], ok = x, err == nil
		}
		m := multi.Mask{PeriodDays: v[0], T0Days: v[1], WindowDays: v[2]}
		if !ok || m.Check() != nil {
			return nil, usageErrorf("--mask %q: give P,t0,D in days (period, a mid-transit time, window width < period), e.g. --mask 3.5225,121.1194,0.27", spec)
		}
		out = append(out, m)
	}
	return out, nil
}

// A flux whose median lies outside [minRelativeFlux, maxRelativeFlux] is not relative and is divided by its
// median before the search; relative flux from any pipeline sits within a few percent of 1.
const (
	minRelativeFlux = 0.5
	maxRelativeFlux = 2.0
)

// finiteValues returns the finite values of x.
func finiteValues(x []float64) []float64 {
	out := make([]float64, 0, len(x))
	for _, v := range x {
		if stat.Finite(v) {
			out = append(out, v)
		}
	}
	return out
}

// parseDurations reads a comma-separated list of positive durations in days and returns it sorted and without
// repeats; an empty string gives nil.
func parseDurations(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%q is not a positive number of days (example: 0.04,0.08,0.16)", f)
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// printBLS prints the search's grid and its peaks, then the planets and single events, as tables: the
// measured statistics first (fitted T14, depth and MES at it, refined secondary and odd/even), the search's box
// and SNR after them, the box statistics last under "box".
func printBLS(w io.Writer, name string, out blsJSON) error {
	detr := fmt.Sprintf("detrended, %.2f d window", out.WindowDays)
	if !out.Detrended {
		detr = "not detrended"
	}
	fmt.Fprintf(w, "%s: %d points (%s), %s search of %d periods × %d durations, objective %s, search %.2f s\n",
		name, out.NPoints, detr, out.Search, out.NPeriods, out.NDurations, out.Objective, out.Seconds)
	if len(out.Peaks) == 0 {
		fmt.Fprintln(w, "no peak: no box dips below the mean at any period")
		return nil
	}
	for _, m := range out.Masks {
		fmt.Fprintf(w, "masked: P %.5f d, t0 %.4f, window %.2f h\n", m.PeriodDays, m.T0Days, 24*m.WindowDays)
	}
	fmt.Fprintln(w, "peaks, each measured (re-detrended with its transits masked, at the fitted T14):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tperiod d\tt0 BKJD\tT14 h\tdepth ppm\t± ppm\tMES\ttransits\tsec MES\todd/even σ\t│ box h\tbox snr\tbox: sec MES\todd/even σ\t")
	var singles []blsPeakJSON
	for i, p := range out.Peaks {
		if p.Single {
			fmt.Fprintf(tw, "%d\tsingle event\t(below)\t\t\t\t\t\t\t\t│ %.2f\t%.1f\t\t\t\n", i+1, 24*p.DurationDays, p.SNR)
			singles = append(singles, p)
			continue
		}
		m := p.Measured
		fmt.Fprintf(tw, "%d\t%.5f\t%.4f\t%.2f\t%.1f\t%.1f\t%.1f\t%d\t%.1f\t%.1f\t│ %.2f\t%.1f\t%.1f\t%.1f\t\n", i+1, m.PeriodDays, m.T0Days,
			24*m.T14Days, m.Depth*1e6, m.DepthErr*1e6, m.MES, m.NTransits, m.SecondaryMES, m.OddEvenSigma,
			24*p.DurationDays, p.SNR, m.Box.SecondaryMES, m.Box.OddEvenSigma)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range singles {
		for _, e := range p.Events {
			fmt.Fprintf(w, "single event: mid-time %.4f BKJD, duration %.2f h, depth %.1f ± %.1f ppm, event MES %.1f (%d cadences)\n",
				e.T0Days, 24*e.DurationDays, 1e6*e.Depth, 1e6*e.DepthErr, e.MES, e.Cadences)
		}
	}
	if out.MinMES == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nplanets found one after another (each masked before the next search, until the best peak's MES < %.1f), each measured with the others masked:\n", out.MinMES)
	if len(out.Planets) == 0 {
		fmt.Fprintln(w, "none")
	} else {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "#\tperiod d\tt0 BKJD\tT14 h\tdepth ppm\tMES\ttransits\tsec MES\todd/even ratio\t│ box: sec MES\todd/even σ\t")
		for i, p := range out.Planets {
			m := p.Measured
			fmt.Fprintf(tw, "%d\t%.5f\t%.4f\t%.2f\t%.1f\t%.1f\t%d\t%.1f\t%.3f±%.3f (%.1fσ)\t│ %.1f\t%.1f\t\n", i+1, m.PeriodDays,
				m.T0Days, 24*m.T14Days, 1e6*m.Depth, m.MES, m.NTransits, m.SecondaryMES, m.OddEvenRatio, m.OddEvenRatioErr,
				m.OddEvenSigma, m.Box.SecondaryMES, m.Box.OddEvenSigma)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(out.Singles) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nsingle events (fewer than three transits: no period), masked before the searches after them:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tmid-time BKJD\tduration h\tdepth ppm\t± ppm\tevent MES\tcadences\t")
	for i, sg := range out.Singles {
		for _, e := range sg.Events {
			fmt.Fprintf(tw, "%d\t%.4f\t%.2f\t%.1f\t%.1f\t%.1f\t%d\t\n", i+1, e.T0Days, 24*e.DurationDays, 1e6*e.Depth, 1e6*e.DepthErr, e.MES, e.Cadences)
		}
	}
	return tw.Flush()
}
