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

// rvListOptions are the inputs of 'rv list'.
type rvListOptions = rvTierOptions

// rvListJSON is what 'rv list --json' prints.
type rvListJSON struct {
	Tasks []rvTaskRow `json:"tasks"`
	// Warnings lists the task files left out, each with its path and the reason (never null).
	Warnings []stargazer.Skipped `json:"warnings"`
}

// rvTaskRow is one task of 'rv list'.
type rvTaskRow struct {
	Task        string           `json:"task"`
	Tier        string           `json:"tier"`          // easy, medium, hard, real or user (imported)
	NObs        int              `json:"n_obs"`         // number of observations
	Instruments int              `json:"n_instruments"` // number of instruments
	SpanDays    float64          `json:"span_days"`     // last minus first observation time
	Budget      stargazer.Budget `json:"budget"`        // the tier's submissions, seconds and tokens
	// State is where the task stands now: not started, running with the seconds left, expired, passed, out of
	// submissions (imported tasks: imported), with the submissions used and left.
	State rvtrack.TaskState `json:"state"`
}

// newRVListCmd builds the command; runF, when not nil, replaces runRVList (tests check the options the flags
// produce with it).
func newRVListCmd(common *rvCommon, runF func(context.Context, rvListOptions, io.Writer) error) *cobra.Command {
	return newRVTierCmd(&cobra.Command{Use: "list", Args: cobra.NoArgs,
		Short: "List the RV tasks with their tier, size, budget and state",
		Long: `List the RV tasks with their tier, size and budget, and each task's state: not started, running (with the
time left on its clock), expired, passed, or failed with no submissions left, and its submissions left.
Listing starts no clock ('rv start TASK' does). Every task file is validated as it loads; a file that
fails (a null or missing number, e ≥ 1, P ≤ 0, i outside (0, π], unequal series lengths, a time beyond
±10⁷ d, …) is left out with a warning on stderr naming the file, the field and the value, and the other tasks
still load. JSON: {"tasks": [{"task", "tier", "n_obs", "n_instruments", "span_days", "budget", "state": {"state",
"started", "deadline", "seconds_left", "seconds", "submissions_used", "submissions_left"}}], "warnings":
[{"path", "error"}]}.`,
	}, common, runF, runRVList)
}

// runRVList lists the tasks of opts.Tier with their size and budget.
func runRVList(_ context.Context, opts rvListOptions, out io.Writer) error {
	tasks, skipped, _, err := opts.tierTasks(opts.Tier)
	if err != nil {
		return err
	}
	l, err := opts.ledger()
	if err != nil {
		return err
	}
	res := rvListJSON{Tasks: []rvTaskRow{}, Warnings: skipped}
	for _, t := range tasks {
		d := t.Data()
		res.Tasks = append(res.Tasks, rvTaskRow{t.TaskID, t.Tier(), d.Len(), len(d.Instruments), d.Span(), t.Budget(), l.State(t)})
	}
	if opts.JSON {
		return writeJSON(out, res)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TASK\tTIER\tN_OBS\tINSTR\tSPAN_D\tSUBMISSIONS_LEFT\tSTATE")
	for _, r := range res.Tasks {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.0f\t%d/%d\t%s\n", termtext.Line(r.Task), r.Tier, r.NObs, r.Instruments, r.SpanDays,
			r.State.SubmissionsLeft, r.Budget.Submissions, r.State.Text())
	}
	return w.Flush()
}
