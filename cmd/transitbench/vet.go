package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/engine/detrend"
	"transitbench/engine/lc"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
)

func init() { register(newVetCmd) }

// vetReport is the JSON output of 'transitbench vet': the light curve's name, its valid cadences, the
// detrending window, the star's radius and mass when known, the features at the candidate (engine/vet.Features)
// and the modulation on the raw flux.
type vetReport struct {
	File              string       `json:"file"`
	ValidCadences     int          `json:"valid_cadences"`
	DetrendWindowDays float64      `json:"detrend_window_days"`
	RadiusRsun        float64      `json:"radius_rsun,omitempty"`
	MassMsun          float64      `json:"mass_msun,omitempty"`
	Features          vet.Features `json:"features"`
	// RawModulation is the modulation at the period measured on the flux before detrending (normalised by its
	// median), where a binary's ellipsoidal variation survives.
	RawModulation vet.Modulation `json:"raw_modulation"`
	// Refined is vet.Refine at the candidate: the trapezoid's T14 (the reported duration), the secondary
	// searched clear of the whole transit and odd/even as a depth ratio with a systematic floor. features keeps
	// the statistics at the given duration, which the learned vetter was trained on.
	Refined vet.Refined `json:"refined"`
}

// vetOptions are the inputs of 'transitbench vet'.
type vetOptions struct {
	Files    []string // the light curve, or several Kepler FITS files of one star (the arguments)
	Period   float64  // --period: orbital period, days
	T0       float64  // --t0: a mid-transit time, days
	Duration float64  // --duration: T14, days
	Radius   float64  // --radius: stellar radius, R☉ (0: from star.json for a star directory, else unknown)
	Mass     float64  // --mass: stellar mass, M☉ (0: as Radius)
	// Missing names the first of --period, --t0, --duration not given ("": all three were).
	Missing string
	// StarGiven is true when --radius or --mass was given: star.json's values are then not used.
	StarGiven bool
}

