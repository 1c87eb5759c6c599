package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prompts (prompts/list, prompts/get): instructions a client can hand its model, each naming the tools to
// call in order, so that an agent with only this server can do the whole task.
const (
	PromptTransit = "attempt_transit_task"
	PromptFailing = "inspect_failing_stars"
	PromptRV      = "fit_rv_task"
)

// transitPrompt walks the transit task end to end: read, look, write, run, improve, grade.
const transitPrompt = `You are attempting the TransitBench transit task: write a planet-search pipeline that finds transiting
planets in one year of Kepler-like light curves and prints candidate rows, then grade it once.

1. Read the resources transitbench://task/TASK.md (the task, rules and budget), transitbench://task/output-format
   and transitbench://task/scoring. S = (credit − false candidates) / planets: a wrong row costs as much as a
   found planet earns, so vetting matters as much as the search.
2. Look at the data: list_stars (filter by category, population, MES bin; sort by mes), star_info for one star
   (its truth on the dev set), bls, fold and vet on a few injected, eclipsing-binary and false-alarm stars;
   plot_star draws one. The resources transitbench://star/{id} hold each dev star's metadata and truth.
3. Write the pipeline: solution_list and solution_read show the starter in solution/; solution_write replaces a
   file (executable: true for a 'run' script). The runner passes a star directory (lightcurve.csv, star.json)
   as the only argument; print period_days,t0_days,score lines, at most three count.
4. run_dev runs it on every dev star exactly as grading will; read S, C, F and the breakdowns, then failing and
   star_outcome for the stars it gets wrong. score_rows scores rows you made yourself (star_id,period_days,
   t0_days,score) against the dev answers without running anything.
5. Improve and run_dev again while the budget lasts; keep what raises S on dev without tuning to single stars.
6. When the dev score is what you want, grade with confirm: true. It freezes solution/ and runs it once on the
   hidden sets A and B; their stars and truth are never shown.`

// failingPrompt inspects the last run's failures.
const failingPrompt = `Inspect the failing stars of the last dev run of this workspace.

1. failing lists the stars the runs got wrong, most often failing first (missed planets, false candidates,
   crashes); list_stars with outcome "false" or "missed" filters the last run's stars the same way.
2. For each of the worst few: star_outcome gives the run's rows with their match status (f_true, f_pred, the
   planet claimed), the exit reason and the solution's stderr; star_info gives the star's truth (the injected
   planet, the eclipsing binary or the planted false-alarm signal).
3. fold at the truth and at the solution's row, vet both (depth, MES, odd/even, secondary), and bls to see
   which peaks a search finds; plot_star draws the star.
4. Say for each star why the solution failed (period alias, wrong duration, an eclipsing binary let through,
   a false alarm not vetted, a timeout) and which change to the pipeline would fix the most stars; solution_read
   shows the code to change.`

// rvPrompt fits one RV task within its budget.
const rvPrompt = `Fit the radial-velocity task %s (Stargazer track): find the planets' Keplerian orbits and submit them.

1. rv_list gives the tasks with their state, tier and budget (submissions, seconds, tokens) and what each has
   used; rv_show gives a task's metadata and starts nothing; submissions past its budget never pass.
2. rv_start starts the task's clock and gives the velocities, errors, instruments and star mass (never the
   truth); rv_plot draws the data,
   its periodogram and a fit.
3. rv_fit fits: without planets it runs the automatic search; with planets it refines them by least squares.
   Look at the periodogram of the residuals for another planet, and at aliases (daily, yearly) of each period.
4. rv_submit with dry_run: true checks a configuration without spending a submission (RMS, ΔBIC/N only).
5. rv_submit spends one submission and returns the four-criterion gate's verdicts (ok_rms, ok_delta_bic,
   ok_match, ok_count) and whether it passed the strict and calibrated gates; resubmit while submissions last.`

// addPrompts registers the prompts.
func (s *Server) addPrompts() {
	text := func(t string) func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return promptResult(t), nil
		}
	}
	s.mcp.AddPrompt(&mcp.Prompt{Name: PromptTransit, Title: "Attempt the transit task",
		Description: "Do the transit task end to end: read the rules, look at stars, write solution/, run_dev, grade."}, text(transitPrompt))
	s.mcp.AddPrompt(&mcp.Prompt{Name: PromptFailing, Title: "Inspect the failing stars of the last run",
		Description: "Find why the last dev run's solution misses planets or reports false candidates, star by star."}, text(failingPrompt))
	s.mcp.AddPrompt(&mcp.Prompt{Name: PromptRV, Title: "Fit an RV task",
		Description: "Fit the Keplerian planets of one RV task and submit within its budget.",
		Arguments:   []*mcp.PromptArgument{{Name: "task", Description: "the task id (rv_list gives them); empty: choose one from rv_list"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			task := strings.TrimSpace(req.Params.Arguments["task"])
			if task == "" {
				task = "of your choice (pick one with rv_list)"
			} else if _, err := s.task(task); err != nil {
				return nil, err
			}
			return promptResult(fmt.Sprintf(rvPrompt, task)), nil
		})
}

func promptResult(text string) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}
}
