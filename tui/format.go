package tui

import (
	"fmt"
	"math"
	"strings"

	"transitbench/grader"
)

// formatPPM writes a fractional depth in ppm, or "–" when it is not a number.
func formatPPM(frac float64) string {
	if math.IsNaN(frac) || math.IsInf(frac, 0) {
		return "–"
	}
	return fmt.Sprintf("%.0f ppm", frac*1e6)
}

// formatNum writes v with prec decimals, or "–" for 0 when zeroIsMissing, NaN or ±Inf.
func formatNum(v float64, prec int, zeroIsMissing bool) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || (zeroIsMissing && v == 0) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// statusText is the short word of a row status in the candidates table: "hit", "½ (2×P)", "false" …
func statusText(status string) string {
	switch status {
	case grader.StatusFull:
		return "hit"
	case grader.StatusHalf2x:
		return "½ (2×P)"
	case grader.StatusHalf3x:
		return "½ (3×P)"
	case grader.StatusHalfHalf:
		return "½ (P/2)"
	case grader.StatusHalfThird:
		return "½ (P/3)"
	case "":
		return "–"
	}
	return status
}

// statusOutcome maps a row status to the outcome word whose style colours it.
func statusOutcome(status string) string {
	switch status {
	case grader.StatusFull:
		return "hit"
	case grader.StatusHalf2x, grader.StatusHalf3x, grader.StatusHalfHalf, grader.StatusHalfThird:
		return "half"
	case grader.StatusFalse:
		return "false"
	}
	return "ignored"
}

// formatScore writes S, C, F and the EB share of a summary as one line, S as a fraction with three decimals
// (SPEC A5: the one scale of every command, screen, page and tool).
func formatScore(s grader.Summary) string {
	return fmt.Sprintf("S %.3f  C %.3f  F %.1f  EB %.2f  (credit %.1f, false %d, planets %d)",
		s.S, s.C, s.F, s.EBShare, s.Credit, s.False, s.Planets)
}

// scoreFields are formatScore's values as status fields, for a line that may be narrower than they are: S
// first and kept longest, then C and F, the EB share, and the counts behind them.
func scoreFields(s grader.Summary) []statusField {
	return []statusField{
		val(0, fmt.Sprintf("S %.3f", s.S)), val(1, fmt.Sprintf("C %.3f", s.C)), val(1, fmt.Sprintf("F %.1f", s.F)),
		val(2, fmt.Sprintf("EB %.2f", s.EBShare)),
		val(3, fmt.Sprintf("credit %.1f", s.Credit)), val(4, fmt.Sprintf("false %d", s.False)),
		val(4, fmt.Sprintf("planets %d", s.Planets)),
	}
}

// shortCategory abbreviates a population for narrow tables.
func shortPopulation(p string) string {
	switch p {
	case "false_alarm":
		return "false-alarm"
	case "":
		return "–"
	}
	return p
}

// shortHash shows the first 12 hex digits of a content hash.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// titleCase upper-cases the first letter of s.
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
