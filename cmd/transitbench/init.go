package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/workspace"
)

func init() { register(newInitCmd) }

// initOptions are the inputs of 'transitbench init'.
type initOptions struct {
	Dir    string // the workspace directory to create (the argument)
	Preset string // --preset: survey or mini
	Lang   string // --lang: the starter's language, go or python
	// Starter is --starter: "" for the language's starter, or expert.
	Starter string
	Task    string // --task: the mini task (with --preset mini)
	Set     string // --set: an imported public set whose stars fill data/dev
	// Compositions, when set, gives the dev set another composition than SPEC A2's (small sets in tests); the
	// command line leaves it nil.
	Compositions map[string]sets.Composition
}

// initResult is what 'init --json' prints: the workspace's directory, its preset, the starter's language, the
// mini task ("" for a survey workspace) and the number of labelled stars in data/dev. Its fields are in the
// order of its JSON keys (sorted).
type initResult struct {
	DevStars  int    `json:"dev_stars"`
	Lang      string `json:"lang"`
	Preset    string `json:"preset"`
	Task      string `json:"task"`
	Workspace string `json:"workspace"`
}

func newInitCmd() *cobra.Command {
	opts := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init DIR",
		Short: "Create a contestant's workspace",
		Long: `Create a contestant's workspace in DIR (SPEC A8): TASK.md (the task, the rules, the output format, the
scoring and the budget), data/dev/ (the 196 labelled dev stars and answers.json), solution/ (the starter: a BLS
search in Go, or in Python with numpy) and the state directory .transitbench/. The dev set is built first if
needed. Hidden sets never enter a workspace.

--starter expert writes the expert pipeline as the solution instead: a run script that calls a copy of this
program (solution/bin/transitbench, about 50 MB) as 'pipeline expert STAR_DIR', and a README.md on what it does
and how to change it; the best honest solution this program knows, one command away.

--preset mini makes a mini-task workspace (--task, default mini-dev-00000000): its data/dev holds the task's 12
labelled stars; 'transitbench mini run' scores the task's hidden stars. --set NAME fills data/dev with the
stars of a public set already built, such as one 'data import' made from real labelled stars; 'dev' then
scores the solution on them.

--json prints {"workspace", "preset", "lang", "task", "dev_stars"}.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runInit(cmd.Context(), streamsOf(cmd), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Preset, "preset", "survey", "budget preset: survey or mini")
	cmd.Flags().StringVar(&opts.Lang, "lang", "go", "the starter's language: go or python")
	cmd.Flags().StringVar(&opts.Starter, "starter", "", "the starter: empty for --lang's BLS starter, or expert (the expert pipeline: a run script and a copy of this program)")
	cmd.Flags().StringVar(&opts.Task, "task", "", "the mini task (with --preset mini)")
	cmd.Flags().StringVar(&opts.Set, "set", "", "fill data/dev with this imported set's stars instead of the dev set's (see 'data import')")
	return cmd
}

// runInit creates the workspace opts describes, with the set build's and the copy's progress on s.Err.
func runInit(_ context.Context, s streams, opts *initOptions) error {
	if _, ok := workspace.Presets[opts.Preset]; !ok {
		return usageErrorf("--preset %q: use survey or mini", opts.Preset)
	}
	if opts.Lang != "go" && opts.Lang != "python" {
		return usageErrorf("--lang %q: use go or python", opts.Lang)
	}
	if opts.Starter != "" && opts.Starter != workspace.StarterExpert {
		return usageErrorf("--starter %q: use %s, or leave it out for --lang's starter", opts.Starter, workspace.StarterExpert)
	}
	if opts.Task != "" && opts.Preset != "mini" {
		return usageErrorf("--task goes with --preset mini")
	}
	if opts.Set != "" && (opts.Preset != "survey" || sets.IsHidden(opts.Set) || opts.Set == sets.Train) {
		return usageErrorf("--set %q: give a public set built by 'data import' (hidden sets and the train pool never fill a workspace), with --preset survey", opts.Set)
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	build := newProgressPrinter(s.Err, "building")
	write := newProgressPrinter(s.Err, "writing")
	ws, err := workspace.Init(opts.Dir, workspace.InitOptions{Home: home, Preset: opts.Preset, Lang: opts.Lang, Starter: opts.Starter,
		Task: opts.Task, Set: opts.Set, Compositions: opts.Compositions, SetProgress: build.update,
		StarProgress: func(done, total int) {
			write.update(sets.Progress{Set: "data/dev", Done: done, Total: total})
		}})
	if err != nil {
		if errors.Is(err, workspace.ErrExists) {
			return withCode(codeUsage, err)
		}
		return err
	}
	n := len(ws.Config.DevStars)
	if n == 0 {
		entries, _ := os.ReadDir(ws.DevDir())
		n = len(entries) - 1 // answers.json
	}
	if s.JSON {
		return writeJSON(s.Out, initResult{Workspace: ws.Root, Preset: ws.Config.Preset, Lang: ws.Config.Lang,
			Task: ws.Config.Task, DevStars: n})
	}
	fmt.Fprintf(s.Out, "workspace %s: %d labelled stars in data/dev, the %s starter in solution/; read TASK.md, then run 'transitbench dev' there\n",
		ws.Root, n, ws.Config.Lang)
	return nil
}
