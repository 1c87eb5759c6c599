package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data/stargazer"
	"transitbench/grader/rvgate"
	"transitbench/workspace/rvbaselines"
)

// rvTruthcheckOptions are the inputs of 'rv truthcheck'.
type rvTruthcheckOptions = rvTierOptions

// rvTruthcheckJSON is what 'rv truthcheck --json' prints: every task's truth run through the gate with the
// honest ceiling's fits, and the counts per tier.
type rvTruthcheckJSON struct {
	Tasks []rvTruthTask                `json:"tasks"`
	Tiers map[string]*rvTruthTierCount `json:"tiers"`
}

// rvTruthTask is one task of 'rv truthcheck': the gate's verdict on its truth, and on the fits started at the
// truth (the honest ceiling, rvbaselines.HonestCeiling).
type rvTruthTask struct {
	rvgate.TruthCheck
	Honest rvbaselines.Ceiling `json:"honest_ceiling"`
}

// rvGatePasses counts tasks passed under each of the three gates.
type rvGatePasses struct {
	Original   int `json:"original"`
	Strict     int `json:"strict"`
	Calibrated int `json:"calibrated"`
}

// add counts r's verdicts.
func (g *rvGatePasses) add(r rvgate.Result) {
	for _, x := range []struct {
		n  *int
		ok bool
	}{{&g.Original, r.Passed}, {&g.Strict, r.PassedStrict}, {&g.Calibrated, r.PassedCalibrated}} {
		if x.ok {
			*x.n++
		}
	}
}

// String is the passes as original/strict/calibrated.
func (g rvGatePasses) String() string {
	return fmt.Sprintf("%d/%d/%d", g.Original, g.Strict, g.Calibrated)
}

// rvTruthTierCount counts a tier's tasks by what their own truth (jitter 0) does at the gate — the truth
// ceiling — and what the fits started at the truth do — the honest ceiling — under the original, strict and
// calibrated gates.
type rvTruthTierCount struct {
	Tasks          int `json:"tasks"`
	Solvable       int `json:"solvable"`                // the truth passes all four criteria
	FailOKRMS      int `json:"fail_ok_rms"`             // the truth fails ok_rms
	FailOKDeltaBIC int `json:"fail_ok_delta_bic"`       // the truth fails ok_delta_bic
	SolvableFair   int `json:"solvable_fair,omitempty"` // real tasks: the truth passes under the fair RMS criterion
	// Truth is the truth ceiling under each gate (the strict and calibrated matches of the truth with itself
	// are perfect, so the three agree with solvable).
	Truth rvGatePasses `json:"truth_ceiling"`
	// Honest is the honest ceiling: the least-squares fit started at the truth, on all tasks; HonestSolvable the
	// same on the solvable tasks only.
	Honest         rvGatePasses `json:"honest_ceiling"`
	HonestSolvable rvGatePasses `json:"honest_ceiling_solvable"`
	// HonestKipping is the fit started at the truth under Kipping's eccentricity prior, on all tasks;
	// HonestKippingSolvable on the solvable ones.
	HonestKipping         rvGatePasses `json:"honest_ceiling_kipping"`
	HonestKippingSolvable rvGatePasses `json:"honest_ceiling_kipping_solvable"`
}

// newRVTruthcheckCmd builds the command; runF, when not nil, replaces runRVTruthcheck (tests check the options the flags
// produce with it).
func newRVTruthcheckCmd(common *rvCommon, runF func(context.Context, rvTruthcheckOptions, io.Writer) error) *cobra.Command {
	return newRVTierCmd(&cobra.Command{Use: "truthcheck", Args: cobra.NoArgs,
		Short: "Submit each task's own truth (jitter 0) and fits started at it to the gate: the truth and honest ceilings",
		Long: `Submit each task's own truth (jitter 0) to the four-criterion gate. Tasks the truth fails are not
solvable under the original rules; pass rates are reported on all tasks and on solvable ones. Real tasks
also show the fair criterion (RMS threshold raised to the truth's own RMS).

Beside the truth ceiling it reports the honest ceiling: a least-squares fit started at each task's truth (no
search, no feedback), graded under the original gate, the strict one (match score normalised by the number
of true planets) and the calibrated one (every true planet matched with P, K and e within 3σ of the
uncertainties the data give at the truth), as original/strict/calibrated passes; and the same fit under
Kipping's eccentricity prior (HONEST_KIPPING).

JSON: {"tasks": [{"task", "tier", "solvable", "ok_rms", "ok_delta_bic", "passed", "passed_strict",
"passed_calibrated", ..., "honest_ceiling": {"least_squares": RESULT, "kipping": RESULT}}], "tiers": {TIER:
{"tasks", "solvable", "fail_ok_rms", "fail_ok_delta_bic", "solvable_fair", "truth_ceiling", "honest_ceiling",
"honest_ceiling_solvable", "honest_ceiling_kipping", "honest_ceiling_kipping_solvable"}}}, each ceiling {"original", "strict", "calibrated"}.`,
	}, common, runF, runRVTruthcheck)
}

// runRVTruthcheck grades each task's truth and counts the results per tier.
func runRVTruthcheck(_ context.Context, opts rvTruthcheckOptions, out io.Writer) error {
	tasks, _, err := opts.gradableTasks(opts.Tier)
	if err != nil {
		return err
	}
	res := rvTruthcheckJSON{Tasks: []rvTruthTask{}, Tiers: map[string]*rvTruthTierCount{}}
	for _, t := range tasks {
		c := rvgate.CheckTruth(t)
		h := rvbaselines.HonestCeiling(t)
		res.Tasks = append(res.Tasks, rvTruthTask{TruthCheck: c, Honest: h})
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
		s.Truth.add(c.Result)
		s.Honest.add(h.LeastSquares)
		s.HonestKipping.add(h.Kipping)
		if c.Solvable {
			s.HonestSolvable.add(h.LeastSquares)
			s.HonestKippingSolvable.add(h.Kipping)
		}
	}
	if opts.JSON {
		return writeJSON(out, res)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TIER\tTASKS\tTRUTH_PASSES\tFAIL_RMS\tFAIL_DBIC\tPASSES_FAIR\tHONEST_O/S/C\tON_SOLVABLE\tKIPPING_O/S/C\tON_SOLVABLE")
	for _, tr := range stargazer.Tiers {
		if s := res.Tiers[tr]; s != nil {
			fair := "-"
			if tr == stargazer.TierReal {
				fair = fmt.Sprint(s.SolvableFair)
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", tr, s.Tasks, s.Solvable, s.FailOKRMS, s.FailOKDeltaBIC, fair,
				s.Honest, s.HonestSolvable, s.HonestKipping, s.HonestKippingSolvable)
		}
	}
	fmt.Fprintln(w, "HONEST: least squares started at the truth; KIPPING: the same under Kipping's eccentricity prior;")
	fmt.Fprintln(w, "passes under the original/strict/calibrated gates, on all tasks and on solvable ones")
	return w.Flush()
}
