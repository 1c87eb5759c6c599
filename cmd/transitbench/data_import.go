package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
)

// dataImportOptions are the inputs of 'transitbench data import'.
type dataImportOptions struct {
	FITSDir string // --fits: the directory of kplr*_llc.fits files
	Labels  string // --labels: the label table (CSV)
	Set     string // --set: the new set's name
	Force   bool   // --force: replace an existing set of that name
	// Category is --category: read --labels as a catalogue whose rows take this category (see sets.ImportOptions).
	Category string
}

// dataImportResult is the JSON output of 'data import': the new set's summary (sets.Summary, as 'data summary
// --json' prints it) and the KICs that had files but no label row, which were left out.
type dataImportResult struct {
	sets.Summary
	Unlabelled []int `json:"unlabelled"`
	// Unfiled counts the stars of a --category catalogue skipped for having no FITS file in --fits.
	Unfiled int `json:"unfiled,omitempty"`
}

func newDataImportCmd() *cobra.Command {
	opts := &dataImportOptions{}
	cmd := &cobra.Command{
		Use:   "import --fits DIR --labels CSV --set NAME",
		Short: "Build a set from Kepler FITS light curves and a label table",
		Long: `Build a set from real Kepler data: DIR holds kplr<KIC>-<time>_llc.fits files (any quarters), CSV the
labels, one row per star (one per planet for confirmed hosts and labelled stars), with a header naming its
columns: kic, category (injected|untouched|eb|confirmed|labelled), and optionally population, period (days), t0 (BKJD days),
duration (hours), depth (ppm), rp_rs, b, mes, secondary_depth (ppm), counted (true|false, for eclipsing
binaries), kepmag, teff, logg, radius_rsun, mass_msun. The KOI table's names (kepid, koi_period, koi_time0bk,
koi_duration, koi_depth, koi_ror, koi_impact) are accepted too.

Each star keeps the cadences within 372 days of its first (one Kepler year), PDCSAP flux normalised per
quarter. An "injected" row without a period gets a planet from the simulator's injection (MES uniform in
[4, 20], seeded by the set name and the public seed, or the secret seed for A and B); an "injected" row with a
period describes a signal already in the data. Star directories are stored in the set, ids are NAME-0000,
NAME-0001, … in KIC order.

--json prints the set's summary as 'data summary --json' does, plus "unlabelled": the KICs with files but no
label row, which are left out.

A "labelled" star is a real star with its known planets (one row per planet): it is scored, each planet
claimable once (SPEC A5), unlike a "confirmed" host, which is never scored; planets without a transit in the
year kept are left out. --category NAME reads CSV as a catalogue such as the KOI table: rows without a category
column take NAME, FALSE POSITIVE rows (koi_disposition) are dropped and the catalogue's stars without files in
DIR are skipped. Example (Kepler-90's quarters and the KOI table):

  transitbench data import --fits ../shared/data/kepler/fits/kic011442793 \
      --labels ../shared/data/kepler/tables/koi_cumulative.csv --category labelled --set kepler90`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDataImport, opts),
	}
	cmd.Flags().StringVar(&opts.FITSDir, "fits", "", "directory of kplr*_llc.fits files")
	cmd.Flags().StringVar(&opts.Labels, "labels", "", "label table (CSV)")
	cmd.Flags().StringVar(&opts.Set, "set", "", "name of the new set")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace an existing set of that name")
	cmd.Flags().StringVar(&opts.Category, "category", "", "read --labels as a catalogue (e.g. the KOI table) whose stars take this category (e.g. labelled)")
	return cmd
}

// runDataImport builds a set from Kepler FITS files and a label table and prints its summary, with progress on
// s.Err.
func runDataImport(_ context.Context, s streams, opts *dataImportOptions) error {
	if opts.FITSDir == "" || opts.Labels == "" || opts.Set == "" {
		return usageErrorf("data import needs --fits DIR, --labels CSV and --set NAME")
	}
	if fi, err := os.Stat(opts.FITSDir); err != nil || !fi.IsDir() {
		return notFoundf("--fits %s is not a directory: give the directory holding the kplr*_llc.fits files", opts.FITSDir)
	}
	if err := isRegularFileArg("--labels", opts.Labels, "the label table (a CSV file)"); err != nil {
		return err
	}
	switch opts.Category {
	case "", data.CategoryLabelled, data.CategoryConfirmed:
	default:
		return usageErrorf("--category %q: use labelled (scored, one row per planet) or confirmed (never scored)", opts.Category)
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	res, err := sets.Import(home, opts.Set, sets.ImportOptions{FITSDir: opts.FITSDir, Labels: opts.Labels,
		Force: opts.Force, Category: opts.Category, Progress: newProgressPrinter(s.Err, "importing").update})
	if err != nil {
		if errors.Is(err, sets.ErrBadName) {
			return usageErrorf("%v", err)
		}
		return err
	}
	sum := res.Set.Summary()
	if s.JSON {
		return writeJSON(s.Out, dataImportResult{Summary: sum, Unlabelled: append([]int{}, res.Unlabelled...), Unfiled: res.Unfiled})
	}
	fmt.Fprintf(s.Out, "imported set %s: %d stars (%d scored, %d planets), fingerprint %s\n",
		sum.Set, sum.Stars, sum.ScoredStars, sum.Planets, sum.Fingerprint)
	if len(res.Unlabelled) > 0 {
		fmt.Fprintf(s.Out, "left out (no label row): KIC %v\n", res.Unlabelled)
	}
	return nil
}
