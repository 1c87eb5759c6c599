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

	"transitbench/engine/bls"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/multi"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
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
	// Masks are the --mask windows removed before the search.
	Masks []multi.Mask `json:"masks,omitempty"`
	// Planets are the signals --planets found one after another, each with its transits masked before the
	// next search (absent without --planets); peaks are then the first search's.
	Planets []blsPlanetJSON `json:"planets,omitempty"`
}

// blsPlanetJSON is one planet of `bls --planets`: the peak, its fitted trapezoid and the window masked after
// it, and its vetting statistics on the flux with the earlier planets masked: Compute's at the box
// (box_secondary_mes, box_odd_even_sigma: the values the learned vetter sees) and vet.Refine's.
type blsPlanetJSON struct {
	blsPeakJSON
	Fit             vet.Trapezoid `json:"fit"`
	Mask            multi.Mask    `json:"mask"`
	BoxSecondaryMES float64       `json:"box_secondary_mes"`
	BoxOddEvenSigma float64       `json:"box_odd_even_sigma"`
	Refined         vet.Refined   `json:"refined"`
	// Single marks a deep event with fewer than two transits: masked so that it does not hide the planets
	// under it, not counted among the --planets N.
	Single bool `json:"single"`
}

// blsOptions are the inputs of 'transitbench bls'.
type blsOptions struct {
	Files     []string // the light curve, several Kepler FITS files of one star or a folder of quarters (the arguments)
	Masks     []string // --mask P,t0,D: known transits to mask (repeatable)
	Planets   int      // --planets: find up to N planets, masking each before the next search (0: one search)
	MinSNR    float64  // --min-snr: the SNR below which --planets stops
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
star directory; several Kepler FITS files of one star, or a folder of them, are stitched as quarters (each
normalised by its median). Cadences flagged by the default quality mask are dropped, and the flux is detrended with a
running biweight whose window is three times the longest duration searched (--no-detrend skips it).

The default grid samples periods at Ofir's optimal density from --pmin (0.5 d) to --pmax (a third of the span)
with durations from 0.5 h to 12 h inside physical bounds at each period. --periods N takes N periods uniform in
log period instead, and --durations d1,d2,... (days) tries exactly those durations at every period. A grid of
more than 5,000,000 (period, duration) pairs is refused with its size (the default grid of four years of Kepler
data is 2.3 million): raise --pmin, lower --pmax or give --periods N.

--mask P,t0,D (repeatable; days) removes the cadences within D/2 of every transit t0 + kP before the search:
the transits of planets already known. --planets N searches, fits the best peak's T14 with a trapezoid,
masks its transits over 2 × T14, and searches again, until N planets are found or the best peak's SNR is
below --min-snr (7.1); each planet is printed with its fitted T14 and its vetting statistics (secondary MES
and odd/even at the box, as the learned vetter sees them, and refined at the fitted T14).

Input checks: times must be BKJD days (BJD − 2454833). A span above 100,000 d (seconds), times beyond ±10⁷ d
and Julian dates (≈ 2.45·10⁶) are refused with what to convert: JD is refused rather than converted, so a
reported t0 is always in the time system of the file given. Flux must be relative: a flux whose median is ≤ 0 or with more than 10 % of values ≤ 0
(standardised or differenced) is refused; a positive flux whose median is outside 0.5–2 (e.g. e⁻/s) is divided
by its median, flux errors too, with a warning on stderr.

--json prints {"n_points", "n_periods", "n_durations", "objective", "detrended", "seconds" (the search alone),
"peaks": [{"period_days", "t0_days", "duration_days", "depth", "depth_err", "snr", "power", "n_transits"}],
"masks": [{"period_days", "t0_days", "window_days"}], "planets": [{the peak's keys, "fit": {"t14_days",
"ingress_fraction", "depth", "offset_days"}, "mask", "box_secondary_mes", "box_odd_even_sigma", "refined":
{engine/vet.Refined}}]}.`,
		Example: `  transitbench bls star/lightcurve.csv
  transitbench bls lc.csv --pmin 0.5 --pmax 124 --periods 20000 --durations 0.04,0.1,0.2 --no-detrend --json
  transitbench bls ../shared/data/kepler/fits/kic011442793 --planets 4
  transitbench bls lc.csv --mask 3.5225,121.1194,0.27`,
		Args: lightCurveArgs("bls"),
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
	f.StringArrayVar(&opts.Masks, "mask", nil, "mask the transits of a known planet: P,t0,D in days (period, a mid-transit time, window width); repeatable")
	f.IntVar(&opts.Planets, "planets", 0, "find up to N planets, masking each one's transits (2 × its fitted T14) before searching again")
	f.Float64Var(&opts.MinSNR, "min-snr", multi.DefaultMinSNR, "with --planets: stop when the best peak's SNR is below this")
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
	if !(opts.MinSNR > 0) || math.IsInf(opts.MinSNR, 0) {
		return obj, nil, usageErrorf("--min-snr %g: give a positive SNR", opts.MinSNR)
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
// blsJSON); with --planets it iterates (engine/multi) and prints the planets found; warnings go to s.Err.
func runBLS(_ context.Context, s streams, opts *blsOptions) error {
	obj, durs, err := checkBLS(opts)
	if err != nil {
		return err
	}
	masks, err := parseMasks(opts.Masks)
	if err != nil {
		return err
	}
	c, name, flux, dy, err := blsInput(s.Err, opts, durs)
	if err != nil {
		return err
	}
	g, err := blsGrid(c.Time, opts.PMin, opts.PMax, opts.Periods, durs)
	if err != nil {
		return err
	}
	g.Workers = opts.Workers
	var res *bls.Result
	search := func(y []float64) ([]bls.Peak, error) {
		r, err := bls.Search(c.Time, y, dy, g, obj)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = r
		}
		return r.Peaks(opts.Peaks), nil
	}
	start := time.Now()
	var planets []multi.Planet
	var first []bls.Peak
	if opts.Planets > 0 {
		planets, err = multi.Iterate(c.Time, flux, search, multi.Options{Planets: opts.Planets, MinSNR: opts.MinSNR, Masks: masks})
		if len(planets) > 0 {
			first = append([]bls.Peak{planets[0].Peak}, planets[0].Next...)
		} else if res != nil {
			first = res.Peaks(opts.Peaks)
		}
	} else {
		first, err = search(multi.Apply(c.Time, flux, masks))
	}
	secs := time.Since(start).Seconds()
	if err != nil {
		if errors.Is(err, bls.ErrBadGrid) {
			return usageErrorf("%v", err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	out := blsJSON{
		NPoints: res.NPoints, NPeriods: len(g.Periods), NDurations: len(g.Durations),
		Objective: obj.String(), Detrended: !opts.NoDetrend, Seconds: secs, Peaks: []blsPeakJSON{}, Masks: masks,
	}
	for _, p := range first {
		out.Peaks = append(out.Peaks, blsPeakJSON(p))
	}
	out.Planets = vetPlanets(c.Time, flux, masks, planets)
	if s.JSON {
		return writeJSON(s.Out, out)
	}
	return printBLS(s.Out, name, out)
}

// vetPlanets measures each planet's vetting statistics on flux with the --mask windows and the earlier
// planets' windows masked.
func vetPlanets(t, flux []float64, masks []multi.Mask, planets []multi.Planet) []blsPlanetJSON {
	var out []blsPlanetJSON
	y := multi.Apply(t, flux, masks)
	for _, p := range planets {
		pk := p.Peak
		box := vet.Compute(t, y, pk.PeriodDays, pk.T0Days, pk.DurationDays, nil)
		out = append(out, blsPlanetJSON{blsPeakJSON: blsPeakJSON(pk), Fit: p.Fit, Mask: p.Mask,
			BoxSecondaryMES: box.SecondaryMES, BoxOddEvenSigma: box.OddEvenSigma,
			Refined: vet.Refine(t, y, pk.PeriodDays, pk.T0Days, pk.DurationDays), Single: p.Single})
		y = multi.Apply(t, y, []multi.Mask{p.Mask})
	}
	return out
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

// blsInput reads and cleans the light curve, rescales a flux that is not relative (warning on errw) and
// detrends it unless --no-detrend: the curve, its name, the flux to search and its errors (nil: unit weights).
func blsInput(errw io.Writer, opts *blsOptions, durs []float64) (*lc.LightCurve, string, []float64, []float64, error) {
	c, name, err := readInputs(opts.Files)
	if err != nil {
		return nil, name, nil, nil, err
	}
	c = c.Clean(lc.DefaultQualityMask)
	if c.Len() == 0 {
		return nil, name, nil, nil, fmt.Errorf("%s: no cadence passes the default quality mask; check the quality column", name)
	}
	if med := stat.Median(finiteValues(c.Flux)); med < minRelativeFlux || med > maxRelativeFlux {
		fmt.Fprintf(errw, "transitbench: warning: %s: the flux median is %.6g, not ≈ 1; dividing flux and flux_err by it (relative flux expected)\n", name, med)
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
	return c, name, flux, dy, nil
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
	for _, m := range out.Masks {
		fmt.Fprintf(w, "masked: P %.5f d, t0 %.4f, window %.2f h\n", m.PeriodDays, m.T0Days, 24*m.WindowDays)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tperiod d\tt0 BKJD\tdur h\tdepth ppm\t± ppm\tsnr\tpower\ttransits\t")
	for i, p := range out.Peaks {
		fmt.Fprintf(tw, "%d\t%.5f\t%.4f\t%.2f\t%.1f\t%.1f\t%.1f\t%.4g\t%d\t\n", i+1, p.PeriodDays, p.T0Days,
			p.DurationDays*24, p.Depth*1e6, p.DepthErr*1e6, p.SNR, p.Power, p.NTransits)
	}
	if err := tw.Flush(); err != nil || len(out.Planets) == 0 {
		return err
	}
	fmt.Fprintf(w, "\nplanets found one after another (each masked before the next search):\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tperiod d\tt0 BKJD\tT14 h\tdepth ppm\tsnr\ttransits\tsec MES box→T14\todd/even σ box→ratio\t")
	for i, p := range out.Planets {
		r := p.Refined
		num := strconv.Itoa(i + 1)
		if p.Single {
			num = "single"
		}
		fmt.Fprintf(tw, "%s\t%.5f\t%.4f\t%.2f\t%.1f\t%.1f\t%d\t%.1f → %.1f\t%.1f → %.3f±%.3f (%.1fσ)\t\n", num, p.PeriodDays,
			p.T0Days, 24*r.DurationDays, 1e6*r.Fit.Depth, p.SNR, p.NTransits, p.BoxSecondaryMES, r.SecondaryMES,
			p.BoxOddEvenSigma, r.OddEvenRatio, r.OddEvenRatioErr, r.OddEvenSigma)
	}
	return tw.Flush()
}
