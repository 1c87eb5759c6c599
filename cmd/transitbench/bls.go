package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/stat"
)

func init() { register(newBLSCmd) }

// blsPeakJSON is one peak of `bls --json`.
type blsPeakJSON struct {
	PeriodDays   float64 `json:"period_days"`
	T0Days       float64 `json:"t0_days"`
	DurationDays float64 `json:"duration_days"`
	Depth        float64 `json:"depth"`
	DepthErr     float64 `json:"depth_err"`
	SNR          float64 `json:"snr"`
	Power        float64 `json:"power"`
	NTransits    int     `json:"n_transits"`
}

// blsJSON is the output of `bls --json`; seconds is the time of the search alone (not reading or detrending).
type blsJSON struct {
	NPoints    int           `json:"n_points"`
	NPeriods   int           `json:"n_periods"`
	NDurations int           `json:"n_durations"`
	Objective  string        `json:"objective"`
	Detrended  bool          `json:"detrended"`
	Seconds    float64       `json:"seconds"`
	Peaks      []blsPeakJSON `json:"peaks"`
}

// blsOptions are the inputs of 'transitbench bls'.
type blsOptions struct {
	File      string  // the light curve (the argument)
	PMin      float64 // --pmin: shortest period, days (0: 0.5)
	PMax      float64 // --pmax: longest period, days (0: a third of the span)
	Periods   int     // --periods: periods uniform in log period (0: Ofir's grid)
	Durations string  // --durations: comma-separated durations in days ("": the default durations)
	Objective string  // --objective: snr or likelihood
	Peaks     int     // --peaks: distinct peaks to print
	NoDetrend bool    // --no-detrend: search the flux as read
	Workers   int     // --workers: goroutines sharing the periods
}

