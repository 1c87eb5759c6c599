package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/grader/rvgate"
	"transitbench/workspace/rvtrack"
)

// rvSubmitOptions are the inputs of 'rv submit'. Its --json output is rvgate.Feedback: the verdicts, the
// data-determined scalars and the standing against the budgets, never the truth or the raw match score.
type rvSubmitOptions struct {
	rvCommon
	Task    string // the task id (argument)
	Planets string // --planets: the planets JSON file, or - for In
	DryRun  bool   // --dry-run: report what needs no truth; spend nothing
	// TokensUsed is --tokens-used, the tokens the harness has spent on the task so far; it counts only when
	// TokensSet (the flag was given).
	TokensUsed int
	TokensSet  bool
	In         io.Reader // standard input, read with --planets -
}

// newRVSubmitCmd builds the command; runF, when not nil, replaces runRVSubmit (tests check the options the flags
// produce with it).
func newRVSubmitCmd(common *rvCommon, runF func(context.Context, rvSubmitOptions, io.Writer) error) *cobra.Command {
	c, opts := rvSubcommand(&cobra.Command{Use: "submit TASK --planets FILE|-", Args: submitArgs,
		Short: "Grade a planetary configuration with the four-criterion gate (spends one submission)",
		Long: `Grade a planetary configuration against the task's truth with the four-criterion gate.
The planets file is a JSON list of {"P_days", "K_ms" or "m_sin_i_mjup", "e", "omega_rad",
"l_rad" or "M0_rad" or "t_peri_days"} or an object {"planets": [...], "jitter_ms": s}; M0 is the mean
anomaly at t_ref = times_days[0]. Each graded submission counts against the tier's budget; --dry-run spends
nothing and reports only what needs no truth (rms, ΔBIC/N, ok_rms, ok_delta_bic).

Budgets (per tier: easy 3 submissions / 600 s / 200k tokens, medium 5 / 900 s / 450k, hard and real
10 / 1500 s / 900k). A task with no submissions left is refused (exit 1) and nothing is recorded. A task's
clock starts when it is started ('rv start TASK', the agent tool rv_start, the terminal UI's confirmation)
or, failing that, at its first submission; a dry run shows metrics of the data, so it needs a started task. The product cannot count tokens: a harness declares the tokens spent on the
task so far with --tokens-used N. A submission after the time budget, or declaring more than the token budget,
is still graded and recorded but has within_budget false and never makes the task passed (a task is passed if
any submission within budget passes). Submissions from several programs at once are safe: the ledger
($TRANSITBENCH_HOME/rv/submissions.json) is locked while one is checked, graded and recorded.

Feedback: pass or fail on each criterion (ok_rms, ok_delta_bic, ok_match, ok_count, and passed: all four),
whether the submission passes the strict gate (passed_strict: the match score normalised by the true planet
count) and the calibrated one (passed_calibrated: every true planet's P, K and e within 3 sigma of the
uncertainties the data give), one bit each, and only the scalars the data alone determine: the RMS of the residuals, its limit (1.5 x the median sigma)
and ΔBIC/N against the no-planet model. The raw match score is not shown: it would reveal the true number of
planets (an empty submission scores exactly -0.25 x n_truth). No truth parameter, per-planet difference or
list of unmatched planets is ever shown, and the ledger keeps the same verdicts and the submission itself.

JSON: {"task", "submission", "submissions_left", "within_budget", "elapsed_seconds", "seconds_left",
"tokens_used", "tokens_left" (with --tokens-used), "over_budget" (["seconds", "tokens"] when overspent),
"ok_rms", "ok_delta_bic", "ok_match", "ok_count", "passed" (this submission's gate verdict), "passed_strict",
"passed_calibrated" (the strict and calibrated gates' verdicts), "rms_ms",
"max_rms_ms", "delta_bic_per_point", "task_passed" (any submission within budget passed),
and "ok_rms_fair", "passed_fair" on real tasks}; a dry run has "dry_run": true and no truth-derived fields.`,
	}, runF, runRVSubmit, func(o *rvSubmitOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Task, o.In = common.at(cmd), args[0], cmd.InOrStdin()
		o.TokensSet = cmd.Flags().Changed("tokens-used")
	})
	c.Flags().StringVar(&opts.Planets, "planets", "", "planets JSON file, or - for standard input")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "report rms and ΔBIC/N only; spends no submission")
	c.Flags().IntVar(&opts.TokensUsed, "tokens-used", 0, "tokens spent on this task so far, as the harness counts them; more than the tier's budget marks the submission over budget")
	return c
}

