package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

// versionJSON is the output of 'version --json': the program version, the Go toolchain it was built with and
// the platform. Its fields are in the order of its JSON keys (sorted).
type versionJSON struct {
	Arch    string `json:"arch"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Version string `json:"version"`
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the program version",
		Long: `Print the program version, the Go version it was built with and the platform.

--json prints {"version", "go", "os", "arch"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(cmd.Context(), streamsOf(cmd))
		},
	}
}

// runVersion prints the version (under JSON the versionJSON). It takes no options.
func runVersion(_ context.Context, s streams) error {
	v := versionJSON{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if s.JSON {
		return writeJSON(s.Out, v)
	}
	fmt.Fprintf(s.Out, "transitbench %s (%s %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
	return nil
}
