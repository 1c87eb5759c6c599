package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/workspace/figure"
	"transitbench/workspace/quicklook"
)

func init() { register(newPlotCmd) }

func newPlotCmd() *cobra.Command {
	var (
		star, set, out string
		widthIn        float64
	)
	cmd := &cobra.Command{
		Use:   "plot --star ID [--set dev] --out FILE.png",
		Short: "Draw a star's light curve, periodogram and folded transit as a PNG figure",
		Long: `Draw the star view of the terminal UI as a PNG figure for slides and reports: the raw light curve (flagged
cadences in orange), the detrended light curve with the folded ephemeris's transits marked, the BLS
periodogram with its strongest peaks, and the light curve folded at the truth (labelled stars with a signal)
or else at the strongest BLS peak, with binned means. The analysis is the terminal UI's (workspace/quicklook).
Hidden sets are refused: their answers never leave the data directory.

--json prints {"star", "set", "out", "folded_at": {"label", "period_days", "t0_days", "duration_days"}}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if star == "" || out == "" {
				return usageErrorf("plot needs --star ID and --out FILE.png")
			}
			if !strings.EqualFold(filepath.Ext(out), ".png") {
				return usageErrorf("--out %s: the figure is written as PNG; name the file *.png", out)
			}
			if sets.IsHidden(set) {
				return hiddenf("set %s is hidden: its stars and answers are not shown; plot a dev or train star", set)
			}
			if err := checkOutFile("--out", out); err != nil {
				return err
			}
			home, err := data.Home()
			if err != nil {
				return err
			}
			if err := checkSetName(home, "--set", set); err != nil {
				return err
			}
			s, err := sets.Open(home, set, sets.Options{})
			if err != nil {
				return err
			}
			if _, err := s.Info(star); err != nil {
				return notFoundf("%v (see 'transitbench data mini' or data/dev for star ids)", err)
			}
			a, err := quicklook.Star(s, star, 0)
			if err != nil {
				return err
			}
			d := &figure.Star{Analysis: a, ID: star}
			if ans, ok := s.Answers[star]; ok {
				d.Answer = &ans
				d.Category, d.Population = ans.Category, ans.Population
			}
			eph := figure.DefaultEphemeris(d)
			if err := writeStarFigure(out, d, eph, widthIn); err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"star": star, "set": set, "out": out,
					"folded_at": map[string]any{"label": eph.Label, "period_days": eph.PeriodDays, "t0_days": eph.T0Days,
						"duration_days": eph.DurationDays}})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s of set %s, folded at %s: P = %.5f d)\n", out, star, set, eph.Label, eph.PeriodDays)
			return nil
		},
	}
	cmd.Flags().StringVar(&star, "star", "", "star id, e.g. dev-0042")
	cmd.Flags().StringVar(&set, "set", sets.Dev, "data set of the star")
	cmd.Flags().StringVar(&out, "out", "", "PNG file to write")
	cmd.Flags().Float64Var(&widthIn, "width", 10, "figure width in inches (150 dpi; the height is 1.1 times the width)")
	return cmd
}

// writeStarFigure draws the star's figure, widthIn inches wide, into a PNG file at path.
func writeStarFigure(path string, d *figure.Star, e quicklook.Ephemeris, widthIn float64) error {
	if !(widthIn > 0) {
		return usageErrorf("--width must be positive")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := figure.Write(f, d, e, widthIn, figure.PNG); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
