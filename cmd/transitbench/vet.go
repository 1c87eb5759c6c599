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
	"transitbench/engine/lc"
	"transitbench/engine/stat"
	"transitbench/engine/vet"
	"transitbench/workspace/quicklook"
)

func init() { register(newVetCmd) }

// vetReport is the JSON output of 'transitbench vet': the light curve's name, its valid cadences, the
// detrending window, the star's radius and mass when known, the candidate measured (quicklook.Measure:
// Measured, the statistics shown first; Features, engine/vet.Compute at the fitted T14; Refined) and the
// modulation on the raw flux.
type vetReport struct {
	File              string  `json:"file"`
	ValidCadences     int     `json:"valid_cadences"`
	DetrendWindowDays float64 `json:"detrend_window_days"`
	RadiusRsun        float64 `json:"radius_rsun,omitempty"`
	MassMsun          float64 `json:"mass_msun,omitempty"`
	// Given is the candidate as given; Measured its measurement at the fitted ephemeris.
	Given    vet.Ephemeris   `json:"given"`
	Measured quicklook.Stats `json:"measured"`
	// Features is engine/vet.Compute at the fitted T14 on the measured flux (its odd/even and secondary are the
	// box statistics, Measured.Box).
	Features vet.Features `json:"features"`
	// RawModulation is the modulation at the period measured on the flux before detrending (normalised by its
	// median), where a binary's ellipsoidal variation survives.
	RawModulation vet.Modulation `json:"raw_modulation"`
	// Refined is vet.Refine at the fitted transit: the trapezoid, the secondary searched clear of the whole
	// transit and odd/even as a depth ratio with a systematic floor (Measured's).
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
	// Masks are --mask P,t0,D: the star's other known planets, masked when measuring the candidate.
	Masks []string
}

