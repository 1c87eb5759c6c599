package baselines

import (
	"fmt"
	"io"
	"math"
	"strings"

	"transitbench/grader"
	"transitbench/workspace/figure"
)

// Recall returns the series of figure.RecallPlot for the named rows of t on set (rows without that set's cell
// are left out): each row's C in every MES bin, NaN where the bin holds no planet.
func Recall(t *Table, set string, rows []string) []figure.RecallSeries {
	var out []figure.RecallSeries
	for _, name := range rows {
		c := t.cell(name, set)
		if c == nil {
			continue
		}
		var r []float64
		for _, b := range c.ByMESBin.Bins() {
			if b.Planets == 0 {
				r = append(r, math.NaN())
			} else {
				r = append(r, b.C)
			}
		}
		out = append(out, figure.RecallSeries{Name: name, Recall: r})
	}
	return out
}

// cell returns row name's cell on set, nil when there is none.
func (t *Table) cell(name, set string) *Cell {
	for _, r := range t.Rows {
		if r.Name == name {
			return r.Cells[set]
		}
	}
	return nil
}

// WriteBreakdown writes, as a Markdown table, each named row's cell on set: S, recall per MES bin (credit /
// planets), recall per population, and the false rows per 100 scored stars of each population and on the
// untouched stars and EBs (rows without that set's cell are left out).
func WriteBreakdown(w io.Writer, t *Table, set string, rows []string) error {
	var b strings.Builder
	b.WriteString("| row | S | recall 4–7.1 | 7.1–10 | 10–20 | ≥ 20 | recall random / false-alarm | false rows per 100 stars: random / false-alarm | false rows on untouched / EB stars |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, name := range rows {
		c := t.cell(name, set)
		if c == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.3f |", name, c.S)
		for _, bin := range c.ByMESBin.Bins() {
			if bin.Planets == 0 {
				b.WriteString(" – |")
			} else {
				fmt.Fprintf(&b, " %.2f (%g/%d) |", bin.C, bin.Credit, bin.Planets)
			}
		}
		r, fa := c.ByPopulation.Random, c.ByPopulation.FalseAlarm
		fmt.Fprintf(&b, " %.2f / %.2f | %s / %s | %d / %d |\n", r.C, fa.C, per100(r), per100(fa),
			c.ByCategory.Untouched.False, c.ByCategory.EB.False)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// per100 is a population's false rows per 100 of its scored stars.
func per100(t grader.Totals) string {
	if t.ScoredStars == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", 100*float64(t.False)/float64(t.ScoredStars))
}
