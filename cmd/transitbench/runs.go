package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/workspace"
)

func init() { register(newRunsCmd) }

// runsOptions are the inputs of 'transitbench runs'.
type runsOptions struct {
	Set    string // --set: only runs on this set ("": all)
	Kind   string // --kind: only runs of this kind (dev, grade, mini, baseline; "": all)
	Limit  int    // --limit: at most this many runs (0: all)
	Agents bool   // --agents: list the agent sessions of 'transitbench mcp' instead
	// Maintainer (--maintainer) keeps hidden runs' full summaries: for the maintainer, never the contestant.
	Maintainer bool
}

func newRunsCmd() *cobra.Command {
	opts := &runsOptions{}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List past runs",
		Long: `List past runs (dev, grade, mini) from the results store in the data directory, newest first.

A grade run shows the number of its grading among its workspace's gradings (#1 for the first, counting every
grading of any solution, re-gradings included). A run on a hidden set (A, B, M) holds aggregates only, and its
summary shows S alone; --maintainer shows the stored breakdowns, exit counts and runtimes (for the benchmark's
maintainer, not the contestant).

--json prints a list of {"id", "kind", "set", "label" (the workspace), "solution_hash", "started", "finished",
"status", "isolation", "stars", "summary", "flags", "hidden", "grading"}.

--agents lists the agent sessions of 'transitbench mcp' instead, newest first, with their budget and spend:
tool calls (turns), estimated tokens, seconds in tools, wall hours, refused and failed calls. --json prints a
list of {"id", "client", "preset", "budget_turns", "budget_tokens", "budget_hours", "started", "turns",
"tokens", "tool_seconds", "refused", "errors", "last"}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runRuns, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "only runs on this set")
	cmd.Flags().StringVar(&opts.Kind, "kind", "", "only runs of this kind (dev, grade, mini)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "at most this many runs (0: all)")
	cmd.Flags().BoolVar(&opts.Maintainer, "maintainer", false, "show hidden runs' full summaries (for the maintainer, not the contestant)")
	cmd.Flags().BoolVar(&opts.Agents, "agents", false, "list the agent sessions of 'transitbench mcp' with their spend")
	return cmd
}

// runRuns lists the results store's runs, newest first: a table, or under JSON a list of store.Run.
func runRuns(ctx context.Context, s streams, opts *runsOptions) error {
	if opts.Limit < 0 {
		return usageErrorf("--limit %d: give a number of runs, or 0 for all", opts.Limit)
	}
	if opts.Kind != "" && !slices.Contains(runKinds, opts.Kind) {
		return usageErrorf("--kind %q: use one of %s", opts.Kind, strings.Join(runKinds, ", "))
	}
	if err := checkSetFlag(opts.Set); err != nil {
		return err
	}
	if opts.Agents {
		return runAgentSessions(ctx, s, opts.Limit)
	}
	runs, err := listResults(func(st *store.Store) ([]store.Run, error) {
		return st.Runs(ctx, store.RunFilter{Set: opts.Set, Kind: opts.Kind, Limit: opts.Limit})
	})
	if err != nil {
		return err
	}
	if !opts.Maintainer {
		for i := range runs {
			runs[i] = workspace.RunForContestant(runs[i])
		}
	}
	return printRows(s, runs, "RUN\tKIND\tGRADING\tSET\tSTARS\tSTATUS\tS\tC\tF\tSTARTED\tSOLUTION\tWORKSPACE", func(tw io.Writer, r store.Run) {
		grading := "–"
		if r.Grading > 0 {
			grading = fmt.Sprintf("#%d", r.Grading)
			if r.HasFlag(store.FlagAgain) {
				grading += " again"
			}
		}
		sc := scoresOf(r)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.12s\t%s\n", r.ID, r.Kind, grading, r.Set, sc.stars, r.Status,
			sc.s, sc.c, sc.f, r.Started.Local().Format("2006-01-02 15:04"), termtext.Line(r.SolutionHash), termtext.Line(r.Label))
	})
}

// runScores is what the runs table shows of a run's summary: S and C with three decimals, F per 100 stars, and
// the stars as "finished/all" for a run that did not finish them all; "–" for what the summary does not carry (a
// running run, a hidden run's C and F shown to the contestant, a hidden score withheld until its set is done).
type runScores struct{ stars, s, c, f string }

// scoresOf reads the run's summary (a workspace report or its contestant's redaction).
func scoresOf(r store.Run) runScores {
	out := runScores{stars: fmt.Sprint(r.Stars), s: "–", c: "–", f: "–"}
	var sum struct {
		S, C, F       *float64
		StarsRun      *int `json:"stars_run"`
		ScoreWithheld bool `json:"score_withheld"`
	}
	if len(r.Summary) == 0 || json.Unmarshal(r.Summary, &sum) != nil {
		return out
	}
	if sum.StarsRun != nil && *sum.StarsRun < r.Stars {
		out.stars = fmt.Sprintf("%d/%d", *sum.StarsRun, r.Stars)
	}
	if sum.ScoreWithheld || r.Hidden && sum.StarsRun != nil && *sum.StarsRun < r.Stars {
		return out // a hidden set's score is shown only once the set is complete
	}
	for _, v := range []struct {
		dst    *string
		x      *float64
		format string
	}{{&out.s, sum.S, "%.3f"}, {&out.c, sum.C, "%.3f"}, {&out.f, sum.F, "%.1f"}} {
		if v.x != nil {
			*v.dst = fmt.Sprintf(v.format, *v.x)
		}
	}
	return out
}

// runAgentSessions lists the agent sessions with their spend against their budget, newest first (at most limit;
// 0: all): a table, or under JSON a list of store.AgentSession.
func runAgentSessions(ctx context.Context, s streams, limit int) error {
	sessions, err := listResults(func(st *store.Store) ([]store.AgentSession, error) { return st.AgentSessions(ctx) })
	if err != nil {
		return err
	}
	if limit > 0 && len(sessions) > limit {
		sessions = sessions[:limit]
	}
	return printRows(s, sessions, "SESSION\tCLIENT\tPRESET\tTURNS\tTOKENS\tTOOL_S\tHOURS\tREFUSED\tERRORS\tSTARTED",
		func(tw io.Writer, a store.AgentSession) {
			hours := 0.0
			if !a.Last.IsZero() {
				hours = a.Last.Sub(a.Started).Hours()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d/%d\t%.1f\t%.2f/%g\t%d\t%d\t%s\n", termtext.Line(a.ID), termtext.Line(a.Client), a.Preset, a.Turns,
				a.BudgetTurns, a.Tokens, a.BudgetTokens, a.ToolSeconds, hours, a.BudgetHours, a.Refused, a.Errors,
				a.Started.Local().Format("2006-01-02 15:04"))
		})
}
