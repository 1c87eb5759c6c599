package main

import (
	"errors"
	"fmt"
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

func newBLSCmd() *cobra.Command {
	var (
		pmin, pmax float64
		nPeriods   int
		durations  string
		objective  string
		nPeaks     int
		noDetrend  bool
		workers    int
	)
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
by its median, flux errors too, with a warning on stderr.`,
		Example: `  transitbench bls star/lightcurve.csv
  transitbench bls lc.csv --pmin 0.5 --pmax 124 --periods 20000 --durations 0.04,0.1,0.2 --no-detrend --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			obj, err := bls.ParseObjective(objective)
			if err != nil {
				return usageErrorf("--objective %q: use snr or likelihood", objective)
			}
			if pmin < 0 || pmax < 0 || math.IsNaN(pmin) || math.IsNaN(pmax) {
				return usageErrorf("--pmin and --pmax must be positive numbers of days")
			}
			if pmin > 0 && pmax > 0 && pmin >= pmax {
				return usageErrorf("--pmin %g must be below --pmax %g", pmin, pmax)
			}
			if nPeriods < 0 {
				return usageErrorf("--periods %d: give a positive number of periods", nPeriods)
			}
			if nPeaks < 1 {
				return usageErrorf("--peaks %d: give at least 1", nPeaks)
			}
			durs, err := parseDurations(durations)
			if err != nil {
				return usageErrorf("--durations: %v", err)
			}
			if durs != nil && pmin > 0 && durs[len(durs)-1] >= pmin {
				return usageErrorf("--durations: the longest duration %g d must be shorter than --pmin %g d", durs[len(durs)-1], pmin)
			}

			if err := checkInputs(args...); err != nil {
				return err
			}
			c, err := data.ReadLightCurve(args[0])
			if err != nil {
				return withCode(codeBadInput, err)
			}
			c = c.Clean(lc.DefaultQualityMask)
			if c.Len() == 0 {
				return fmt.Errorf("%s: no cadence passes the default quality mask; check the quality column", args[0])
			}
			if med := stat.Median(finiteValues(c.Flux)); med < minRelativeFlux || med > maxRelativeFlux {
				fmt.Fprintf(cmd.ErrOrStderr(), "transitbench: warning: %s: the flux median is %.6g, not ≈ 1; dividing flux and flux_err by it (relative flux expected)\n", args[0], med)
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
			if !noDetrend {
				flat, trend := detrend.Flatten(c.Time, c.Flux, detrend.Options{WindowDays: detrend.WindowFor(maxDur)})
				flux = flat
				if dy != nil {
					for i := range dy {
						dy[i] /= trend[i]
					}
				}
			}

			g, err := blsGrid(c.Time, pmin, pmax, nPeriods, durs)
			if err != nil {
				return err
			}
			g.Workers = workers
			start := time.Now()
			res, err := bls.Search(c.Time, flux, dy, g, obj)
			secs := time.Since(start).Seconds()
			if err != nil {
				if errors.Is(err, bls.ErrBadGrid) {
					return usageErrorf("%v", err)
				}
				return fmt.Errorf("%s: %w", args[0], err)
			}
			out := blsJSON{
				NPoints: res.NPoints, NPeriods: len(g.Periods), NDurations: len(g.Durations),
				Objective: obj.String(), Detrended: !noDetrend, Seconds: secs, Peaks: []blsPeakJSON{},
			}
			for _, p := range res.Peaks(nPeaks) {
				out.Peaks = append(out.Peaks, blsPeakJSON(p))
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			return printBLS(cmd, args[0], out)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&pmin, "pmin", 0, "shortest period in days (default 0.5)")
	f.Float64Var(&pmax, "pmax", 0, "longest period in days (default a third of the data span)")
	f.IntVar(&nPeriods, "periods", 0, "number of periods uniform in log period (default: Ofir's optimal grid)")
	f.StringVar(&durations, "durations", "", "comma-separated durations in days, tried at every period (default 0.5 h to 12 h in physical bounds)")
	f.StringVar(&objective, "objective", "snr", "what a box is scored by: snr or likelihood")
	f.IntVar(&nPeaks, "peaks", 5, "number of distinct peaks to print")
	f.BoolVar(&noDetrend, "no-detrend", false, "search the flux as read, without the biweight detrending")
	f.IntVar(&workers, "workers", 1, "goroutines sharing the periods")
	return cmd
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
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
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

func printBLS(cmd *cobra.Command, name string, out blsJSON) error {
	w := cmd.OutOrStdout()
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