func newVetCmd() *cobra.Command {
	opts := &vetOptions{}
	cmd := &cobra.Command{
		Use:   "vet FILE... --period P --t0 T --duration D",
		Short: "Vetting statistics of a candidate transit on a light curve",
		Long: `Compute the vetting statistics of a candidate (period and mid-transit time in days, BKJD; duration T14
in days) on a light curve: depth and its error, MES, transits with data, odd/even depth difference, the
strongest secondary eclipse at the same period, the transit's shape (trapezoid ingress fraction), the share
of the signal in the strongest single event, and the duration against the star's density.

FILE is anything 'transitbench' reads (Kepler FITS, IPAC table, CSV, a star directory); several Kepler FITS
files are stitched as quarters of one star (each normalised by its median). Cadences flagged by
the default quality mask are dropped and the flux is flattened with a time-windowed biweight three times the
duration wide (engine/detrend). The star's radius and mass come from --radius and --mass, or from star.json
when FILE is a star directory; without them the duration statistics are 0.

--json prints {"file", "valid_cadences", "detrend_window_days", "radius_rsun", "mass_msun", "features": {...},
"raw_modulation": {...}} with the fields of engine/vet.Features and engine/vet.Modulation (depths and
amplitudes as fractions, times in days, phases in [0, 1)); raw_modulation is measured before detrending.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("vet needs a light-curve FILE (or several Kepler FITS files of one star)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			opts.Missing = ""
			for _, name := range []string{"period", "t0", "duration"} {
				if !cmd.Flags().Changed(name) {
					opts.Missing = name
					break
				}
			}
			opts.StarGiven = cmd.Flags().Changed("radius") || cmd.Flags().Changed("mass")
			return runVet(cmd.Context(), streamsOf(cmd), opts)
		},
	}
	cmd.Flags().Float64Var(&opts.Period, "period", 0, "orbital period, days")
	cmd.Flags().Float64Var(&opts.T0, "t0", 0, "a mid-transit time, days (BKJD for Kepler data)")
	cmd.Flags().Float64Var(&opts.Duration, "duration", 0, "transit duration T14, days")
	cmd.Flags().Float64Var(&opts.Radius, "radius", 0, "stellar radius, R☉ (optional)")
	cmd.Flags().Float64Var(&opts.Mass, "mass", 0, "stellar mass, M☉ (optional)")
	return cmd
}

// runVet computes the candidate's vetting statistics on the light curve and prints them (under JSON the
// vetReport).
func runVet(_ context.Context, s streams, opts *vetOptions) error {
	period, t0, duration := opts.Period, opts.T0, opts.Duration
	if opts.Missing != "" {
		return usageErrorf("vet needs --period, --t0 and --duration (days); --%s is missing", opts.Missing)
	}
	if !(period > 0) || !(duration > 0) || duration >= period || math.IsNaN(t0) {
		return usageErrorf("vet: --period (%g) and --duration (%g) must be positive days with duration < period", period, duration)
	}
	if len(opts.Files) == 0 {
		return usageErrorf("vet needs a light-curve FILE (or several Kepler FITS files of one star)")
	}
	c, path, err := readInputs(opts.Files)
	if err != nil {
		return err
	}
	radius, mass := opts.Radius, opts.Mass
	if fi, err := os.Stat(path); err == nil && fi.IsDir() && !opts.StarGiven {
		if _, star, err := data.ReadStarDir(path); err == nil && star != nil {
			radius, mass = star.RadiusRsun, star.MassMsun
		}
	}
	c = c.Clean(lc.DefaultQualityMask)
	if c.Len() == 0 {
		return fmt.Errorf("%s has no valid cadence after the default quality mask: nothing to vet", path)
	}
	window := detrend.WindowFor(duration)
	flat, _ := detrend.Flatten(c.Time, c.Flux, detrend.Options{WindowDays: window})
	var star *vet.Star
	if radius > 0 && mass > 0 {
		star = &vet.Star{RadiusRsun: radius, MassMsun: mass}
	}
	rep := vetReport{File: path, ValidCadences: c.Len(), DetrendWindowDays: window, RadiusRsun: radius, MassMsun: mass,
		Features:      vet.Compute(c.Time, flat, period, t0, duration, star),
		RawModulation: vet.MeasureModulation(c.Time, normalised(c.Flux), period, t0, duration),
		Refined:       vet.Refine(c.Time, flat, period, t0, duration)}
	if s.JSON {
		return writeJSON(s.Out, rep)
	}
	return printVet(s.Out, rep)
}

// printVet writes the features as a two-column table with units.
func printVet(out io.Writer, rep vetReport) error {
	f := rep.Features
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	ppm := func(x float64) string { return fmt.Sprintf("%.1f ppm", x*1e6) }
	lines := [][2]string{
		{"candidate", fmt.Sprintf("P %.6f d  t0 %.5f  T14 %.2f h", f.PeriodDays, f.T0Days, 24*f.DurationDays)},
		{"light curve", fmt.Sprintf("%s, %d valid cadences, detrend window %.2f d", rep.File, rep.ValidCadences, rep.DetrendWindowDays)},
		{"transits with data", fmt.Sprint(f.NTransits)},
		{"depth", fmt.Sprintf("%s ± %s  (%.1fσ)", ppm(f.Depth), ppm(f.DepthErr), f.DepthSNR)},
		{"MES", fmt.Sprintf("%.2f  (σ_D %s)", f.MES, ppm(f.SigmaD))},
		{"odd / even", fmt.Sprintf("%s / %s  (%.1fσ apart)", ppm(f.OddDepth), ppm(f.EvenDepth), f.OddEvenSigma)},
		{"secondary", fmt.Sprintf("%s ± %s at phase %.3f  (MES %.1f)", ppm(f.SecondaryDepth), ppm(f.SecondaryDepthErr), f.SecondaryPhase, f.SecondaryMES)},
		{"shape", fmt.Sprintf("V-shape %.2f (V over box %+.1fσ), trapezoid depth %s, T14 %.2f h", f.VShape, f.VShapeSigma, ppm(f.TrapezoidDepth), 24*f.TrapezoidDurationDays)},
		{"single event", fmt.Sprintf("%.2f of SNR², strongest event %.1fσ", f.SingleEventFraction, f.MaxSingleEventSNR)},
		{"transit to transit", fmt.Sprintf("depth χ²/dof %.2f, %.0f %% within 1 d after a gap", f.EventChi2, 100*f.GapEdgeFraction)},
		{"Rp/R★", fmt.Sprintf("%.4f", f.RpRs)},
	}
	if f.ExpectedDurationDays > 0 {
		lines = append(lines, [2]string{"duration vs star", fmt.Sprintf("%.2f × the central-transit T14 of %.2f h (R★ %.2f, M★ %.2f)",
			f.DurationRatio, 24*f.ExpectedDurationDays, rep.RadiusRsun, rep.MassMsun)})
	} else {
		lines = append(lines, [2]string{"duration vs star", "unknown (give --radius and --mass)"})
	}
	m := rep.RawModulation
	lines = append(lines,
		[2]string{"ellipsoidal (raw)", fmt.Sprintf("%s  (SNR %.1f; detrended: SNR %.1f)", ppm(m.EllipsoidalAmp), m.EllipsoidalSNR, f.EllipsoidalSNR)},
		[2]string{"reflection (raw)", fmt.Sprintf("%s  (SNR %.1f; detrended: SNR %.1f)", ppm(m.ReflectionAmp), m.ReflectionSNR, f.ReflectionSNR)})
	lines = append(lines, refinedLines(rep.Refined)...)
	for _, l := range lines {
		fmt.Fprintf(w, "%s\t%s\n", l[0], l[1])
	}
	return w.Flush()
}

// normalised returns flux divided by its median (of the finite values).
func normalised(flux []float64) []float64 {
	var ok []float64
	for _, f := range flux {
		if stat.Finite(f) {
			ok = append(ok, f)
		}
	}
	med := stat.Median(ok)
	out := make([]float64, len(flux))
	for i, f := range flux {
		out[i] = f / med
	}
	return out
}

// refinedLines are the lines of vet.Refine's statistics in vet's and bls's tables.
func refinedLines(r vet.Refined) [][2]string {
	ppm := func(x float64) string { return fmt.Sprintf("%.1f ppm", x*1e6) }
	if r.Fit.T14Days == 0 {
		return [][2]string{{"fitted T14", "no fit (too few cadences near the transit)"}}
	}
	ratio := "—"
	if r.OddEvenRatio > 0 {
		ratio = fmt.Sprintf("%.3f ± %.3f", r.OddEvenRatio, r.OddEvenRatioErr)
	}
	return [][2]string{
		{"fitted T14", fmt.Sprintf("%.2f h (trapezoid: depth %s, ingress fraction %.2f, mid-time %+.1f min)",
			24*r.Fit.T14Days, ppm(r.Fit.Depth), r.Fit.IngressFraction, 1440*r.Fit.OffsetDays)},
		{"secondary at T14", fmt.Sprintf("%s ± %s at phase %.3f  (MES %.1f)", ppm(r.SecondaryDepth), ppm(r.SecondaryDepthErr), r.SecondaryPhase, r.SecondaryMES)},
		{"odd / even ratio", fmt.Sprintf("%s  (%.1fσ with a %.1f %% floor; %d outlier transits left out)",
			ratio, r.OddEvenSigma, 100*vet.OddEvenFloor, r.RejectedTransits)},
	}
}
