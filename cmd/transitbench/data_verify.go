package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// dataVerifyOptions are the inputs of 'transitbench data verify'.
type dataVerifyOptions struct {
	Set     string // --set: the set to verify
	Workers int    // --workers: stars regenerated at once (0: one per CPU)
}

// dataVerifyResult is the JSON output of 'data verify': the set, its number of stars, the ids of the stars whose
// bytes differ from the build's digest (empty when it reproduces), its fingerprint and the time taken.
type dataVerifyResult struct {
	Set         string   `json:"set"`
	Stars       int      `json:"stars"`
	Differ      []string `json:"differ"`
	Fingerprint string   `json:"fingerprint"`
	Seconds     float64  `json:"seconds"`
}

func newDataVerifyCmd() *cobra.Command {
	opts := &dataVerifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify --set NAME",
		Short: "Regenerate every star of a set and check it against the set's fingerprint",
		Long: `Regenerate every star of a set (re-read, for an imported set) and compare its bytes with the digest
recorded when the set was built. No difference proves that this machine and program reproduce the set and its
fingerprint; a difference means the simulator changed without a new version, or the set's files were changed:
rebuild the set with 'transitbench data build --set NAME --force'. Exits 1 when a star differs.

--json prints {"set", "stars", "differ": [ids], "fingerprint", "seconds"}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runDataVerify, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "set name")
	cmd.Flags().IntVar(&opts.Workers, "workers", 0, "stars regenerated at once (default: number of CPUs)")
	return cmd
}

// runDataVerify regenerates every star of the set and compares it with the build's digests; a difference is a
// failure that carries the dataVerifyResult.
func runDataVerify(ctx context.Context, s streams, opts *dataVerifyOptions) error {
	if opts.Workers < 0 {
		return usageErrorf("--workers %d: give a number of stars to regenerate at once, or 0 for one per CPU", opts.Workers)
	}
	set, err := openSetForCmd(ctx, s.Err, opts.Set)
	if err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	start := time.Now()
	differ, err := set.Verify(ctx, opts.Workers, newProgressPrinter(s.Err, "verifying").update)
	if err != nil {
		return err
	}
	res := dataVerifyResult{Set: set.Name, Stars: len(set.IDs), Differ: append([]string{}, differ...),
		Fingerprint: set.Fingerprint, Seconds: time.Since(start).Seconds()}
	if len(differ) > 0 {
		return failWithResult(fmt.Errorf("set %s: %d of %d stars differ from when it was built (first: %s); "+
			"rebuild it with 'transitbench data build --set %s --force'", set.Name, len(differ), len(set.IDs),
			differ[0], set.Name), res)
	}
	if s.JSON {
		return writeJSON(s.Out, res)
	}
	fmt.Fprintf(s.Out, "set %s: all %d stars reproduce fingerprint %s\n", set.Name, len(set.IDs), set.Fingerprint)
	return nil
}
