package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"transitbench/data/stargazer"
)

// rvGenerateOptions are the inputs of 'rv generate'.
type rvGenerateOptions struct {
	rvCommon
	Seed      uint64 // --seed: the one task to generate, when SeedSet (the flag was given)
	SeedSet   bool
	Out       string // --out: the task file (--seed) or the folder (--tier)
	Tier      string // --tier: generate a whole tier (easy, medium or hard)
	Count     int    // --count: tasks with --tier
	StartSeed uint64 // --start-seed: first seed tried with --tier
}

// rvGenerateJSON is what 'rv generate --json' prints: the tasks written.
type rvGenerateJSON struct {
	Tasks []rvGeneratedTask `json:"tasks"`
}

// rvGeneratedTask is one task 'rv generate' wrote.
type rvGeneratedTask struct {
	Task       string `json:"task"`
	Tier       string `json:"tier"`
	Difficulty int    `json:"difficulty"` // the generator's difficulty score (1–10)
	Path       string `json:"path"`       // the file written
}

// newRVGenerateCmd builds the command; runF, when not nil, replaces runRVGenerate (tests check the options the flags
// produce with it).
func newRVGenerateCmd(common *rvCommon, runF func(context.Context, rvGenerateOptions, io.Writer) error) *cobra.Command {
	c, opts := rvSubcommand(&cobra.Command{Use: "generate (--seed N --out FILE | --tier TIER --count N --out DIR)", Args: cobra.NoArgs,
		Short: "Generate new synthetic RV tasks with the original priors",
		Long: `Generate new synthetic RV tasks with the original generator's priors (see data/stargazer.Generate).
--seed N --out FILE writes one task; --tier easy|medium|hard --count N --out DIR writes N tasks of that tier,
trying seeds from --start-seed upward. Point 'rv --tasks DIR' at the folder to use them.

JSON: {"tasks": [{"task", "tier", "difficulty", "path"}]}.`,
	}, runF, runRVGenerate, func(o *rvGenerateOptions, cmd *cobra.Command, _ []string) {
		o.rvCommon, o.SeedSet = common.at(cmd), cmd.Flags().Changed("seed")
	})
	c.Flags().Uint64Var(&opts.Seed, "seed", 0, "seed of the one task to generate")
	c.Flags().StringVar(&opts.Out, "out", "", "output file (--seed) or folder (--tier)")
	c.Flags().StringVar(&opts.Tier, "tier", "", "generate a whole tier: easy, medium or hard")
	c.Flags().IntVar(&opts.Count, "count", 20, "number of tasks with --tier")
	c.Flags().Uint64Var(&opts.StartSeed, "start-seed", 1_000_000, "first seed tried with --tier")
	return c
}

// runRVGenerate generates the task of opts.Seed, or opts.Count tasks of opts.Tier, and writes them.
func runRVGenerate(_ context.Context, opts rvGenerateOptions, out io.Writer) error {
	if opts.Out == "" {
		return usageErrorf("rv generate needs --out (a file with --seed, a folder with --tier)")
	}
	if opts.SeedSet {
		if err := checkOutFile("--out", opts.Out); err != nil {
			return err
		}
	} else if fi, err := os.Stat(opts.Out); err == nil && !fi.IsDir() {
		return usageErrorf("--out %s is a file: --tier writes one file per task into a folder; give a folder", opts.Out)
	}
	var tasks []*stargazer.Task
	var paths []string
	switch tier := opts.Tier; {
	case opts.SeedSet && tier != "":
		return usageErrorf("give either --seed or --tier, not both")
	case opts.SeedSet:
		tasks = []*stargazer.Task{stargazer.Generate(opts.Seed)}
		paths = []string{opts.Out}
	case tier != "":
		if tier != stargazer.TierEasy && tier != stargazer.TierMedium && tier != stargazer.TierHard {
			return usageErrorf("--tier %q: generated tiers are easy, medium and hard", tier)
		}
		if opts.Count < 1 {
			return usageErrorf("--count must be at least 1")
		}
		var err error
		tasks, err = stargazer.GenerateTier(tier, opts.Count, opts.StartSeed)
		if err != nil {
			return err
		}
		for _, t := range tasks {
			paths = append(paths, filepath.Join(opts.Out, t.TaskID+".json"))
		}
	default:
		return usageErrorf("rv generate needs --seed N or --tier TIER --count N")
	}
	res := rvGenerateJSON{Tasks: []rvGeneratedTask{}}
	for i, t := range tasks {
		if err := stargazer.WriteFile(paths[i], t); err != nil {
			return err
		}
		res.Tasks = append(res.Tasks, rvGeneratedTask{t.TaskID, t.Tier(), t.TruthDifficulty, paths[i]})
	}
	if opts.JSON {
		return writeJSON(out, res)
	}
	for _, r := range res.Tasks {
		fmt.Fprintf(out, "%s  %s (difficulty %d)  %s\n", r.Task, r.Tier, r.Difficulty, r.Path)
	}
	return nil
}
