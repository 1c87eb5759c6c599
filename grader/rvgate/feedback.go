package rvgate

// Feedback is what a contestant learns from one submission (SPEC B3): pass or fail per criterion (ok_rms,
// ok_delta_bic, ok_match, ok_count, passed) and only the scalars the data alone determine: rms_ms, its limit
// max_rms_ms (1.5 × the median σ) and delta_bic_per_point. Unlike the original environment it never carries
// per-pair parameter differences, the list of unmatched true planets, any truth parameter, or the raw match
// score: that score reveals the true planet count (an empty submission scores exactly −0.25 × n_truth). So the
// feedback of a submission depends on the truth only through the four verdicts. JSON field names are stable.
//
// passed is the gate's verdict on this submission; passed_strict and passed_calibrated are the verdicts of the
// strict and the calibrated gates (SPEC B3), one bit each: like passed they reveal nothing of the truth beyond
// whether the submission passes. The budget fields (BudgetStatus: within_budget,
// elapsed_seconds, seconds_left, and tokens_used, tokens_left when tokens were declared) say whether it was
// made within the tier's time and token budgets; task_passed counts only submissions that were, so a passing
// submission made too late leaves task_passed as it was. In a dry run they say where the task stands now.
type Feedback struct {
	Task            string `json:"task"`
	Submission      int    `json:"submission"`       // 1-based index of this submission on the task
	SubmissionsLeft int    `json:"submissions_left"` // within the tier's budget
	DryRun          bool   `json:"dry_run,omitempty"`
	BudgetStatus
	OKRMS            bool    `json:"ok_rms"`
	OKDeltaBIC       bool    `json:"ok_delta_bic"`
	OKMatch          *bool   `json:"ok_match,omitempty"` // absent in a dry run
	OKCount          *bool   `json:"ok_count,omitempty"` // absent in a dry run
	Passed           *bool   `json:"passed,omitempty"`   // absent in a dry run
	PassedStrict     *bool   `json:"passed_strict,omitempty"`
	PassedCalibrated *bool   `json:"passed_calibrated,omitempty"`
	RMSMS            float64 `json:"rms_ms"`
	MaxRMSMS         float64 `json:"max_rms_ms"`
	DeltaBICPerPoint float64 `json:"delta_bic_per_point"`
	TaskPassed       bool    `json:"task_passed"` // any submission within budget passed
	// The fair RMS criterion of real tasks (threshold raised to the published solution's own RMS).
	OKRMSFair  *bool `json:"ok_rms_fair,omitempty"`
	PassedFair *bool `json:"passed_fair,omitempty"`
}

// FeedbackFor phrases a gate result for the contestant: r graded the submission-th submission of task, made
// with standing st against the time and token budgets; left submissions remain and taskPassed says whether
// a recorded submission within budget passed (Ledger.Passed).
func FeedbackFor(task string, submission, left int, r Result, st BudgetStatus, taskPassed bool) Feedback {
	okM, okC, passed, strict, cal := r.OKMatch, r.OKCount, r.Passed, r.PassedStrict, r.PassedCalibrated
	return Feedback{
		Task: task, Submission: submission, SubmissionsLeft: left, BudgetStatus: st,
		OKRMS: r.OKRMS, OKDeltaBIC: r.OKDeltaBIC, OKMatch: &okM, OKCount: &okC, Passed: &passed,
		PassedStrict: &strict, PassedCalibrated: &cal,
		RMSMS: r.RMSMS, MaxRMSMS: r.MaxRMSMS, DeltaBICPerPoint: r.DeltaBICPerPoint,
		TaskPassed: taskPassed || passed && st.WithinBudget, OKRMSFair: r.OKRMSFair, PassedFair: r.PassedFair,
	}
}

// DryRunFeedback reports only what needs no truth: RMS, ΔBIC/N and their verdicts, and the task's standing st
// against the time and token budgets. It spends nothing.
func DryRunFeedback(task string, left int, m ModelMetrics, st BudgetStatus, taskPassed bool) Feedback {
	return Feedback{
		Task: task, SubmissionsLeft: left, DryRun: true, BudgetStatus: st,
		OKRMS: m.OKRMS, OKDeltaBIC: m.OKDeltaBIC, RMSMS: m.RMSMS, MaxRMSMS: m.MaxRMSMS,
		DeltaBICPerPoint: m.DeltaBICPerPoint, TaskPassed: taskPassed,
	}
}
