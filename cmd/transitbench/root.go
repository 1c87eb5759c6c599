package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/internal/termtext"
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
		return usageErrorf("%w (see '%s --help')", err, c.CommandPath())
	})
	for _, f := range commands {
		root.AddCommand(f())
	}
	textHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if !wantJSON(c) {
			textHelp(c, args)
			return
		}
		writeJSON(c.OutOrStdout(), helpJSON(c))
	})
	return root
}

// commandHelp is what --help prints under --json: the command's path, descriptions, usage text and
// subcommands.
type commandHelp struct {
	Command     string   `json:"command"`
	Short       string   `json:"short"`
	Long        string   `json:"long,omitempty"`
	Usage       string   `json:"usage"`
	Subcommands []string `json:"subcommands"`
}

func helpJSON(c *cobra.Command) commandHelp {
	h := commandHelp{Command: c.CommandPath(), Short: c.Short, Long: c.Long, Usage: c.UsageString(), Subcommands: []string{}}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			h.Subcommands = append(h.Subcommands, sub.Name())
		}
	}
	return h
}

// runDefault runs when transitbench is called with no command. The terminal UI replaces it when it lands.
var runDefault = func(cmd *cobra.Command, args []string) error {
	if err := noJSON(cmd); err != nil {
		return err
	}
	if len(args) > 0 {
		return usageErrorf("unknown command %q (see 'transitbench --help')", args[0])
	}
	return cmd.Help()
}

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

// groupHelp is the RunE of a command group called without a subcommand: a usage error naming the subcommands
// (exit status 2), with the group's help on stderr unless --json is given (help text is not JSON).
func groupHelp(cmd *cobra.Command, args []string) error {
	if !wantJSON(cmd) {
		cmd.SetOut(cmd.ErrOrStderr())
		_ = cmd.Help()
	}
	var subs []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			subs = append(subs, c.Name())
		}
	}
	return usageErrorf("%s needs a subcommand: %s (see '%s --help')", cmd.CommandPath(), strings.Join(subs, ", "),
		cmd.CommandPath())
}

// noJSON refuses --json for a command that has no machine-readable output (the terminal UI).
func noJSON(cmd *cobra.Command) error {
	if wantJSON(cmd) {
		return usageErrorf("%s has no JSON output: it is the interactive terminal UI; use the other commands "+
			"(dev, star, runs, rv …) with --json", cmd.CommandPath())
	}
	return nil
}

// writeJSON prints v as indented JSON followed by a newline. Its strings are the values as they are (a
// solution's stderr as it wrote it): encoding/json escapes the C0 controls, and termtext.JSON the C1 and bidi
// controls and DEL it leaves raw, so the document decodes to the same strings and holds no control character.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(buf.Bytes()))
	return err
}
