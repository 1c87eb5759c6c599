package stargazer

import "fmt"

// Tier names.
const (
	TierEasy   = "easy"
	TierMedium = "medium"
	TierHard   = "hard"
	TierReal   = "real"
)

// Tiers lists the tiers in display order (TierUser, imported tasks with no truth, last).
var Tiers = []string{TierEasy, TierMedium, TierHard, TierReal, TierUser}

// TierOf returns the tier of a synthetic task's difficulty: easy 1–2, medium 3–6, hard 7–10.
func TierOf(difficulty int) string {
	switch {
	case difficulty <= 2:
		return TierEasy
	case difficulty <= 6:
		return TierMedium
	default:
		return TierHard
	}
}

// Tier returns the task's tier: "user" for imported tasks, "real" for real tasks, else by TruthDifficulty.
func (t *Task) Tier() string {
	if t.Imported {
		return TierUser
	}
	if t.Real {
		return TierReal
	}
	return TierOf(t.TruthDifficulty)
}

// ValidTier checks a tier name given on the command line ("" means all).
func ValidTier(s string) error {
	switch s {
	case "", TierEasy, TierMedium, TierHard, TierReal, TierUser:
		return nil
	}
	return fmt.Errorf("unknown tier %q: use easy, medium, hard, real or user", s)
}

func tierRank(s string) int {
	for i, t := range Tiers {
		if t == s {
			return i
		}
	}
	return len(Tiers)
}

// Budget is what a contestant may spend on one task (SPEC B1).
type Budget struct {
	Tokens      int `json:"tokens"`
	Seconds     int `json:"seconds"`
	Submissions int `json:"submissions"`
}

// BudgetFor returns a tier's budget: easy 200k tokens / 600 s / 3 submissions, medium 450k / 900 s / 5, hard
// 900k / 1500 s / 10. Real tasks, for which the original sets none, get the hard budget.
func BudgetFor(tier string) Budget {
	switch tier {
	case TierEasy:
		return Budget{Tokens: 200_000, Seconds: 600, Submissions: 3}
	case TierMedium:
		return Budget{Tokens: 450_000, Seconds: 900, Submissions: 5}
	default:
		return Budget{Tokens: 900_000, Seconds: 1500, Submissions: 10}
	}
}

// Budget returns the task's budget.
func (t *Task) Budget() Budget { return BudgetFor(t.Tier()) }
