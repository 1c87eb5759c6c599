package rvtrack

import (
	"fmt"
	"math"
	"time"

	"transitbench/data/stargazer"
)

// The states of a task against its tier's budget (TaskState.State).
const (
	StateNotStarted = "not_started"        // its clock has not started: nothing of its data shown
	StateRunning    = "running"            // started, time and submissions left
	StateExpired    = "expired"            // started, its tier's seconds are spent
	StatePassed     = "passed"             // a submission within budget passed the gate
	StateSpent      = "out_of_submissions" // every submission used, none passed within budget
	StateImported   = "imported"           // an imported task (tier user): no truth, no budget
)

// TaskState is where a task stands now against its tier's budget: what 'rv list', 'rv show', the agent tools
// and the terminal UI show of it. SecondsLeft is 0 once expired; Deadline is zero while not started.
type TaskState struct {
	State           string    `json:"state"`
	Started         time.Time `json:"started,omitzero"`
	Deadline        time.Time `json:"deadline,omitzero"`
	SecondsLeft     float64   `json:"seconds_left"`
	Seconds         int       `json:"seconds"` // the tier's time budget
	SubmissionsUsed int       `json:"submissions_used"`
	SubmissionsLeft int       `json:"submissions_left"`
}

// State returns task t's state now. A passed task is passed whatever its clock says; a task out of
// submissions is so before it is expired.
func (l *Ledger) State(t *stargazer.Task) TaskState {
	b := t.Budget()
	used := l.Used(t.TaskID)
	s := TaskState{Seconds: b.Seconds, SubmissionsUsed: used, SubmissionsLeft: max(b.Submissions-used, 0)}
	if t.Imported {
		s.State = StateImported
		return s
	}
	start, started := l.StartTime(t.TaskID)
	if started {
		s.Started = start
		s.Deadline = start.Add(time.Duration(b.Seconds) * time.Second)
		s.SecondsLeft = math.Max(s.Deadline.Sub(l.now()).Seconds(), 0)
	}
	switch {
	case l.Passed(t.TaskID):
		s.State = StatePassed
	case s.SubmissionsLeft == 0:
		s.State = StateSpent
	case !started:
		s.State = StateNotStarted
		s.SecondsLeft = float64(b.Seconds)
	case s.SecondsLeft <= 0:
		s.State = StateExpired
	default:
		s.State = StateRunning
	}
	return s
}

// Text is the state for people: "not started (900 s clock)", "running: 12:30 left", "expired", "passed",
// "failed: no submissions left", "imported".
func (s TaskState) Text() string {
	switch s.State {
	case StateNotStarted:
		return fmt.Sprintf("not started (%d s clock)", s.Seconds)
	case StateRunning:
		return "running: " + Clock(s.SecondsLeft) + " left"
	case StatePassed:
		return "passed"
	case StateSpent:
		return "failed: no submissions left"
	}
	return s.State
}

// Clock formats the seconds left on a task's clock as m:ss (h:mm:ss from an hour), or "expired" at 0.
func Clock(secondsLeft float64) string {
	if secondsLeft <= 0 {
		return "expired"
	}
	n := int(math.Ceil(secondsLeft))
	if n >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", n/3600, n/60%60, n%60)
	}
	return fmt.Sprintf("%d:%02d", n/60, n%60)
}
