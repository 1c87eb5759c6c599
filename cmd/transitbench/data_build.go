package main

import (
	"context"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
)

// dataBuildOptions are the inputs of 'transitbench data build'.
type dataBuildOptions struct {
	Set      string // --set: dev, A, B, train or all
	SeedFile string // --seed-file: a secret seed to install for A and B first ("": none)
	Force    bool   // --force: rebuild a built set (and allow replacing the secret seed)
	Stars    int    // --stars: the train pool's size (0: the default, or the built pool's)
	Workers  int    // --workers: stars simulated at once (0: one per CPU)
}

// dataBuildResult is one line of 'data build --json': the set's summary (sets.Summary) and the build time in
// seconds.
type dataBuildResult struct {
	sets.Summary
	Seconds float64 `json:"seconds"`
}

func newDataBuildCmd() *cobra.Command {
	opts := &dataBuildOptions{}
	cmd := &cobra.Command{
		Use:   "build --set dev|A|B|train|M|all",
		Short: "Build data sets from the simulator",
		Long: `Build data sets from the simulator: dev (196 stars), A and B (hidden, 1,000 stars each), the train pool
(--stars, default 2,000), or all four; --set M builds the mini tasks' secret pool (hidden, 1,000 stars, also
built at the first mini run). A set already built is only checked and summarised, unless --force.

An interrupted build (Ctrl-C, a crash) leaves its finished stars in sets/.build-NAME; the next build continues
from them. A set built by another simulator version, or whose files are damaged, must be rebuilt with --force;
dev, train, and hidden sets with an unchanged secret seed come out identical.

--seed-file FILE installs an operator's secret seed (64 hexadecimal digits) for A and B into the data
directory before building; replacing a seed that built hidden sets were made with needs --force and
rebuilds them as new sets.

--json prints a list of {"set", "kind", "generator", "hidden", "stars", "categories", "populations",
"scored_stars", "planets", "counted_ebs", "fingerprint", "seconds"}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDataBuild, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "set to build: dev, A, B, train or all")
	cmd.Flags().StringVar(&opts.SeedFile, "seed-file", "", "install this secret seed (64 hex digits) for the hidden sets first")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "rebuild even if the set is built (and allow replacing the secret seed)")
	cmd.Flags().IntVar(&opts.Stars, "stars", 0, fmt.Sprintf("train pool size (default %d, or the built pool's)", sets.DefaultTrainStars))
	cmd.Flags().IntVar(&opts.Workers, "workers", 0, "stars simulated at once (default: number of CPUs)")
	return cmd
}

// checkDataBuild checks the build's flags before any work and returns the sets to build.
func checkDataBuild(opts *dataBuildOptions) ([]string, error) {
	names, err := dataBuildNames(opts.Set)
	if err != nil {
		return nil, err
	}
	if opts.SeedFile != "" && !(containsName(names, sets.A) || containsName(names, sets.B)) {
		return nil, usageErrorf("--seed-file only applies to the hidden sets: use it with --set A, B or all")
	}
	if opts.Workers < 0 {
		return nil, usageErrorf("--workers %d: give a number of stars to simulate at once, or 0 for one per CPU", opts.Workers)
	}
	if opts.SeedFile != "" {
		if err := isRegularFileArg("--seed-file", opts.SeedFile, "a file holding the secret seed (64 hexadecimal digits)"); err != nil {
			return nil, err
		}
	}
	if opts.Stars < 0 || opts.Stars > 0 && !containsName(names, sets.Train) {
		return nil, usageErrorf("--stars sets the train pool's size (a positive number): use it with --set train or all")
	}
	return names, nil
}

// runDataBuild builds (or checks) the sets opts names and prints their summaries, with progress on s.Err.
func runDataBuild(ctx context.Context, s streams, opts *dataBuildOptions) error {
	names, err := checkDataBuild(opts)
	if err != nil {
		return err
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	if opts.SeedFile != "" {
		if err := sets.InstallSeedFile(home, opts.SeedFile, opts.Force); err != nil {
			return err
		}
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	var out []dataBuildResult
	for _, name := range names {
		start := time.Now()
		opt := sets.Options{Context: ctx, Force: opts.Force, Workers: opts.Workers,
			Progress: newProgressPrinter(s.Err, "building").update}
		if name == sets.Train {
			opt.Stars = opts.Stars
		}
		set, err := sets.Open(home, name, opt)
		if err != nil {
			return err
		}
		out = append(out, dataBuildResult{Summary: set.Summary(), Seconds: time.Since(start).Seconds()})
	}
	if s.JSON {
		return writeJSON(s.Out, out)
	}
	tw := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "set\tstars\tscored\tplanets\tcounted EBs\tgenerator\tfingerprint\ttime")
	for _, r := range out {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s…\t%.1fs\n", r.Set, r.Stars, r.ScoredStars, r.Planets,
			r.CountedEBs, r.Generator, r.Fingerprint[:16], r.Seconds)
	}
	return tw.Flush()
}

func containsName(names []string, n string) bool { return slices.Contains(names, n) }

// dataBuildNames expands --set for 'data build'.
func dataBuildNames(set string) ([]string, error) {
	switch set {
	case "":
		return nil, usageErrorf("data build needs --set: dev, A, B, train or all")
	case "all":
		return sets.Standard, nil
	case sets.Dev, sets.A, sets.B, sets.Train, sets.MiniPool:
		return []string{set}, nil
	}
	return nil, usageErrorf("data build cannot build set %q: use dev, A, B, train, M (the mini tasks' secret pool) or all (other sets come from "+
		"'transitbench data import')", set)
}