func newBLSCmd() *cobra.Command {
	opts := &blsOptions{}
	cmd := &cobra.Command{
		Use:   "bls FILE",
		Short: "Search a light curve for periodic transits (box least squares)",
		Long: `Search a light curve for periodic transits with box least squares and print the strongest distinct peaks.

FILE is anything the readers take: a Kepler FITS file, an IPAC table, a CSV (time,flux,flux_err,quality) or a
star directory. Cadences flagged by the default quality mask are dropped, and the flux is detrended with a
running biweight whose window is three times the longest duration searched (--no-detrend skips it).

The default grid samples periods at Ofir's optimal density from --pmin (0.5 d) to --pmax (a third of the span)
with durations from 0.5 h to 12 h inside physical bounds at each period. --periods N takes N periods uniform in
log period instead, and --durations d1,d2,... (days) tries exactly those durations at every period. A grid of
more than 5,000,000 (period, duration) pairs is refused with its size (the default grid of four years of Kepler
data is 2.3 million): raise --pmin, lower --pmax or give --periods N.

Input checks: times must be BKJD days (BJD − 2454833). A span above 100,000 d (seconds), times beyond ±10⁷ d
and Julian dates (≈ 2.45·10⁶) are refused with what to convert: JD is refused rather than converted, so a
reported t0 is always in the time system of the file given. Flux must be relative: a flux whose median is ≤ 0 or with more than 10 % of values ≤ 0
(standardised or differenced) is refused; a positive flux whose median is outside 0.5–2 (e.g. e⁻/s) is divided
by its median, flux errors too, with a warning on stderr.

--json prints {"n_points", "n_periods", "n_durations", "objective", "detrended", "seconds" (the search alone),
"peaks": [{"period_days", "t0_days", "duration_days", "depth", "depth_err", "snr", "power", "n_transits"}]}.`,
		Example: `  transitbench bls star/lightcurve.csv
  transitbench bls lc.csv --pmin 0.5 --pmax 124 --periods 20000 --durations 0.04,0.1,0.2 --no-detrend --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
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
	durs, err := parseDurations(opts.Durations)
	if err != nil {
		return obj, nil, usageErrorf("--durations: %v", err)
	}
	if durs != nil && pmin > 0 && durs[len(durs)-1] >= pmin {
		return obj, nil, usageErrorf("--durations: the longest duration %g d must be shorter than --pmin %g d", durs[len(durs)-1], pmin)
	}
	return obj, durs, nil
}

// runBLS reads the light curve, detrends it and searches it, then prints the strongest peaks (under JSON the
// blsJSON); warnings go to s.Err.
func runBLS(_ context.Context, s streams, opts *blsOptions) error {
	obj, durs, err := checkBLS(opts)
	if err != nil {
		return err
	}
	c, flux, dy, err := blsInput(s.Err, opts, durs)
	if err != nil {
		return err
	}
	g, err := blsGrid(c.Time, opts.PMin, opts.PMax, opts.Periods, durs)
	if err != nil {
		return err
	}
	g.Workers = opts.Workers
	start := time.Now()
	res, err := bls.Search(c.Time, flux, dy, g, obj)
	secs := time.Since(start).Seconds()
	if err != nil {
		if errors.Is(err, bls.ErrBadGrid) {
			return usageErrorf("%v", err)
		}
		return fmt.Errorf("%s: %w", opts.File, err)
	}
	out := blsJSON{
		NPoints: res.NPoints, NPeriods: len(g.Periods), NDurations: len(g.Durations),
		Objective: obj.String(), Detrended: !opts.NoDetrend, Seconds: secs, Peaks: []blsPeakJSON{},
	}
	for _, p := range res.Peaks(opts.Peaks) {
		out.Peaks = append(out.Peaks, blsPeakJSON(p))
	}
	if s.JSON {
		return writeJSON(s.Out, out)
	}
	return printBLS(s.Out, opts.File, out)
}

// blsInput reads and cleans the light curve, rescales a flux that is not relative (warning on errw) and
// detrends it unless --no-detrend: the curve, the flux to search and its errors (nil: unit weights).
func blsInput(errw io.Writer, opts *blsOptions, durs []float64) (*lc.LightCurve, []float64, []float64, error) {
	if err := checkInputs(opts.File); err != nil {
		return nil, nil, nil, err
	}
	c, err := data.ReadLightCurve(opts.File)
	if err != nil {
		return nil, nil, nil, withCode(codeBadInput, err)
	}
	c = c.Clean(lc.DefaultQualityMask)
	if c.Len() == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no cadence passes the default quality mask; check the quality column", opts.File)
	}
	if med := stat.Median(finiteValues(c.Flux)); med < minRelativeFlux || med > maxRelativeFlux {
		fmt.Fprintf(errw, "transitbench: warning: %s: the flux median is %.6g, not ≈ 1; dividing flux and flux_err by it (relative flux expected)\n", opts.File, med)
		for i := range c.Flux {
			c.Flux[i] /= med
			c.FluxErr[i] /= med
		}
	}
	maxDur := detrend.DefaultMaxDurationDays
	if durs != nil {
		maxDur = durs[len(durs)-1]
	}
	flux, dy := c.Flux, fluxErrors(c)
	if !opts.NoDetrend {
		flat, trend := detrend.Flatten(c.Time, c.Flux, detrend.Options{WindowDays: detrend.WindowFor(maxDur)})
		flux = flat
		if dy != nil {
			for i := range dy {
				dy[i] /= trend[i]
			}
		}
	}
	return c, flux, dy, nil
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

// fluxErrors returns a copy of the flux errors, or nil (unit weights) when no cadence has a finite positive
// error. Cadences with a missing error are then skipped by the search.
func fluxErrors(c *lc.LightCurve) []float64 {
	for _, e := range c.FluxErr {
		if e > 0 && !math.IsInf(e, 0) {
			return slices.Clone(c.FluxErr)
		}
	}
	return nil
}

// blsGrid builds the search grid from the flags: the default grid, or log-spaced periods (--periods) and/or
// explicit durations (--durations).
func blsGrid(t []float64, pmin, pmax float64, nPeriods int, durs []float64) (bls.Grid, error) {
	opt := bls.GridOptions{PMinDays: pmin, PMaxDays: pmax}
	span := t[len(t)-1] - t[0]
	tooLarge := func(what string) error {
		return usageErrorf("the period grid is too large: %s for a %.4g d span, above the cap of %d (period, duration) pairs; "+
			"raise --pmin, lower --pmax (e.g. --pmax %.4g) or give --periods N (e.g. --periods 20000)",
			what, span, bls.MaxGridWork, math.Min(span/bls.DefaultMinTransits, 100))
	}
	if nPeriods == 0 && durs == nil {
		g, err := bls.DefaultGrid(t, opt)
		if errors.Is(err, bls.ErrGridTooLarge) {
			o := opt
			if o.PMinDays == 0 {
				o.PMinDays = bls.DefaultPMinDays
			}
			if o.PMaxDays == 0 {
				o.PMaxDays = span / bls.DefaultMinTransits
			}
			n := bls.OfirCount(o.PMinDays, o.PMaxDays, span, bls.DefaultOversample, 1, 1)
			return bls.Grid{}, tooLarge(fmt.Sprintf("%.3g periods (%g–%g d) × up to %d durations", n, o.PMinDays, o.PMaxDays,
				len(bls.LogDurations(bls.DefaultDurMinDays, bls.DefaultDurMaxDays, bls.DefaultDurStep))))
		}
		return g, err
	}
	if pmin == 0 {
		pmin = bls.DefaultPMinDays
	}
	if pmax == 0 {
		pmax = span / bls.DefaultMinTransits
	}
	if pmin >= pmax {
		return bls.Grid{}, usageErrorf("period range %g–%g d is empty for a %.1f d span; give --pmin and --pmax", pmin, pmax, span)
	}
	nDur, durWhat := len(durs), fmt.Sprintf("%d durations", len(durs))
	if durs == nil {
		nDur, durWhat = 1, "at least 1 duration" // the exact count of default durations is checked below
	}
	var g bls.Grid
	if nPeriods > 0 {
		if float64(nPeriods)*float64(nDur) > bls.MaxGridWork {
			return bls.Grid{}, tooLarge(fmt.Sprintf("--periods %d × %s", nPeriods, durWhat))
		}
		g.Periods = bls.LogPeriodGrid(pmin, pmax, nPeriods)
	} else {
		if n := bls.OfirCount(pmin, pmax, span, bls.DefaultOversample, 1, 1); n*float64(nDur) > bls.MaxGridWork {
			return bls.Grid{}, tooLarge(fmt.Sprintf("%.3g periods (%g–%g d) × %s", n, pmin, pmax, durWhat))
		}
		g.Periods = bls.OfirPeriods(pmin, pmax, span, bls.DefaultOversample, 1, 1)
	}
	if durs != nil {
		g.Durations = durs
		return g, nil
	}
	g.Durations = bls.LogDurations(bls.DefaultDurMinDays, bls.DefaultDurMaxDays, bls.DefaultDurStep)
	periods := g.Periods
	g.Periods = nil
	for _, p := range periods {
		lo, hi := bls.DurationRange(p, g.Durations, bls.DefaultDurStep)
		if lo < hi {
			g.Periods = append(g.Periods, p)
			g.DurLo = append(g.DurLo, lo)
			g.DurHi = append(g.DurHi, hi)
		}
	}
	if w := bls.GridWork(g); w > bls.MaxGridWork {
		return bls.Grid{}, tooLarge(fmt.Sprintf("%d periods, %d (period, duration) pairs", len(g.Periods), w))
	}
	return g, nil
}

// printBLS prints the search's grid and its peaks as a table.
func printBLS(w io.Writer, name string, out blsJSON) error {
	detr := "detrended"
	if !out.Detrended {
		detr = "not detrended"
	}
	fmt.Fprintf(w, "%s: %d points (%s), %d periods × %d durations, objective %s, search %.2f s\n",
		name, out.NPoints, detr, out.NPeriods, out.NDurations, out.Objective, out.Seconds)
	if len(out.Peaks) == 0 {
		fmt.Fprintln(w, "no peak: no box dips below the mean at any period")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tperiod d\tt0 BKJD\tdur h\tdepth ppm\t± ppm\tsnr\tpower\ttransits\t")
	for i, p := range out.Peaks {
		fmt.Fprintf(tw, "%d\t%.5f\t%.4f\t%.2f\t%.1f\t%.1f\t%.1f\t%.4g\t%d\t\n", i+1, p.PeriodDays, p.T0Days,
			p.DurationDays*24, p.Depth*1e6, p.DepthErr*1e6, p.SNR, p.Power, p.NTransits)
	}
	return tw.Flush()
}
