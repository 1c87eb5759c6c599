package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/tui"
	"transitbench/workspace"
)

func init() {
	register(newTUICmd)
	runDefault = func(cmd *cobra.Command, args []string) error {
		if err := noJSON(cmd); err != nil {
			return err
		}
		if len(args) > 0 {
			return usageErrorf("unknown command %q (see 'transitbench --help')", args[0])
		}
		return runTUI(cmd.ErrOrStderr(), "", false)
	}
}

func newTUICmd() *cobra.Command {
	var (
		dir           string
		allowDegraded bool
	)
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Open the terminal UI (also what 'transitbench' with no command does)",
		Long: "Open the full-screen terminal UI: the star browser, the star view (light curve, periodogram, candidates,\n" +
			"folded transit), the dev run and grade screens. Without --workspace it opens\n" +
			"the workspace around the working directory, else the default one, <data directory>/workspace, creating\n" +
			"it (and building the dev set) on first run. It logs to <data directory>/tui.log.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := noJSON(cmd); err != nil {
				return err
			}
			return runTUI(cmd.ErrOrStderr(), dir, allowDegraded)
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "workspace directory (default: the one around the working directory, else <data directory>/workspace)")
	cmd.Flags().BoolVar(&allowDegraded, "allow-degraded", false, "let the grade screen run the hidden sets when the sandbox cannot isolate fully")
	return cmd
}

// runTUI opens the terminal UI on the workspace dir: "" means the workspace around the working directory, as
// the dev and grade commands find it, else the default workspace, which the interface creates on first use;
// that is said once on errw (before the screen is taken, so it stays above the prompt once the interface
// closes).
func runTUI(errw io.Writer, dir string, allowDegraded bool) error {
	home, err := data.Home()
	if err != nil {
		return err
	}
	if dir == "" {
		if ws, err := workspace.Open("."); err == nil {
			dir = ws.Root
		} else {
			announceDefaultWorkspace(errw, home)
		}
	} else {
		// A workspace named on the command line must exist before the screen takes the terminal: its error is
		// one line and exit status 2, not a full-screen message.
		if _, err := os.Stat(dir); err != nil {
			return notFoundf("--workspace %s does not exist: give a workspace directory (create one with 'transitbench init DIR')", dir)
		}
		ws, err := workspace.Open(dir)
		if err != nil {
			return usageErrorf("--workspace %s: %v", dir, err)
		}
		dir = ws.Root
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	return tui.RunReal(tui.OpenOptions{Home: home, Workspace: dir, AllowDegraded: allowDegraded}, filepath.Join(home, "tui.log"))
}

// announceDefaultWorkspace says on errw that the default workspace of the data directory home is being
// created, when it does not exist yet: the terminal UI creates it silently otherwise.
func announceDefaultWorkspace(errw io.Writer, home string) {
	def := defaultWorkspaceDir(home)
	if _, err := workspace.Open(def); errors.Is(err, workspace.ErrNotWorkspace) {
		fmt.Fprintf(errw, "no workspace here: creating the default workspace %s\n", def)
	}
}
