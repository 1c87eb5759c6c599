package rvgate

import (
	"slices"
	"testing"
	"time"

	"transitbench/data/stargazer"
)

// easy is the Easy tier's budget: 200k tokens, 600 s, 3 submissions (SPEC B1).
var easy = stargazer.BudgetFor(stargazer.TierEasy)

func intPtr(n int) *int { return &n }

func TestStatusAt(t *testing.T) {
	tests := []struct {
		name       string
		elapsed    time.Duration
		tokens     *int
		within     bool
		secLeft    float64
		tokensLeft *int
		over       []string
	}{
		{"fresh", 0, nil, true, 600, nil, nil},
		{"half way", 250500 * time.Millisecond, nil, true, 349.5, nil, nil},
		{"on the second", 600 * time.Second, nil, true, 0, nil, nil},
		{"a millisecond late", 600001 * time.Millisecond, nil, false, 0, nil, []string{"seconds"}},
		{"tokens declared", 10 * time.Second, intPtr(150_000), true, 590, intPtr(50_000), nil},
		{"all tokens", 10 * time.Second, intPtr(200_000), true, 590, intPtr(0), nil},
		{"too many tokens", 10 * time.Second, intPtr(200_001), false, 590, intPtr(0), []string{"tokens"}},
		{"both", time.Hour, intPtr(1_000_000), false, 0, intPtr(0), []string{"seconds", "tokens"}},
	}
	for _, tt := range tests {
		s := StatusAt(easy, tt.elapsed, tt.tokens)
		if s.WithinBudget != tt.within || s.SecondsLeft != tt.secLeft || !slices.Equal(s.OverBudget, tt.over) ||
			(s.TokensLeft == nil) != (tt.tokensLeft == nil) || s.TokensLeft != nil && *s.TokensLeft != *tt.tokensLeft {
			t.Errorf("%s: %+v", tt.name, s)
		}
		if tt.tokens != nil && (s.TokensUsed == nil || *s.TokensUsed != *tt.tokens) {
			t.Errorf("%s: tokens used %v, want %d", tt.name, s.TokensUsed, *tt.tokens)
		}
	}
}
