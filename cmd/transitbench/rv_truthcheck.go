package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
)

// rvTruthcheckOptions are the inputs of 'rv truthcheck'.
type rvTruthcheckOptions = rvTierOptions

// rvTruthcheckJSON is what 'rv truthcheck --json' prints: every task's truth run through the gate, and the
// counts per tier.
type rvTruthcheckJSON struct {
	Tasks []rvgate.TruthCheck          `json:"tasks"`
	Tiers map[string]*rvTruthTierCount `json:"tiers"`
}

// rvTruthTierCount counts a tier's tasks by what their own truth (jitter 0) does at the gate.
type rvTruthTierCount struct {
	Tasks          int `json:"tasks"`
	Solvable       int `json:"solvable"`                // the truth passes all four criteria
	FailOKRMS      int `json:"fail_ok_rms"`             // the truth fails ok_rms
	FailOKDeltaBIC int `json:"fail_ok_delta_bic"`       // the truth fails ok_delta_bic
	SolvableFair   int `json:"solvable_fair,omitempty"` // real tasks: the truth passes under the fair RMS criterion
}

// newRVTruthcheckCmd builds the command; runF, when not nil, replaces runRVTruthcheck (tests check the options the flags
// produce with it).
func newRVTruthcheckCmd(common *rvCommon, runF func(context.Context, rvTruthcheckOptions, io.Writer) error) *cobra.Command {
	return newRVTierCmd(&cobra.Command{Use: "truthcheck", Args: cobra.NoArgs,
		Short: "Submit each task's own truth (jitter 0) to the gate and list which tasks it passes",
		Long: `Submit each task's own truth (jitter 0) to the four-criterion gate. Tasks the truth fails are not
solvable under the original rules; pass rates are reported on all tasks and on solvable ones. Real tasks
also show the fair criterion (RMS threshold raised to the truth's own RMS).

JSON: {"tasks": [{"task", "tier", "solvable", "ok_rms", "ok_delta_bic", ...}], "tiers": {TIER: {"tasks",
"solvable", "fail_ok_rms", "fail_ok_delta_bic", "solvable_fair"}}}.`,
	}, common, runF, runRVTruthcheck)
}

// runRVTruthcheck grades each task's truth and counts the results per tier.
func runRVTruthcheck(_ context.Context, opts rvTruthcheckOptions, out io.Writer) error {
	tasks, _, err := opts.gradableTasks(opts.Tier)
	if err != nil {
		return err
	}
	res := rvTruthcheckJSON{Tasks: []rvgate.TruthCheck{}, Tiers: map[string]*rvTruthTierCount{}}
	for _, t := range tasks {
		c := rvgate.CheckTruth(t)
		res.Tasks = append(res.Tasks, c)
		s := res.Tiers[c.Tier]
		if s == nil {
			s = &rvTruthTierCount{}
			res.Tiers[c.Tier] = s
		}
		s.Tasks++
		if c.Solvable {
			s.Solvable++
		}
		if !c.OKRMS {
			s.FailOKRMS++
		}
		if !c.OKDeltaBIC {
			s.FailOKDeltaBIC++
		}
		if c.PassedFair != nil && *c.PassedFair {
			s.SolvableFair++
		}
	}
	if opts.JSON {
		return writeJSON(out, res)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TIER\tTASKS\tTRUTH_PASSES\tFAIL_RMS\tFAIL_DBIC\tPASSES_FAIR")
	for _, tr := range stargazer.Tiers {
		if s := res.Tiers[tr]; s != nil {
			fair := "-"
			if tr == stargazer.TierReal {
				fair = fmt.Sprint(s.SolvableFair)
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\n", tr, s.Tasks, s.Solvable, s.FailOKRMS, s.FailOKDeltaBIC, fair)
		}
	}
	return w.Flush()
}
