package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data/stargazer"
	"transitbench/internal/termtext"
	"transitbench/workspace/rvtrack"
)

// rvShowOptions are the inputs of 'rv show' and 'rv start'.
type rvShowOptions struct {
	rvCommon
	Task string // the task id (argument)
}

// rvShowJSON is what 'rv show --json' and 'rv start --json' print: the task's contestant view (stargazer.View:
// the data, the star mass, t_ref, tier and budget, never the truth; for a started task exactly the task.json
// 'rv grade' gives a solution) and its state against the budget (rvtrack.TaskState). While the task is not
// started the view has no series (times_days, rvs_ms, sigmas_ms and instruments are left out).
type rvShowJSON struct {
	stargazer.View
	State rvtrack.TaskState `json:"state"`
}

// rvShowKeys documents rvShowJSON in the commands' help.
const rvShowKeys = `JSON: {"task", "tier", "budget": {"tokens", "seconds", "submissions"}, "M_star_sun", "t_ref_days",
"n_obs", "instrument_labels", "times_days", "rvs_ms", "sigmas_ms", "instruments" (the series: only once the
task has started), "state": {"state" (not_started, running, expired, passed, out_of_submissions, imported),
"started", "deadline", "seconds_left", "seconds", "submissions_used", "submissions_left"}}.`

// newRVShowCmd builds the command; runF, when not nil, replaces runRVShow (tests check the options the flags
// produce with it).
func newRVShowCmd(common *rvCommon, runF func(context.Context, rvShowOptions, io.Writer) error) *cobra.Command {
	c, _ := rvSubcommand(&cobra.Command{Use: "show TASK", Args: cobra.ExactArgs(1),
		Short: "Show a task: its metadata and state, and its data once started",
		Long: `Show what a contestant may see of a task (never the truth): its tier, budget, star mass, t_ref, number of
points and instruments, and its state (not started, running with the time left, expired, passed, out of
submissions). Showing starts nothing: a task not started shows no data and says how to start it ('rv start
TASK', which starts its clock against the tier's time budget and shows the data); a started task shows its
data. An imported task (tier user) has no clock and always shows its data.

` + rvShowKeys,
	}, runF, runRVShow, func(o *rvShowOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Task = common.at(cmd), args[0]
	})
	return c
}

// newRVStartCmd builds 'rv start'; runF, when not nil, replaces runRVStart.
func newRVStartCmd(common *rvCommon, runF func(context.Context, rvShowOptions, io.Writer) error) *cobra.Command {
	c, _ := rvSubcommand(&cobra.Command{Use: "start TASK", Args: cobra.ExactArgs(1),
		Short: "Start a task's clock and show its data",
		Long: `Start a task: its clock against the tier's time budget (easy 600 s, medium 900 s, hard and real 1500 s)
starts now, unless it started before (then it runs on), and the task's data is shown as 'rv show' shows a
started task. 'rv list' shows each task's state and time left.

` + rvShowKeys,
	}, runF, runRVStart, func(o *rvShowOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Task = common.at(cmd), args[0]
	})
	return c
}

// runRVStart starts task opts.Task's clock (unless it started) and shows the task with its data.
func runRVStart(_ context.Context, opts rvShowOptions, out io.Writer) error {
	t, err := opts.findTask(opts.Task)
	if err != nil {
		return err
	}
	if t.Imported {
		return showTask(opts, t, out)
	}
	var state rvtrack.TaskState
	var fresh bool
	if err := opts.withLedger(func(l *rvtrack.Ledger) error {
		fresh = !l.Shown(t.TaskID)
		if _, err := l.Start(t.TaskID); err != nil {
			return err
		}
		state = l.State(t)
		return nil
	}); err != nil {
		return err
	}
	if fresh {
		fmt.Fprintf(opts.stderr(), "started %s: its %d s clock runs until %s\n", termtext.Line(t.TaskID), state.Seconds,
			state.Deadline.Local().Format("15:04:05"))
	} else {
		fmt.Fprintf(opts.stderr(), "%s started at %s: %s\n", termtext.Line(t.TaskID), state.Started.Local().Format("15:04:05"), state.Text())
	}
	return writeTask(opts, t, state, out)
}

// runRVShow shows task opts.Task: its metadata and state, and its data when it has started. It starts nothing.
func runRVShow(_ context.Context, opts rvShowOptions, out io.Writer) error {
	t, err := opts.findTask(opts.Task)
	if err != nil {
		return err
	}
	return showTask(opts, t, out)
}

// showTask writes t as the ledger stands (a snapshot: nothing changes).
func showTask(opts rvShowOptions, t *stargazer.Task, out io.Writer) error {
	l, err := opts.ledger()
	if err != nil {
		return err
	}
	return writeTask(opts, t, l.State(t), out)
}

// writeTask writes t's view in state: its series only when it has started (or is imported).
func writeTask(opts rvShowOptions, t *stargazer.Task, state rvtrack.TaskState, out io.Writer) error {
	v := t.View()
	open := state.State != rvtrack.StateNotStarted
	if !open {
		v = v.Meta()
	}
	if opts.JSON {
		return writeJSON(out, rvShowJSON{View: v, State: state})
	}
	fmt.Fprintf(out, "task %s  tier %s  M★ %.3f M☉  t_ref %.6f d  %d points  instruments %v\n",
		termtext.Line(v.TaskID), v.Tier, v.MStarSun, v.TRefDays, v.NObs, termtext.Line(fmt.Sprint(v.Instruments)))
	clock := fmt.Sprintf("%d s", v.Budget.Seconds)
	switch state.State {
	case rvtrack.StateImported:
		clock += " (imported: no clock)"
	case rvtrack.StateNotStarted:
		clock += " (not started)"
	default:
		clock += " (" + timeLeft(state) + ")"
	}
	fmt.Fprintf(out, "budget: %d submissions (%d left), %s, %d tokens\n", v.Budget.Submissions, state.SubmissionsLeft, clock, v.Budget.Tokens)
	if !open {
		fmt.Fprintln(out, startAdvice(t))
		return nil
	}
	fmt.Fprintf(out, "state: %s\n", state.Text())
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TIME_D\tRV_MS\tSIGMA_MS\tINSTRUMENT")
	for i := range v.TimesDays {
		fmt.Fprintf(w, "%.6f\t%.3f\t%.3f\t%s\n", v.TimesDays[i], v.RVsMS[i], v.SigmasMS[i], termtext.Line(v.Instrument[i]))
	}
	return w.Flush()
}

// timeLeft is a started task's clock: "9:00 left", or "expired".
func timeLeft(s rvtrack.TaskState) string {
	if s.SecondsLeft <= 0 {
		return "expired"
	}
	return rvtrack.Clock(s.SecondsLeft) + " left"
}
