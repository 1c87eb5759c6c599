package rvtrack

import (
	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
)

// DryRun is a dry run of planets (with jitterMS) on task t, which must have started (ErrNotStarted
// otherwise: a dry run shows metrics computed from the data). It reports what needs no truth (rvgate.DryRunFeedback: RMS, ΔBIC/N, the submissions left and the
// standing against the time budget and the declared tokens). It spends no submission. Call it inside
// WithLedger, as Submit.
func (l *Ledger) DryRun(t *stargazer.Task, planets []rv.Planet, jitterMS float64, tokensUsed *int) (rvgate.Feedback, error) {
	if !t.Imported { // an imported task is the contestant's own data: it has no clock
		if _, err := l.Show(t.TaskID); err != nil {
			return rvgate.Feedback{}, err
		}
	}
	b := t.Budget()
	m := rvgate.Metrics(t.Data(), planets, jitterMS, t.MedianSigma())
	left := max(0, b.Submissions-l.Used(t.TaskID))
	return rvgate.DryRunFeedback(t.TaskID, left, m, l.Status(t.TaskID, b, tokensUsed), l.Passed(t.TaskID)), nil
}
