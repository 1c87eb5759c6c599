package rv

// Feedback is what a contestant learns from one submission: pass or fail per criterion and the submission's
// own scalars. Unlike the original environment it never carries per-pair parameter differences, the list of
// unmatched true planets or any truth parameter. match_score is derived from the truth but is a single scalar
// of the submission, as the original reports it. JSON field names are stable.
type Feedback struct {
	Task             string   `json:"task"`
	Submission       int      `json:"submission"`       // 1-based index of this submission on the task
	SubmissionsLeft  int      `json:"submissions_left"` // within the tier's budget
	DryRun           bool     `json:"dry_run,omitempty"`
	OKRMS            bool     `json:"ok_rms"`
	OKDeltaBIC       bool     `json:"ok_delta_bic"`
	OKMatch          *bool    `json:"ok_match,omitempty"` // absent in a dry run
	OKCount          *bool    `json:"ok_count,omitempty"` // absent in a dry run
	Passed           *bool    `json:"passed,omitempty"`   // absent in a dry run
	RMSMS            float64  `json:"rms_ms"`
	MaxRMSMS         float64  `json:"max_rms_ms"`
	DeltaBICPerPoint float64  `json:"delta_bic_per_point"`
	MatchScore       *float64 `json:"match_score,omitempty"` // absent in a dry run
	TaskPassed       bool     `json:"task_passed"`           // any submission within budget passed
	// The fair RMS criterion of real tasks (threshold raised to the published solution's own RMS).
	OKRMSFair  *bool `json:"ok_rms_fair,omitempty"`
	PassedFair *bool `json:"passed_fair,omitempty"`
}

// FeedbackFor phrases a gate result for the contestant.
func FeedbackFor(task string, submission, left int, r Result, taskPassed bool) Feedback {
	okM, okC, passed, ms := r.OKMatch, r.OKCount, r.Passed, r.MatchScore
	return Feedback{
		Task: task, Submission: submission, SubmissionsLeft: left,
		OKRMS: r.OKRMS, OKDeltaBIC: r.OKDeltaBIC, OKMatch: &okM, OKCount: &okC, Passed: &passed,
		RMSMS: r.RMSMS, MaxRMSMS: r.MaxRMSMS, DeltaBICPerPoint: r.DeltaBICPerPoint, MatchScore: &ms,
		TaskPassed: taskPassed || passed, OKRMSFair: r.OKRMSFair, PassedFair: r.PassedFair,
	}
}

// DryRunFeedback reports only what needs no truth: RMS, ΔBIC/N and their verdicts. It spends nothing.
func DryRunFeedback(task string, left int, m ModelMetrics, taskPassed bool) Feedback {
	return Feedback{
		Task: task, SubmissionsLeft: left, DryRun: true,
		OKRMS: m.OKRMS, OKDeltaBIC: m.OKDeltaBIC, RMSMS: m.RMSMS, MaxRMSMS: m.MaxRMSMS,
		DeltaBICPerPoint: m.DeltaBICPerPoint, TaskPassed: taskPassed,
	}
}
