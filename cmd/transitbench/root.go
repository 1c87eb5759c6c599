package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// version is the program version; the release build sets it with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// commands holds the constructors of the top-level commands; each command file adds its own in an init
// function, so that command files stay independent of each other.
var commands []func() *cobra.Command

func register(f func() *cobra.Command) { commands = append(commands, f) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "transitbench",
		Short:         "TransitBench: an offline benchmark environment for exoplanet discovery",
		Long:          "TransitBench: planet search on Kepler-like light curves (transit track) and radial-velocity tasks (RV track).\nWith no command it opens the terminal UI on the default workspace.",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE:          runDefault,
	}
	root.PersistentFlags().Bool("json", false, "print machine-readable JSON instead of a table")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	for _, f := range commands {
		root.AddCommand(f())
	}
	return root
}

// runDefault runs when transitbench is called with no command. The terminal UI replaces it when it lands.
var runDefault = func(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unknown command %q (see 'transitbench --help')", args[0])
	}
	return cmd.Help()
}

// usageError marks an error as bad usage: the program exits with status 2.
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

func usageErrorf(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// isCobraUsageError recognises the errors cobra returns for unknown commands and wrong argument counts.
func isCobraUsageError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "unknown flag") ||
		strings.Contains(s, "arg(s), received") || strings.HasPrefix(s, "invalid argument") ||
		strings.HasPrefix(s, "required flag")
}

// wantJSON reports whether --json was given.
func wantJSON(cmd *cobra.Command) bool {
	v, _ := cmd.Flags().GetBool("json")
	return v
}

// writeJSON prints v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
