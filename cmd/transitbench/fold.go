package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/guptarohit/asciigraph"
	"github.com/spf13/cobra"

	"transitbench/engine/fold"
	"transitbench/engine/lc"
	"transitbench/workspace/quicklook"
)

func init() { register(newFoldCmd) }

// foldBinJSON is one bin of `fold --json`: phase in days from mid-transit (bin center), mean relative flux,
// its standard error (null when the bin has fewer than two points) and the number of points.
type foldBinJSON struct {
	PhaseDays float64  `json:"phase_days"`
	Flux      *float64 `json:"flux"`
	Err       *float64 `json:"err"`
	Count     int      `json:"count"`
}

// foldJSON is the output of `fold --json`: the ephemeris, the number of valid cadences folded, whether the flux
// was detrended, and the bins in phase order.
type foldJSON struct {
	PeriodDays float64 `json:"period_days"`
	T0Days     float64 `json:"t0_days"`
	NPoints    int     `json:"n_points"`
	Detrended  bool    `json:"detrended"`
	// Detrending says how the folded flux was detrended: "search" (the biweight for the longest duration
	// searched), "measured" (with --duration: re-detrended with the transits masked, as measured) or "none".
	Detrending string        `json:"detrending"`
	Bins       []foldBinJSON `json:"bins"`
	// Measured is the signal measured at the ephemeris with the --duration box (quicklook.Measure: the fitted
	// T14, depth, MES, the refined secondary and odd/even, the box statistics under "box"); absent without
	// --duration.
	Measured *quicklook.Stats `json:"measured,omitempty"`
}

// foldOptions are the inputs of 'transitbench fold'.
type foldOptions struct {
	Files     []string // the light curve, several Kepler FITS files of one star or a folder of quarters (the arguments)
	Duration  float64  // --duration: the box duration, days (0: no vetting statistics)
	Period    float64  // --period: days (required)
	T0        float64  // --t0: a mid-transit time, BKJD days (required)
	HaveEphem bool     // both --period and --t0 were given
	Bins      int      // --bins: number of phase bins
	Window    float64  // --window: width in days of the phase range, centred on the transit (0: the whole period)
	NoDetrend bool     // --no-detrend: fold the flux as read
}