// runRVSubmit grades the planets of opts.Planets on task opts.Task and records the submission in the ledger
// (a dry run records nothing), then prints the feedback.
func runRVSubmit(_ context.Context, opts rvSubmitOptions, out io.Writer) error {
	file := opts.Planets
	if file == "" {
		return usageErrorf("rv submit needs --planets FILE (or - for standard input)")
	}
	var tokens *int
	if opts.TokensSet {
		n := opts.TokensUsed
		if n < 0 {
			return usageErrorf("--tokens-used must be a count of tokens, 0 or more")
		}
		tokens = &n
	}
	if file != "-" {
		if err := isRegularFileArg("--planets", file, "a JSON file of planets, or - for standard input"); err != nil {
			return err
		}
	}
	var raw []byte
	var err error
	if file == "-" {
		in := opts.In
		if in == nil {
			in = strings.NewReader("")
		}
		raw, err = io.ReadAll(in)
	} else {
		raw, err = os.ReadFile(file)
	}
	if err != nil {
		return fmt.Errorf("cannot read the planets: %w", err)
	}
	sub, err := rvgate.ParseSubmission(raw)
	if err != nil {
		return withCode(codeBadInput, err)
	}
	t, err := opts.findTask(opts.Task)
	if err != nil {
		return err
	}
	if t.Imported && !opts.DryRun {
		return usageErrorf("task %s was imported from your own data and has no truth to grade a submission against; "+
			"use --dry-run for the truth-free metrics, or 'transitbench rv fit %s --pipeline honest'", t.TaskID, t.TaskID)
	}
	planets, err := sub.Resolve(t.Config.Star.MStarSun, t.Observations.TimesDays[0])
	if err != nil {
		return withCode(codeBadInput, err)
	}
	if opts.DryRun {
		if err := opts.requireStarted(t); err != nil {
			return err
		}
	}
	var fb rvgate.Feedback
	err = opts.withLedger(func(l *rvtrack.Ledger) error {
		var err error
		if opts.DryRun {
			fb, err = l.DryRun(t, planets, sub.JitterMS, tokens)
		} else {
			fb, err = l.Submit(t, planets, sub.JitterMS, tokens)
		}
		return err
	})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(out, fb)
	}
	printFeedback(out, fb)
	return nil
}

// printFeedback writes the feedback of a submission or dry run as text.
func printFeedback(w io.Writer, fb rvgate.Feedback) {
	mark := func(ok bool) string {
		if ok {
			return "pass"
		}
		return "FAIL"
	}
	if fb.DryRun {
		fmt.Fprintf(w, "dry run on %s (nothing spent; %d submissions left)\n", fb.Task, fb.SubmissionsLeft)
	} else {
		fmt.Fprintf(w, "submission %d on %s (%d left)\n", fb.Submission, fb.Task, fb.SubmissionsLeft)
	}
	fmt.Fprintf(w, "  rms        %-4s  %.3f m/s (limit %.3f)\n", mark(fb.OKRMS), fb.RMSMS, fb.MaxRMSMS)
	fmt.Fprintf(w, "  ΔBIC/N     %-4s  %.3f (must exceed 0)\n", mark(fb.OKDeltaBIC), fb.DeltaBICPerPoint)
	if fb.OKMatch != nil {
		fmt.Fprintf(w, "  match      %-4s\n", mark(*fb.OKMatch))
		fmt.Fprintf(w, "  count      %-4s\n", mark(*fb.OKCount))
		fmt.Fprintf(w, "  passed     %v\n", *fb.Passed)
	}
	if fb.PassedStrict != nil {
		fmt.Fprintf(w, "  strict     %v (match score normalised by the true planet count)\n", *fb.PassedStrict)
		fmt.Fprintf(w, "  calibrated %v (every planet within 3σ of the data's uncertainties)\n", *fb.PassedCalibrated)
	}
	if fb.OKRMSFair != nil {
		fmt.Fprintf(w, "  fair rms   %-4s  (threshold raised to the published solution's RMS); passed under it: %v\n", mark(*fb.OKRMSFair), *fb.PassedFair)
	}
	budget := fmt.Sprintf("%.0f s elapsed, %.0f s left", fb.ElapsedSeconds, fb.SecondsLeft)
	if fb.TokensUsed != nil {
		budget += fmt.Sprintf("; %d tokens used, %d left", *fb.TokensUsed, *fb.TokensLeft)
	}
	if fb.WithinBudget {
		fmt.Fprintf(w, "  budget     ok    %s\n", budget)
	} else {
		what := "this submission cannot pass the task"
		if fb.DryRun {
			what = "no submission can pass the task now"
		}
		fmt.Fprintf(w, "  budget     OVER  %s (%s spent; %s)\n", budget, strings.Join(fb.OverBudget, " and "), what)
	}
	fmt.Fprintf(w, "  task passed so far: %v\n", fb.TaskPassed)
}

// submitArgs takes the task alone: a second argument is most often the planets file given without its flag.
func submitArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 2:
		return usageErrorf("rv submit takes one task; give the planets file with --planets: 'transitbench rv submit %s --planets %s'",
			args[0], args[1])
	case len(args) != 1:
		return usageErrorf("rv submit takes one task (and the planets with --planets FILE|-), got %d arguments", len(args))
	}
	return nil
}
