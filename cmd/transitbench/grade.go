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

Hidden sets stay hidden: A and B are reported as aggregates only (S, C, F, EB share, the breakdowns by
population, MES bin and category, counts by exit reason, the slowest runtimes without star ids), with no score
until the set is complete; no star of A or B is ever shown, and the solution's output on them is discarded once
matched. Every grading of the workspace is numbered ("grading #2 of this workspace"), re-gradings included.
An interrupted grading (Ctrl-C) keeps its finished stars: running grade again with the same solution resumes it
under its number. One process grades a workspace at a time; another one exits with status 1.

--frozen FILE grades a tar written by 'transitbench freeze --out' (a contestant's, on a machine they do not
control) instead of solution/: its files must have the content hash its manifest gives and, with --hash, the
file must have that SHA-256 (or content hash); otherwise it is refused before anything runs. The grading is
numbered among this workspace's gradings like any other, and its runs and report name the file's SHA-256
("frozen_file"; the runs' flag "file:SHA256").

--json prints {"frozen", "frozen_file" (--frozen), "again", "grading", "resumed", "A": {…as dev --json, with "hidden": true}, "B": {…},
"dev": {…}}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runGrade, opts),
	}
	opts.runFlags.add(cmd)
	cmd.Flags().BoolVar(&opts.Again, "again", false, "grade a solution that was graded before (recorded as a re-run)")
	cmd.Flags().StringVar(&opts.Frozen, "frozen", "", "grade this frozen tar (from 'transitbench freeze --out') instead of solution/")
	cmd.Flags().StringVar(&opts.Hash, "hash", "", "with --frozen: the SHA-256 the file must have (as the contestant submitted it)")
	return cmd
}

// runGrade freezes and grades the workspace's solution and prints the workspace.GradeReport (the JSON document
// of --json, also on a failure once set A has a result), with the run's progress on s.Err.
func runGrade(ctx context.Context, s streams, opts *gradeOptions) error {
	if opts.Hash != "" && opts.Frozen == "" {
		return usageErrorf("--hash goes with --frozen FILE")
	}
	if opts.Frozen != "" {
		if err := isRegularFileArg("--frozen", opts.Frozen, "a tar written by 'transitbench freeze --out'"); err != nil {
			return err
		}
	}
	r, err := opts.runFlags.start(ctx, s.Err)
	if err != nil {
		return err
	}
	defer r.stop()
	r.opt.Again = opts.Again
	var rep *workspace.GradeReport
	if opts.Frozen != "" {
		rep, err = r.ws.GradeFrozen(r.ctx, opts.Frozen, opts.Hash, r.opt, r.events)
	} else {
		rep, err = r.ws.Grade(r.ctx, r.opt, r.events)
	}
	r.wait()
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