func newFoldCmd() *cobra.Command {
	opts := &foldOptions{}
	cmd := &cobra.Command{
		Use:   "fold FILE... --period P --t0 T",
		Short: "Fold a light curve on an ephemeris and bin it",
		Long: `Fold a light curve on a period and mid-transit time (days, BKJD) and print the binned flux against the
distance from mid-transit, over the whole period or over ±window/2.

FILE is anything the readers take (Kepler FITS, IPAC table, CSV, star directory); several Kepler FITS files of
one star, or a folder of them, are stitched as quarters. Cadences flagged by the default quality mask are
dropped. The flux folded is the analysis every front end shows (workspace/quicklook): detrended with the
search's biweight (three times the longest duration searched: 1.5 d, longer for a low-density star in a star
directory) unless --no-detrend is given. With --duration (days, e.g. a bls peak's box) the signal is measured
as vet and bls measure it (re-detrended with its transits masked, at the trapezoid's fitted T14), that flux is
folded, and its statistics are printed first: the fitted ephemeris, depth, MES, transits with data, the
secondary clear of the whole transit and odd/even as a ratio with a systematic floor; the box statistics (the
learned vetter's inputs) last, labelled box.

--json prints {"period_days", "t0_days", "n_points", "detrended", "detrending" ("search", "measured" or "none"),
"bins": [{"phase_days", "flux", "err", "count"}], "measured"} with "flux" and "err" null for a bin without enough
points and "measured" (the keys of bls's "measured") only with --duration.`,
		Example: "  transitbench fold lc.csv --period 12.3456 --t0 172.96 --bins 60 --window 1",
		Args:    lightCurveArgs("fold"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			opts.HaveEphem = cmd.Flags().Changed("period") && cmd.Flags().Changed("t0")
			return runFold(cmd.Context(), streamsOf(cmd), opts)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&opts.Period, "period", 0, "period in days (required)")
	f.Float64Var(&opts.T0, "t0", 0, "a mid-transit time in BKJD days (required)")
	f.IntVar(&opts.Bins, "bins", 100, "number of phase bins")
	f.Float64Var(&opts.Window, "window", 0, "width in days of the phase range shown, centred on the transit (default the whole period)")
	f.BoolVar(&opts.NoDetrend, "no-detrend", false, "fold the flux as read, without the biweight detrending")
	f.Float64Var(&opts.Duration, "duration", 0, "box duration in days: also measure the signal (fitted T14, depth, MES, secondary, odd/even) and fold the flux it is measured on")
	return cmd
}

// checkFold checks the flags before any work and returns the window in days.
func checkFold(opts *foldOptions) (float64, error) {
	period, t0, window := opts.Period, opts.T0, opts.Window
	if !opts.HaveEphem {
		return 0, usageErrorf("fold needs --period and --t0 (days)")
	}
	if !(period > 0) || math.IsInf(period, 0) {
		return 0, usageErrorf("--period %g: give a positive number of days", period)
	}
	if math.IsNaN(t0) || math.IsInf(t0, 0) {
		return 0, usageErrorf("--t0 %g: give a finite time in BKJD days", t0)
	}
	if opts.Bins < 1 {
		return 0, usageErrorf("--bins %d: give at least 1", opts.Bins)
	}
	if window < 0 || math.IsNaN(window) {
		return 0, usageErrorf("--window %g: give a positive width in days (0 = the whole period)", window)
	}
	if !(opts.Duration >= 0) || opts.Duration >= period {
		return 0, usageErrorf("--duration %g: give a positive number of days below the period", opts.Duration)
	}
	if window == 0 || window > period {
		window = period
	}
	return window, nil
}

// runFold folds and bins the light curve and prints the bins with a plot (under JSON the foldJSON).
func runFold(_ context.Context, s streams, opts *foldOptions) error {
	window, err := checkFold(opts)
	if err != nil {
		return err
	}
	c, name, err := readInputs(opts.Files)
	if err != nil {
		return err
	}
	c = c.Clean(lc.DefaultQualityMask)
	if c.Len() == 0 {
		return fmt.Errorf("%s: no cadence passes the default quality mask; check the quality column", name)
	}
	a := quicklook.Prepare(c, starOfInput(opts.Files), quicklook.PrepareOptions{NoDetrend: opts.NoDetrend})
	flux, detr := a.Flat, "search"
	var m *quicklook.Stats
	if opts.NoDetrend {
		detr = "none"
	}
	if opts.Duration > 0 {
		e := quicklook.Ephemeris{Label: "given", PeriodDays: opts.Period, T0Days: opts.T0, DurationDays: opts.Duration}
		f, meas := quicklook.MeasuredFlux(a, e)
		st := quicklook.StatsOf(meas)
		m = &st
		if !opts.NoDetrend {
			flux, detr = f, "measured"
		}
	}
	ph := fold.Phase(c.Time, opts.Period, opts.T0)
	centers, mean, errs, count := fold.Bin(ph, flux, -window/2, window/2, opts.Bins)
	out := foldJSON{PeriodDays: opts.Period, T0Days: opts.T0, NPoints: c.Len(), Detrended: !opts.NoDetrend, Detrending: detr, Measured: m}
	for j := range centers {
		b := foldBinJSON{PhaseDays: centers[j], Count: count[j]}
		if !math.IsNaN(mean[j]) {
			b.Flux = &mean[j]
		}
		if !math.IsNaN(errs[j]) {
			b.Err = &errs[j]
		}
		out.Bins = append(out.Bins, b)
	}
	if s.JSON {
		return writeJSON(s.Out, out)
	}
	return printFold(s.Out, name, out, mean)
}

// printFold prints the fold's bins as a plot and a table.
func printFold(w io.Writer, name string, out foldJSON, mean []float64) error {
	fmt.Fprintf(w, "%s folded at P = %.6f d, t0 = %.5f BKJD: %d points, %d bins, detrending: %s\n", name, out.PeriodDays, out.T0Days, out.NPoints, len(out.Bins), out.Detrending)
	if out.Measured != nil {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, l := range statsLines(*out.Measured) {
			fmt.Fprintf(tw, "%s\t%s\n", l[0], l[1])
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	// The plot shows relative flux in ppm below 1; empty bins repeat their left neighbour.
	series := make([]float64, 0, len(mean))
	last := math.NaN()
	for _, m := range mean {
		if !math.IsNaN(m) {
			last = (m - 1) * 1e6
		}
		if !math.IsNaN(last) {
			series = append(series, last)
		}
	}
	if len(series) > 1 {
		fmt.Fprintln(w, asciigraph.Plot(series, asciigraph.Height(10), asciigraph.Width(min(len(series), 100)),
			asciigraph.Caption(fmt.Sprintf("flux − 1 (ppm) from %.3f to %.3f d from mid-transit", out.Bins[0].PhaseDays, out.Bins[len(out.Bins)-1].PhaseDays))))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase d\tflux − 1 ppm\t± ppm\tpoints\t")
	for _, b := range out.Bins {
		fl, e := "—", "—"
		if b.Flux != nil {
			fl = fmt.Sprintf("%.1f", (*b.Flux-1)*1e6)
		}
		if b.Err != nil {
			e = fmt.Sprintf("%.1f", *b.Err*1e6)
		}
		fmt.Fprintf(tw, "%.4f\t%s\t%s\t%d\t\n", b.PhaseDays, fl, e, b.Count)
	}
	return tw.Flush()
}
