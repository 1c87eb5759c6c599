package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
)

func init() { register(newDataCmd) }

// newDataCmd is the data command group; each subcommand is in its own file (data_build.go, data_status.go, …).
func newDataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Build, inspect and import the benchmark's data sets",
		Long: `Build, inspect and import the benchmark's data sets (SPEC A2, A8).

Sets live in the data directory ($TRANSITBENCH_HOME, else $XDG_DATA_HOME/transitbench, else
~/.local/share/transitbench) under sets/NAME. A simulated set stores its answers and star metadata; light
curves are regenerated from seeds when needed. The hidden sets A and B take their seed from the secret file
secret.seed in the data directory (mode 0600), made at their first build.`,
		Args: cobra.NoArgs,
		RunE: groupHelp,
	}
	cmd.AddCommand(newDataBuildCmd(), newDataStatusCmd(), newDataVerifyCmd(), newDataSummaryCmd(), newDataShowCmd(), newDataMiniCmd(), newDataImportCmd())
	return cmd
}

// openSetForCmd opens a set for the inspection commands, building a standard one on first use with progress on
// errw. A bad set name is a usage error, a set not built a not_found one.
func openSetForCmd(ctx context.Context, errw io.Writer, name string) (*sets.Set, error) {
	if name == "" {
		return nil, usageErrorf("give --set NAME (dev, A, B, train, or an imported set)")
	}
	home, err := data.Home()
	if err != nil {
		return nil, err
	}
	s, err := sets.Open(home, name, sets.Options{Context: ctx,
		Progress: newProgressPrinter(errw, "building").update})
	if errors.Is(err, sets.ErrBadName) {
		return nil, usageErrorf("--set: %v", err)
	}
	if errors.Is(err, sets.ErrNotBuilt) {
		return nil, notFoundf("--set: %v", err)
	}
	return s, err
}
