package rvgate

import (
	"math"
	"time"

	"transitbench/data/stargazer"
)

// BudgetStatus is where a task stands against its tier's time and token budgets at one moment. JSON field
// names are stable; they appear in the feedback of every submission.
type BudgetStatus struct {
	// WithinBudget holds when ElapsedSeconds ≤ the tier's seconds and the declared tokens, if any, ≤ its tokens.
	WithinBudget   bool    `json:"within_budget"`
	ElapsedSeconds float64 `json:"elapsed_seconds"` // since the task's clock started, to the millisecond
	SecondsLeft    float64 `json:"seconds_left"`    // the tier's seconds minus ElapsedSeconds, at least 0
	TokensUsed     *int    `json:"tokens_used,omitempty"`
	TokensLeft     *int    `json:"tokens_left,omitempty"` // the tier's tokens minus TokensUsed, at least 0; only when declared
	// OverBudget names the budgets overspent: "seconds", "tokens".
	OverBudget []string `json:"over_budget,omitempty"`
}

// StatusAt returns the standing of a task with budget b, elapsed time after its start and tokensUsed declared
// (nil: none declared).
func StatusAt(b stargazer.Budget, elapsed time.Duration, tokensUsed *int) BudgetStatus {
	sec := math.Round(max(elapsed.Seconds(), 0)*1000) / 1000
	s := BudgetStatus{WithinBudget: true, ElapsedSeconds: sec, SecondsLeft: max(float64(b.Seconds)-sec, 0)}
	if sec > float64(b.Seconds) {
		s.WithinBudget = false
		s.OverBudget = append(s.OverBudget, "seconds")
	}
	if tokensUsed != nil {
		used, left := *tokensUsed, max(b.Tokens-*tokensUsed, 0)
		s.TokensUsed, s.TokensLeft = &used, &left
		if used > b.Tokens {
			s.WithinBudget = false
			s.OverBudget = append(s.OverBudget, "tokens")
		}
	}
	return s
}
