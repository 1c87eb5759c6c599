package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/grader/rvgate"
	"transitbench/workspace/rvtrack"
)

// rvShowOptions are the inputs of 'rv show'. Its --json output is the task's stargazer.View: the data, the
// star mass, t_ref, tier and budget, never the truth (exactly the task.json 'rv grade' gives a solution).
type rvShowOptions struct {
	rvCommon
	Task string // the task id (argument)
}

// newRVShowCmd builds the command; runF, when not nil, replaces runRVShow (tests check the options the flags
// produce with it).
func newRVShowCmd(common *rvCommon, runF func(context.Context, rvShowOptions, io.Writer) error) *cobra.Command {
	c, _ := rvSubcommand(&cobra.Command{Use: "show TASK", Args: cobra.ExactArgs(1),
		Short: "Show what a contestant may see of a task: the data, the star mass, t_ref, tier and budget",
		Long: `Show what a contestant may see of a task: the data, the star mass, t_ref, tier and budget (never the truth).
Showing a task opens it: its clock against the tier's time budget starts now unless it started before
(see 'rv submit --help'). The JSON is the task's view, exactly what 'rv grade' gives a solution as task.json.`,
	}, runF, runRVShow, func(o *rvShowOptions, cmd *cobra.Command, args []string) {
		o.rvCommon, o.Task = common.at(cmd), args[0]
	})
	return c
}

// runRVShow opens task opts.Task (starting its clock) and prints its contestant view.
func runRVShow(_ context.Context, opts rvShowOptions, out io.Writer) error {
	t, err := opts.findTask(opts.Task)
	if err != nil {
		return err
	}
	var st rvgate.BudgetStatus
	var used int
	if err := opts.withLedger(func(l *rvtrack.Ledger) error {
		if _, err := l.Show(t.TaskID); err != nil {
			return err
		}
		st, used = l.Status(t.TaskID, t.Budget(), nil), l.Used(t.TaskID)
		return nil
	}); err != nil {
		return err
	}
	v := t.View()
	if opts.JSON {
		return writeJSON(out, v)
	}
	fmt.Fprintf(out, "task %s  tier %s  M★ %.3f M☉  t_ref %.6f d  %d points  instruments %v\n",
		v.TaskID, v.Tier, v.MStarSun, v.TRefDays, v.NObs, v.Instruments)
	fmt.Fprintf(out, "budget: %d submissions (%d left), %d s (%.0f s left), %d tokens\n", v.Budget.Submissions,
		max(v.Budget.Submissions-used, 0), v.Budget.Seconds, st.SecondsLeft, v.Budget.Tokens)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TIME_D\tRV_MS\tSIGMA_MS\tINSTRUMENT")
	for i := range v.TimesDays {
		fmt.Fprintf(w, "%.6f\t%.3f\t%.3f\t%s\n", v.TimesDays[i], v.RVsMS[i], v.SigmasMS[i], v.Instrument[i])
	}
	return w.Flush()
}
