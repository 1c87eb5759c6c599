package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"transitbench/workspace"
)

func init() { register(newGradeCmd) }

// gradeOptions are the inputs of 'transitbench grade'.
type gradeOptions struct {
	runFlags
	Again  bool   // --again: grade a solution that was graded before (recorded as a re-run)
	Frozen string // --frozen: grade this frozen tar ('transitbench freeze --out') instead of solution/
	Hash   string // --hash: the SHA-256 (or content hash) the --frozen file must have
	// Label (--label) names the contestant whose --frozen file this is: gradings count, and are capped, per label.
	Label string
	// MaxGradings (--max-gradings) is the most gradings a label may have (0: no cap).
	MaxGradings int
	// Maintainer (--maintainer) prints the hidden sets' full reports (breakdowns, exit counts, runtimes): for the
	// benchmark's maintainer on the grading machine, never for the contestant.
	Maintainer bool
}

func newGradeCmd() *cobra.Command {
	opts := &gradeOptions{}
	cmd := &cobra.Command{
		Use:   "grade",
		Short: "Freeze the solution and grade it once on the hidden sets",
		Long: `Freeze solution/ (its content hash; the frozen copy is kept in the data directory), run it once on the hidden
set A (the score), once on B (the replication) and on the dev stars, and record the three results. A frozen
solution is graded once: grading the same content again needs --again and is recorded as a re-run. Hidden sets
are refused under degraded sandbox isolation unless --allow-degraded.

Hidden sets stay hidden: A and B are reported with S alone, and no score until the set is complete; no star of
A or B is ever shown, and the solution's output on them is discarded once matched. Their breakdowns (C, F, EB
share, by population, MES bin and category), exit counts and runtimes are kept in the results store for the
maintainer: --maintainer prints them. It is meant for the benchmark's maintainer on the grading machine; a
contestant who is shown them learns more about the hidden sets with each grading. Every grading of the workspace is numbered ("grading #2 of this workspace"), re-gradings included.
An interrupted grading (Ctrl-C) keeps its finished stars: running grade again with the same solution resumes it
under its number. One process grades a workspace at a time; another one exits with status 1.

--frozen FILE grades a tar written by 'transitbench freeze --out' (a contestant's, on a machine they do not
control) instead of solution/: its files must have the content hash its manifest gives and, with --hash, the
file must have that SHA-256 (or content hash); otherwise it is refused before anything runs. It needs --label
NAME, the contestant: the grading is numbered among that label's gradings in this data directory, whichever
workspace grades it, and a label gets at most --max-gradings gradings (default 3; 0: no cap; an interrupted
grading is resumed, not counted again); past that, grade exits with status 3 (refused). The runs and report
name the file's SHA-256 ("frozen_file"; the runs' flag "file:SHA256").

Gradings of solution/ are numbered within the workspace's lineage: its id, made at init and carried when the
workspace is copied, in this data directory; a copied workspace continues the numbering.

--json prints {"frozen", "frozen_file" (--frozen), "again", "grading", "resumed", "A": {"run_id", "set",
"hidden": true, "stars_run", "resumed", "S", "score_withheld", "grading", "isolation", "protections",
"solution_hash", "complete", "redacted": true}, "B": {…}, "dev": {…as dev --json}}; with --maintainer, A and B
as dev --json (with "hidden": true).`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runGrade, opts),
	}
	opts.runFlags.add(cmd)
	cmd.Flags().BoolVar(&opts.Again, "again", false, "grade a solution that was graded before (recorded as a re-run)")
	cmd.Flags().StringVar(&opts.Frozen, "frozen", "", "grade this frozen tar (from 'transitbench freeze --out') instead of solution/")
	cmd.Flags().StringVar(&opts.Label, "label", "", "with --frozen: the contestant the file is from; gradings are numbered and capped per label")
	cmd.Flags().IntVar(&opts.MaxGradings, "max-gradings", workspace.DefaultMaxGradings, "with --frozen: the most gradings a label may have (0: no cap)")
	cmd.Flags().BoolVar(&opts.Maintainer, "maintainer", false, "print A's and B's breakdowns, exit counts and runtimes (for the maintainer, not the contestant)")
	cmd.Flags().StringVar(&opts.Hash, "hash", "", "with --frozen: the SHA-256 the file must have (as the contestant submitted it)")
	return cmd
}

// runGrade freezes and grades the workspace's solution and prints the workspace.GradeReport (the JSON document
// of --json, also on a failure once set A has a result), with the run's progress on s.Err.
func runGrade(ctx context.Context, s streams, opts *gradeOptions) error {
	if opts.Hash != "" && opts.Frozen == "" {
		return usageErrorf("--hash goes with --frozen FILE")
	}
	if opts.Frozen == "" && opts.Label != "" {
		return usageErrorf("--label goes with --frozen FILE")
	}
	if opts.MaxGradings < 0 {
		return usageErrorf("--max-gradings %d: give the most gradings a label may have, or 0 for no cap", opts.MaxGradings)
	}
	if opts.Frozen != "" {
		if err := isRegularFileArg("--frozen", opts.Frozen, "a tar written by 'transitbench freeze --out'"); err != nil {
			return err
		}
		if opts.Label == "" {
			return usageErrorf("--frozen needs --label NAME, the contestant the file is from: gradings are counted and capped per label")
		}
	}
	r, err := opts.runFlags.start(ctx, s.Err)
	if err != nil {
		return err
	}
	defer r.stop()
	r.opt.Again = opts.Again
	r.opt.Contestant, r.opt.MaxGradings = opts.Label, opts.MaxGradings
	if opts.MaxGradings == 0 {
		r.opt.MaxGradings = -1 // no cap
	}
	var rep *workspace.GradeReport
	if opts.Frozen != "" {
		rep, err = r.ws.GradeFrozen(r.ctx, opts.Frozen, opts.Hash, r.opt, r.events)
	} else {
		rep, err = r.ws.Grade(r.ctx, r.opt, r.events)
	}
	r.wait()
	if !opts.Maintainer {
		rep = rep.ForContestant()
	}
	if errors.Is(err, context.Canceled) && rep != nil {
		err = fmt.Errorf("interrupted: grading #%d keeps its finished stars; run 'transitbench grade' again to resume it: %w", rep.Grading, err)
	}
	hasResult := rep != nil && (err == nil || rep.A != nil)
	if s.JSON {
		if err != nil {
			if hasResult {
				return failWithResult(err, rep)
			}
			return err
		}
		return writeJSON(s.Out, rep)
	}
	if hasResult {
		if jerr := printGradeReport(s.Out, rep, false); jerr != nil {
			return jerr
		}
	}
	return err
}
