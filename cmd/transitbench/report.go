package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"transitbench/sandbox"
	"transitbench/workspace"
)

// How dev and grade print a run's workspace.Report for people.

// printGradeReport prints a grading's result: the JSON of --json, else the grading's number and a table per set.
func printGradeReport(w io.Writer, rep *workspace.GradeReport, asJSON bool) error {
	if asJSON {
		return writeJSON(w, rep)
	}
	again := map[bool]string{true: ", a re-grade"}[rep.Again]
	resumed := map[bool]string{true: ", resumed"}[rep.Resumed]
	fmt.Fprintf(w, "frozen %s: grading #%d of this workspace%s%s\n", rep.Frozen, rep.Grading, again, resumed)
	if rep.FrozenFile != "" {
		fmt.Fprintf(w, "graded from the frozen file with SHA-256 %s\n", rep.FrozenFile)
	}
	for _, r := range []*workspace.Report{rep.A, rep.B, rep.Dev} {
		if r != nil {
			printReport(w, r)
		}
	}
	return nil
}

// printReport prints a run's score as a short table; a hidden set's shows aggregates only, and no score until
// the run is complete.
func printReport(w io.Writer, r *workspace.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	state := ""
	if !r.Complete {
		state = "  (incomplete)"
	}
	fmt.Fprintf(tw, "set %s\trun %d\t%d stars\t%.1f s\t%s%s\n", r.Set, r.RunID, r.StarsRun, r.Seconds, r.Isolation, state)
	fmt.Fprintf(tw, "  protections\t%s\n", protectionsText(r.Protections))
	if r.Resumed > 0 {
		fmt.Fprintf(tw, "  resumed\t%d of %d stars kept from the interrupted run\n", r.Resumed, r.StarsRun)
	}
	switch {
	case r.ScoreWithheld:
		fmt.Fprintf(tw, "  score\twithheld until the hidden set is complete\n")
	case r.Redacted:
		fmt.Fprintf(tw, "  S\t%.3f\n", r.S)
		fmt.Fprintf(tw, "  breakdowns\tkept for the maintainer (a hidden set shows S alone)\n")
	default:
		printScore(tw, r)
	}
	printRuntime(tw, r)
	tw.Flush()
}

// printScore prints a run's S, C, F, EB share and breakdowns.
func printScore(tw io.Writer, r *workspace.Report) {
	fmt.Fprintf(tw, "  S\t%.3f\t(credit − false candidates, over the planets)\n", r.S)
	fmt.Fprintf(tw, "  C\t%.3f\t(credit %.1f of %d planets)\n", r.C, r.Credit, r.Planets)
	fmt.Fprintf(tw, "  F\t%.1f\t(%d false candidates on %d scored stars)\n", r.F, r.False, r.ScoredStars)
	fmt.Fprintf(tw, "  EB share\t%.3f\t(%d of %d counted EBs flagged)\n", r.EBShare, r.EBsWithRows, r.CountedEBs)
	fmt.Fprintf(tw, "  random\tS %.3f\tC %.3f\tF %.1f\n", r.ByPopulation.Random.S, r.ByPopulation.Random.C, r.ByPopulation.Random.F)
	fmt.Fprintf(tw, "  false-alarm\tS %.3f\tC %.3f\tF %.1f\n", r.ByPopulation.FalseAlarm.S, r.ByPopulation.FalseAlarm.C, r.ByPopulation.FalseAlarm.F)
	b := r.ByMESBin
	fmt.Fprintf(tw, "  C by MES\t4–7.1 %.2f (%d)\t7.1–10 %.2f (%d)\t10–20 %.2f (%d)\t≥ 20 %.2f (%d)\n", b.Low.C, b.Low.Planets,
		b.Mid.C, b.Mid.Planets, b.High.C, b.High.Planets, b.Top.C, b.Top.Planets)
	c := r.ByCategory
	fmt.Fprintf(tw, "  categories\tinjected %d\tuntouched %d\teb %d\tlabelled %d\t(stars; false candidates %d / %d / %d / %d)\n",
		c.Injected.Stars, c.Untouched.Stars, c.EB.Stars, c.Labelled.Stars, c.Injected.False, c.Untouched.False, c.EB.False, c.Labelled.False)
}

// printRuntime prints how a run's stars ended and its slowest runtimes (never which stars they were).
func printRuntime(w io.Writer, r *workspace.Report) {
	if f := r.Failures; f != (workspace.Failures{}) {
		fmt.Fprintf(w, "  failures\ttimeout %d\tcrash %d\toutput limit %d\n", f.Timeout, f.Crash, f.OutputLimit)
	}
	if len(r.Exits) > 0 {
		reasons := make([]string, 0, len(r.Exits))
		for k := range r.Exits {
			reasons = append(reasons, k)
		}
		slices.Sort(reasons)
		var parts []string
		for _, k := range reasons {
			parts = append(parts, fmt.Sprintf("%s %d", k, r.Exits[k]))
		}
		fmt.Fprintf(w, "  exits\t%s\n", strings.Join(parts, "\t"))
	}
	if len(r.Slowest) > 0 {
		var parts []string
		for _, s := range r.Slowest {
			parts = append(parts, fmt.Sprintf("%.1f s", s))
		}
		fmt.Fprintf(w, "  slowest\t%s\n", strings.Join(parts, "\t"))
	}
}

// protectionsText lists the sandbox's protections a run had, and the ones it lacked.
func protectionsText(p sandbox.Protections) string {
	text := strings.Join(p.InForce(), " ")
	if text == "" {
		text = "none"
	}
	if missing := p.Missing(); len(missing) > 0 {
		text += "  (without " + strings.Join(missing, ", ") + ")"
	}
	return text
}
