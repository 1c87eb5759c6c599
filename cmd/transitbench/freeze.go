package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/workspace"
)

func init() { register(newFreezeCmd) }

// freezeOptions are the inputs of 'transitbench freeze'.
type freezeOptions struct {
	Workspace string // --workspace: the workspace whose solution/ is frozen
	Out       string // --out: the frozen tar to write
}

func newFreezeCmd() *cobra.Command {
	opts := &freezeOptions{}
	cmd := &cobra.Command{
		Use:   "freeze --out solution.tar.gz",
		Short: "Freeze solution/ into a tar to be graded elsewhere (grade --frozen)",
		Long: `Write the workspace's solution/ as a frozen tar: its files under solution/ and a manifest with the content hash
(the hash 'transitbench grade' freezes). The same solution gives the same bytes, so the file's SHA-256 names it
as well. Send the file and its SHA-256 to the grader, who runs 'transitbench grade --frozen FILE --hash SHA256'
on a machine holding the hidden sets: the hidden sets never have to be on the contestant's machine.

--json prints {"path", "hash" (the content hash), "file_sha256"}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runFreeze, opts),
	}
	cmd.Flags().StringVar(&opts.Workspace, "workspace", "", "the workspace (default: the one around the working directory, else the default workspace)")
	cmd.Flags().StringVar(&opts.Out, "out", "", "the frozen tar to write (e.g. solution.tar.gz)")
	return cmd
}

// runFreeze writes the frozen tar and prints the workspace.FrozenFile.
func runFreeze(_ context.Context, s streams, opts *freezeOptions) error {
	if opts.Out == "" {
		return usageErrorf("--out: give the file to write, e.g. --out solution.tar.gz")
	}
	if err := checkOutFile("--out", opts.Out); err != nil {
		return err
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	ws, err := openWorkspace(s.Err, opts.Workspace, home)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return err
	}
	ff, err := workspace.ExportFrozen(ws.SolutionDir(), out)
	if err != nil {
		return err
	}
	if s.JSON {
		return writeJSON(s.Out, ff)
	}
	fmt.Fprintf(s.Out, "frozen %s\n  content hash %s\n  file sha256  %s\n", ff.Path, ff.Hash, ff.FileSHA)
	return nil
}
