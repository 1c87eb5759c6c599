package rvtrack

import "transitbench/grader/rvgate"

// TaskOutcome is one task's result in a run over tasks: a baseline run (rvbaselines.RunBaseline) or a
// solution run (RunSolution).
type TaskOutcome struct {
	Task     string        `json:"task"`
	Tier     string        `json:"tier"`
	Solvable bool          `json:"solvable"`
	NTruth   int           `json:"n_truth"`
	Result   rvgate.Result `json:"result"`
	Periods  []float64     `json:"periods_days"`
	Seconds  float64       `json:"seconds"`
	// Submissions is how many submissions a baseline made on the task (rvbaselines.RunInteractive); the outcome
	// is the first that passed, or else the last. 0 for solutions run in the sandbox, which answer once.
	Submissions int `json:"submissions,omitempty"`
	// Submission is the answer graded, as the solution gave it (nil when it gave none that parsed): the
	// results site draws each task's fit from it.
	Submission *rvgate.Submission `json:"submission,omitempty"`
	// Set for solutions run in the sandbox (RunSolution): how the process ended (a sandbox exit reason),
	// why its output was refused ("" when it parsed), and the end of its stderr.
	Exit       string `json:"exit,omitempty"`
	ExitCode   int    `json:"exit_code,omitempty"`
	Error      string `json:"error,omitempty"`
	StderrTail string `json:"stderr_tail,omitempty"`
}

// CriteriaRates are the fractions of tasks meeting each criterion.
type CriteriaRates struct {
	OKRMS      float64 `json:"ok_rms"`
	OKDeltaBIC float64 `json:"ok_delta_bic"`
	OKMatch    float64 `json:"ok_match"`
	OKCount    float64 `json:"ok_count"`
}

// TierSummary aggregates a tier: pass rates are fractions (0–1) over all tasks and over the tasks whose own
// truth passes the gate (solvable), under the original gate and, beside it, the strict and the calibrated ones
// (rvgate.Result.PassedStrict, PassedCalibrated). For real tasks PassedFair uses the fair RMS criterion.
type TierSummary struct {
	Tasks                    int           `json:"tasks"`
	Passed                   int           `json:"passed"`
	PassRate                 float64       `json:"pass_rate"`
	SolvableTasks            int           `json:"solvable_tasks"`
	SolvablePassed           int           `json:"solvable_passed"`
	PassedStrict             int           `json:"passed_strict"`
	PassRateStrict           float64       `json:"pass_rate_strict"`
	SolvablePassedStrict     int           `json:"solvable_passed_strict"`
	PassedCalibrated         int           `json:"passed_calibrated"`
	PassRateCalibrated       float64       `json:"pass_rate_calibrated"`
	SolvablePassedCalibrated int           `json:"solvable_passed_calibrated"`
	Criteria                 CriteriaRates `json:"criteria"`
	PassedFair               *int          `json:"passed_fair,omitempty"`
}

// Summarize aggregates outcomes per tier: counts, pass rates (fractions) over all and over solvable tasks, the
// share of tasks meeting each criterion and, for real tasks, the passes under the fair RMS criterion.
func Summarize(outcomes []TaskOutcome) map[string]*TierSummary {
	tiers := map[string]*TierSummary{}
	for _, o := range outcomes {
		s := tiers[o.Tier]
		if s == nil {
			s = &TierSummary{}
			tiers[o.Tier] = s
		}
		s.Tasks++
		r := o.Result
		count := func(all, solvable *int, ok bool) {
			if ok {
				*all++
				if o.Solvable {
					*solvable++
				}
			}
		}
		count(&s.Passed, &s.SolvablePassed, r.Passed)
		count(&s.PassedStrict, &s.SolvablePassedStrict, r.PassedStrict)
		count(&s.PassedCalibrated, &s.SolvablePassedCalibrated, r.PassedCalibrated)
		if o.Solvable {
			s.SolvableTasks++
		}
		add := func(dst *float64, ok bool) {
			if ok {
				*dst++
			}
		}
		add(&s.Criteria.OKRMS, r.OKRMS)
		add(&s.Criteria.OKDeltaBIC, r.OKDeltaBIC)
		add(&s.Criteria.OKMatch, r.OKMatch)
		add(&s.Criteria.OKCount, r.OKCount)
		if r.PassedFair != nil {
			if s.PassedFair == nil {
				s.PassedFair = new(int)
			}
			if *r.PassedFair {
				*s.PassedFair++
			}
		}
	}
	for _, s := range tiers {
		n := float64(s.Tasks)
		s.PassRate = float64(s.Passed) / n
		s.PassRateStrict = float64(s.PassedStrict) / n
		s.PassRateCalibrated = float64(s.PassedCalibrated) / n
		s.Criteria.OKRMS /= n
		s.Criteria.OKDeltaBIC /= n
		s.Criteria.OKMatch /= n
		s.Criteria.OKCount /= n
	}
	return tiers
}
