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
	scopeFlags // --workspace, --all-workspaces: whose runs
}

func newRunsCmd() *cobra.Command {
	opts := &runsOptions{}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List past runs",
		Long: `List past runs (dev, grade, mini) from the results store in the data directory, newest first: the runs of
the current workspace (--workspace DIR, else the one around the working directory, else the default workspace;
the table's first line names it and its solution's kind), or with --all-workspaces every run, baselines
included, each row naming its run's workspace and solution kind.

A grade run shows the number of its grading among its workspace's gradings (#1 for the first, counting every
grading of any solution, re-gradings included). A run on a hidden set (A, B, M) holds aggregates only, and its
summary shows S alone; --maintainer shows the stored breakdowns, exit counts and runtimes (for the benchmark's
maintainer, not the contestant).

--json prints a list of {"id", "kind", "set", "label" (the workspace, a baseline's name or a mini task),
"solution_hash", "started", "finished", "status", "isolation", "stars", "summary", "flags", "hidden",
"grading", "lineage", "workspace", "solution_kind"}.

--agents lists the agents of 'transitbench mcp' instead: each agent's budget (a workspace's, "workspace:PATH",
or an id 'mcp --agent-id' named), which its sessions spend together, with its totals over them (sessions,
tool calls or turns, estimated tokens, seconds in tools, wall hours since its first session, refused and
failed calls), then the sessions, newest first, with their own spend. --json prints {"agents": [{"agent",
"preset", "budget_turns", "budget_tokens", "budget_hours", "sessions", "turns", "tokens", "tool_seconds",
"refused", "errors", "first", "last"}], "sessions": [{"id", "agent", "client", "preset", "budget_turns",
"budget_tokens", "budget_hours", "started", "turns", "tokens", "tool_seconds", "refused", "errors", "last"}]}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runRuns, opts),
	}
	cmd.Flags().StringVar(&opts.Set, "set", "", "only runs on this set")
	cmd.Flags().StringVar(&opts.Kind, "kind", "", "only runs of this kind (dev, grade, mini)")
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "at most this many runs (0: all)")
	cmd.Flags().BoolVar(&opts.Maintainer, "maintainer", false, "show hidden runs' full summaries (for the maintainer, not the contestant)")
	cmd.Flags().BoolVar(&opts.Agents, "agents", false, "list the agents of 'transitbench mcp' and their sessions with their spend")
	opts.scopeFlags.add(cmd)
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
	scope, err := opts.scope()
	if err != nil {
		return err
	}
	runs, err := listResults(func(st *store.Store) ([]store.Run, error) {
		return st.Runs(ctx, store.RunFilter{Set: opts.Set, Kind: opts.Kind, Limit: opts.Limit, Workspace: scope.filter()})
	})
	if err != nil {
		return err
	}
	if !opts.Maintainer {
		for i := range runs {
			runs[i] = workspace.RunForContestant(runs[i])
		}
	}
	if !s.JSON {
		fmt.Fprintln(s.Out, scope.header())
	}
	return printRows(s, runs, "RUN\tKIND\tGRADING\tSET\tSTARS\tSTATUS\tS\tC\tF\tSTARTED\tSOLUTION\tLANG\tWORKSPACE", func(tw io.Writer, r store.Run) {
		grading := "–"
		if r.Grading > 0 {
			grading = fmt.Sprintf("#%d", r.Grading)
			if r.HasFlag(store.FlagAgain) {
				grading += " again"
			}
		}
		sc := scoresOf(r)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.12s\t%s\t%s\n", r.ID, r.Kind, grading, r.Set, sc.stars, r.Status,
			sc.s, sc.c, sc.f, r.Started.Local().Format("2006-01-02 15:04"), termtext.Line(r.SolutionHash), termtext.Line(orDash(r.SolutionKind)),
			termtext.Line(runPlace(r)))
	})
}

// runPlace is where a run belongs, for the runs table: its workspace, else its label (a baseline's name).
func runPlace(r store.Run) string {
	if r.Workspace != "" {
		return r.Workspace
	}
	if r.Kind == store.KindBaseline {
		return "baseline " + r.Label
	}
	return r.Label
}

// orDash is s, or "–" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
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

// agentsJSON is what 'runs --agents --json' prints: each agent's totals over its sessions, and the sessions.
type agentsJSON struct {
	Agents   []store.AgentTotal   `json:"agents"`
	Sessions []store.AgentSession `json:"sessions"`
}

// runAgentSessions lists each agent's totals against its budget, then its sessions, newest first (at most
// limit of each; 0: all): two tables, or under JSON an agentsJSON.
func runAgentSessions(ctx context.Context, s streams, limit int) error {
	var res agentsJSON
	st, err := openResults()
	if err != nil {
		return err
	}
	defer st.Close()
	if res.Agents, err = st.AgentTotals(ctx); err != nil {
		return err
	}
	if res.Sessions, err = st.AgentSessions(ctx); err != nil {
		return err
	}
	res.Agents, res.Sessions = limited(res.Agents, limit), limited(res.Sessions, limit)
	if s.JSON {
		return writeJSON(s.Out, res)
	}
	err = printRows(s, res.Agents, "AGENT\tPRESET\tSESSIONS\tTURNS\tTOKENS\tTOOL_S\tHOURS\tREFUSED\tERRORS\tFIRST",
		func(tw io.Writer, a store.AgentTotal) {
			agent := a.Agent
			if agent == "" {
				agent = "(each session its own)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%d/%d\t%.1f\t%.2f/%g\t%d\t%d\t%s\n", termtext.Line(agent), a.Preset, a.Sessions,
				a.Turns, a.BudgetTurns, a.Tokens, a.BudgetTokens, a.ToolSeconds, a.Hours(), a.BudgetHours, a.Refused, a.Errors,
				a.First.Local().Format("2006-01-02 15:04"))
		})
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Out)
	return printRows(s, res.Sessions, "SESSION\tAGENT\tCLIENT\tTURNS\tTOKENS\tTOOL_S\tREFUSED\tERRORS\tSTARTED",
		func(tw io.Writer, a store.AgentSession) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f\t%d\t%d\t%s\n", termtext.Line(a.ID), termtext.Line(a.Agent),
				termtext.Line(a.Client), a.Turns, a.Tokens, a.ToolSeconds, a.Refused, a.Errors, a.Started.Local().Format("2006-01-02 15:04"))
		})
}

// limited returns the first limit rows of rows (all for limit 0), never nil.
func limited[T any](rows []T, limit int) []T {
	if rows == nil {
		return []T{}
	}
	if limit > 0 && len(rows) > limit {
		return rows[:limit]
	}
	return rows
}
