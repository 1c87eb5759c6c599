package workspace

import (
	"encoding/json"

	"transitbench/grader/store"
	"transitbench/sandbox"
)

// What a contestant is shown of a grading. Every grading answers with numbers computed from the hidden sets, so
// each number shown is a channel through which repeated gradings learn about the hidden truth: a breakdown by
// population, MES bin or category, a count of exits or a runtime can each be driven by what the solution does on
// a chosen kind of star. A hidden set's report to the contestant therefore carries S alone (the score, three
// decimals); the breakdowns, exit counts and runtimes stay in the results store for the maintainer, who sees them
// with `grade --maintainer` and `runs --maintainer`.

// ForContestant returns r as the contestant sees it: r itself on a public set; on a hidden set a copy holding
// only the run's identity and state (run, set, stars run, grading, isolation, protections, solution) and S,
// marked Redacted.
func (r *Report) ForContestant() *Report {
	if r == nil || !r.Hidden || r.Redacted {
		return r
	}
	c := &Report{RunID: r.RunID, Set: r.Set, Hidden: true, StarsRun: r.StarsRun, Resumed: r.Resumed,
		ScoreWithheld: r.ScoreWithheld, Grading: r.Grading, Isolation: r.Isolation, Protections: r.Protections,
		Solution: r.Solution, Complete: r.Complete, Redacted: true}
	if !r.ScoreWithheld {
		c.S = r.S
	}
	return c
}

// ContestantReport is the JSON of a redacted report: S and nothing else computed from the hidden set.
type ContestantReport struct {
	RunID         int64               `json:"run_id"`
	Set           string              `json:"set"`
	Hidden        bool                `json:"hidden"`
	StarsRun      int                 `json:"stars_run"`
	Resumed       int                 `json:"resumed"`
	S             float64             `json:"S"`
	ScoreWithheld bool                `json:"score_withheld,omitempty"`
	Grading       int                 `json:"grading,omitempty"`
	Isolation     string              `json:"isolation"`
	Protections   sandbox.Protections `json:"protections"`
	Solution      string              `json:"solution_hash"`
	Complete      bool                `json:"complete"`
	Redacted      bool                `json:"redacted"`
}

// MarshalJSON writes a redacted report (ForContestant) as contestantReport, any other in full.
func (r Report) MarshalJSON() ([]byte, error) {
	type full Report
	if !r.Redacted {
		return json.Marshal(full(r))
	}
	return json.Marshal(r.contestant())
}

// contestant is r's ContestantReport.
func (r *Report) contestant() *ContestantReport {
	return &ContestantReport{RunID: r.RunID, Set: r.Set, Hidden: r.Hidden, StarsRun: r.StarsRun,
		Resumed: r.Resumed, S: r.S, ScoreWithheld: r.ScoreWithheld, Grading: r.Grading, Isolation: r.Isolation,
		Protections: r.Protections, Solution: r.Solution, Complete: r.Complete, Redacted: true}
}

// ContestantGradeReport is a GradeReport as the contestant sees it, typed: A and B as ContestantReport (the
// agent server's grade tool returns it, its schema generated from these types).
type ContestantGradeReport struct {
	Frozen     string            `json:"frozen"`
	FrozenFile string            `json:"frozen_file,omitempty"`
	Again      bool              `json:"again"`
	Grading    int               `json:"grading"`
	Resumed    bool              `json:"resumed"`
	A          *ContestantReport `json:"A"`
	B          *ContestantReport `json:"B"`
	Dev        *Report           `json:"dev"`
}

// Contestant returns g as ContestantGradeReport.
func (g *GradeReport) Contestant() *ContestantGradeReport {
	if g == nil {
		return nil
	}
	c := &ContestantGradeReport{Frozen: g.Frozen, FrozenFile: g.FrozenFile, Again: g.Again, Grading: g.Grading,
		Resumed: g.Resumed, Dev: g.Dev}
	if g.A != nil {
		c.A = g.A.ForContestant().contestant()
	}
	if g.B != nil {
		c.B = g.B.ForContestant().contestant()
	}
	return c
}

// ForContestant returns the grading's report as the contestant sees it: A and B redacted (Report.ForContestant),
// dev in full.
func (g *GradeReport) ForContestant() *GradeReport {
	if g == nil {
		return nil
	}
	c := *g
	c.A, c.B = g.A.ForContestant(), g.B.ForContestant()
	return &c
}

// RunForContestant returns r as the contestant sees it: a hidden run's stored summary (the full Report) replaced
// by its redacted form; other runs unchanged.
func RunForContestant(r store.Run) store.Run {
	if !r.Hidden || len(r.Summary) == 0 {
		return r
	}
	var rep Report
	if json.Unmarshal(r.Summary, &rep) != nil {
		r.Summary = nil
		return r
	}
	rep.Hidden = true
	b, err := json.Marshal(rep.ForContestant())
	if err != nil {
		b = nil
	}
	r.Summary = b
	return r
}
