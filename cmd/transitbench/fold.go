package main

import (
	"fmt"
	"math"
	"text/tabwriter"

	"github.com/guptarohit/asciigraph"
	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/engine/detrend"
	"transitbench/engine/fold"
	"transitbench/engine/lc"
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

// foldJSON is the output of `fold --json`.
type foldJSON struct {
	PeriodDays float64       `json:"period_days"`
	T0Days     float64       `json:"t0_days"`
	NPoints    int           `json:"n_points"`
	Detrended  bool          `json:"detrended"`
	Bins       []foldBinJSON `json:"bins"`
}

func newFoldCmd() *cobra.Command {
	var (
		period, t0, window float64
		nBins              int
		noDetrend          bool
	)
	cmd := &cobra.Command{
		Use:   "fold FILE --period P --t0 T",
		Short: "Fold a light curve on an ephemeris and bin it",
		Long: `Fold a light curve on a period and mid-transit time (days, BKJD) and print the binned flux against the
distance from mid-transit, over the whole period or over ±window/2.

FILE is anything the readers take (Kepler FITS, IPAC table, CSV, star directory). Cadences flagged by the default
quality mask are dropped and the flux is detrended with the default 1.5 d biweight unless --no-detrend is given.`,
		Example: "  transitbench fold lc.csv --period 12.3456 --t0 172.96 --bins 60 --window 1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("period") || !cmd.Flags().Changed("t0") {
				return usageErrorf("fold needs --period and --t0 (days)")
			}
			if !(period > 0) || math.IsInf(period, 0) {
				return usageErrorf("--period %g: give a positive number of days", period)
			}
			if math.IsNaN(t0) || math.IsInf(t0, 0) {
				return usageErrorf("--t0 %g: give a finite time in BKJD days", t0)
			}
			if nBins < 1 {
				return usageErrorf("--bins %d: give at least 1", nBins)
			}
			if window < 0 || math.IsNaN(window) {
				return usageErrorf("--window %g: give a positive width in days (0 = the whole period)", window)
			}
			if window == 0 || window > period {
				window = period
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
			flux := c.Flux
			if !noDetrend {
				flux, _ = detrend.Flatten(c.Time, c.Flux, detrend.Options{})
			}
			ph := fold.Phase(c.Time, period, t0)
			centers, mean, errs, count := fold.Bin(ph, flux, -window/2, window/2, nBins)
			out := foldJSON{PeriodDays: period, T0Days: t0, NPoints: c.Len(), Detrended: !noDetrend}
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
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			return printFold(cmd, args[0], out, mean)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&period, "period", 0, "period in days (required)")
	f.Float64Var(&t0, "t0", 0, "a mid-transit time in BKJD days (required)")
	f.IntVar(&nBins, "bins", 100, "number of phase bins")
	f.Float64Var(&window, "window", 0, "width in days of the phase range shown, centred on the transit (default the whole period)")
	f.BoolVar(&noDetrend, "no-detrend", false, "fold the flux as read, without the biweight detrending")
	return cmd
}

func printFold(cmd *cobra.Command, name string, out foldJSON, mean []float64) error {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s folded at P = %.6f d, t0 = %.5f BKJD: %d points, %d bins\n", name, out.PeriodDays, out.T0Days, out.NPoints, len(out.Bins))
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