func newVetCmd() *cobra.Command {
	opts := &vetOptions{}
	cmd := &cobra.Command{
		Use:   "vet FILE... --period P --t0 T --duration D",
		Short: "Vetting statistics of a candidate transit on a light curve",
		Long: `Measure a candidate (period and mid-transit time in days, BKJD; duration in days, e.g. a bls peak's box)
on a light curve as Kepler's DV measures a TCE, the one measurement every front end reports (workspace/quicklook,
engine/vet.Measure): the flux is re-detrended (biweight, 1.5 d window) with the candidate's transits masked so
that the trend runs under them, a trapezoid is fitted, and the statistics are measured at its T14.

Printed first, in this order: the fitted ephemeris (P, t0, T14), depth and its error, MES (SPEC A4's: the MES
the data sets' answers state) over the transits with data, the secondary eclipse searched with T14-wide boxes
clear of the whole transit (MES ≥ 7.1 flags a binary), and odd/even as a depth ratio with a systematic floor
(≥ 3σ flags a binary at twice its period). Then the shape (trapezoid ingress fraction), the share of the signal
in the strongest single event, transit-to-transit consistency, the duration against the star's density and the
modulation. Last, under "box": engine/vet.Compute's odd/even and secondary without the floor and with box-wide
windows, which the learned vetter takes as inputs beside the refined ones (engine/pipeline's features) and
which are not flags to read: on a deep planet over four years they exceed 3σ and 7.1 from the systematics
alone.

FILE is anything 'transitbench' reads (Kepler FITS, IPAC table, CSV, a star directory); several Kepler FITS
files are stitched as quarters of one star (each normalised by its median). Cadences flagged by the default
quality mask are dropped. The star's radius and mass come from --radius and --mass, or from star.json when FILE
is a star directory; without them the duration statistics are 0. --mask P,t0,D (repeatable; days, as bls takes
it) names the star's other known planets: their transits are masked before the candidate is measured, so that
they never read as its secondary eclipse or shape it, as bls --planets measures each planet with the others
masked.

--json prints {"file", "valid_cadences", "detrend_window_days", "radius_rsun", "mass_msun", "given": {"period_days",
"t0_days", "duration_days"}, "measured": {the keys of bls's "measured"}, "features": {engine/vet.Features at the
fitted T14}, "refined": {engine/vet.Refined}, "raw_modulation": {engine/vet.Modulation}} (depths and amplitudes
as fractions, times in days, phases in [0, 1)); raw_modulation is measured before detrending.`,
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
	cmd.Flags().StringArrayVar(&opts.Masks, "mask", nil, "another planet of the star, masked when measuring the candidate: P,t0,D in days (period, a mid-transit time, window width); repeatable")
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
	masks, err := parseMasks(opts.Masks)
	if err != nil {
		return err
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
	var star *data.Star
	if radius > 0 && mass > 0 {
		star = &data.Star{RadiusRsun: radius, MassMsun: mass}
	}
	a := quicklook.Prepare(c, star, quicklook.PrepareOptions{NoDetrend: true}) // the measurement detrends
	for _, m := range masks {
		a.Others = append(a.Others, vet.Ephemeris{PeriodDays: m.PeriodDays, T0Days: m.T0Days, DurationDays: m.WindowDays / vet.MaskFactor})
	}
	m := quicklook.Measure(a, quicklook.Ephemeris{Label: "given", PeriodDays: period, T0Days: t0, DurationDays: duration})
	rep := vetReport{File: path, ValidCadences: c.Len(), DetrendWindowDays: vet.MeasureWindowDays, RadiusRsun: radius, MassMsun: mass,
		Given:    vet.Ephemeris{PeriodDays: period, T0Days: t0, DurationDays: duration},
		Measured: quicklook.StatsOf(m), Features: m.Features, Refined: m.Refined,
		RawModulation: vet.MeasureModulation(c.Time, normalised(c.Flux), period, t0, duration)}
	if s.JSON {
		return writeJSON(s.Out, rep)
	}
	return printVet(s.Out, rep)
}

// printVet writes the measurement as a two-column table with units: the measured statistics first
// (statsLines), then the shape, single-event and stellar-density statistics and the modulation, and the box
// statistics last under "box".
func printVet(out io.Writer, rep vetReport) error {
	f := rep.Features
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	ppm := func(x float64) string { return fmt.Sprintf("%.1f ppm", x*1e6) }
	g := rep.Given
	lines := statsLines(rep.Measured)
	lines = append(lines,
		[2]string{"given", fmt.Sprintf("P %.6f d  t0 %.5f  duration %.2f h", g.PeriodDays, g.T0Days, 24*g.DurationDays)},
		[2]string{"light curve", fmt.Sprintf("%s, %d valid cadences, re-detrended with the transits masked (window %.2f d)", rep.File, rep.ValidCadences, rep.DetrendWindowDays)},
		[2]string{"shape", fmt.Sprintf("V-shape %.2f (V over box %+.1fσ), trapezoid depth %s, T14 %.2f h", f.VShape, f.VShapeSigma, ppm(f.TrapezoidDepth), 24*f.TrapezoidDurationDays)},
		[2]string{"single event", fmt.Sprintf("%.2f of SNR², strongest event %.1fσ", f.SingleEventFraction, f.MaxSingleEventSNR)},
		[2]string{"transit to transit", fmt.Sprintf("depth χ²/dof %.2f, %.0f %% within 1 d after a gap", f.EventChi2, 100*f.GapEdgeFraction)},
		[2]string{"Rp/R★", fmt.Sprintf("%.4f", f.RpRs)})
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
	lines = append(lines, boxLines(rep.Measured.Box)...)
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

// statsLines are the first lines of vet's and fold's reports: a measurement's statistics (quicklook.Stats).
func statsLines(m quicklook.Stats) [][2]string {
	ppm := func(x float64) string { return fmt.Sprintf("%.1f ppm", x*1e6) }
	ratio := "—"
	if m.OddEvenRatio > 0 {
		ratio = fmt.Sprintf("%.3f ± %.3f", m.OddEvenRatio, m.OddEvenRatioErr)
	}
	return [][2]string{
		{"measured", fmt.Sprintf("P %.6f d  t0 %.5f  T14 %.2f h (fitted trapezoid)", m.PeriodDays, m.T0Days, 24*m.T14Days)},
		{"depth", fmt.Sprintf("%s ± %s", ppm(m.Depth), ppm(m.DepthErr))},
		{"MES", fmt.Sprintf("%.2f over %d transits with data", m.MES, m.NTransits)},
		{"secondary", fmt.Sprintf("%s ± %s at phase %.3f  (MES %.1f; ≥ 7.1 flags a binary)", ppm(m.SecondaryDepth), ppm(m.SecondaryDepthErr), m.SecondaryPhase, m.SecondaryMES)},
		{"odd / even", fmt.Sprintf("ratio %s  (%.1fσ with a %.1f %% floor; ≥ 3σ flags a binary)", ratio, m.OddEvenSigma, 100*vet.OddEvenFloor)},
	}
}

// boxLines are the box statistics, labelled as such: the learned vetter's inputs, not the reported ones.
func boxLines(b quicklook.BoxStats) [][2]string {
	return [][2]string{
		{"box (vetter inputs)", "odd/even and secondary without the systematic floor, box-wide windows"},
		{"box odd / even", fmt.Sprintf("%.1fσ apart", b.OddEvenSigma)},
		{"box secondary", fmt.Sprintf("%.1f ppm  (MES %.1f)", b.SecondaryDepth*1e6, b.SecondaryMES)},
	}
}
