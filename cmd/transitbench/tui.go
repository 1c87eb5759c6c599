package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/tui"
)

func init() {
	register(newTUICmd)
	runDefault = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErrorf("unknown command %q (see 'transitbench --help')", args[0])
		}
		return runTUI("")
	}
}

func newTUICmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Open the terminal UI (also what 'transitbench' with no command does)",
		Long: "Open the full-screen terminal UI: the star browser, the star view (light curve, periodogram, candidates,\n" +
			"folded transit), the dev run and grade screens. Without --workspace it opens the default workspace,\n" +
			"<data directory>/workspace, creating it (and building the dev set) on first run. It logs to\n" +
			"<data directory>/tui.log.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runTUI(dir) },
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: <data directory>/workspace)")
	return cmd
}

// runTUI opens the terminal UI on the workspace dir ("" for the default one).
func runTUI(dir string) error {
	home, err := data.Home()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	open := func(ctx context.Context, progress func(tui.Progress)) (tui.Backend, error) {
		return tui.OpenReal(ctx, tui.OpenOptions{Home: home, Workspace: dir}, progress)
	}
	return tui.Run(open, filepath.Join(home, "tui.log"))
}
