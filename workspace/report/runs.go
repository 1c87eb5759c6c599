package report

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
	"transitbench/workspace/figure"
)

// RunLine is a run in the list of runs.
type RunLine struct {
	ID                     int64
	Kind, Set, Label, Stat string
	Hidden                 bool
	Grading                int
	Again                  bool
	Started                string
	Stars                  int
	Score                  Cell
}

func runLine(r store.Run) RunLine {
	label := r.Label
	if r.Kind == store.KindGrade || r.Kind == store.KindDev {
		label = baseName(label)
	}
	return RunLine{ID: r.ID, Kind: r.Kind, Set: r.Set, Label: label, Stat: r.Status, Hidden: r.Hidden, Grading: r.Grading,
		Again: r.HasFlag(store.FlagAgain), Started: r.Started.Format("2006-01-02 15:04:05"), Stars: r.Stars, Score: cellOf(r)}
}

// RunPage is a run's page: its summary and breakdowns, its outcome and exit-reason counts, its runtimes and,
// for a run on a public set, its stars.
type RunPage struct {
	Line     RunLine
	Run      store.Run
	Report   *workspace.Report // the stored summary, or one computed from the outcomes of a running public run
	Live     bool              // the run is running: the page refreshes itself when served
	Done     int               // stars finished
	Exits    []Count
	Statuses []Count
	Slowest  []float64  // a hidden run's slowest runtimes (seconds), no star named
	Named    []StarLine // a public run's slowest stars, named, slowest first
	Runtime  *Figure
	Stars    []StarLine
	Compares []Link
}

// Count is a named count.
type Count struct {
	Name string
	N    int
}

// StarLine is a star of a public run.
type StarLine struct {
	ID, Status, Exit string
	Credit           float64
	False, Rows      int
	RuntimeS         float64
	Page             string // the star's page, "" when it has none
}

// runPage builds the page of run id. A hidden run's page holds its stored aggregates only.
func (s *Site) runPage(ctx context.Context, id int64) (*RunPage, error) {
	r, err := s.run(ctx, id)
	if err != nil {
		return nil, err
	}
	p := &RunPage{Line: runLine(r), Run: r, Report: reportOf(r), Live: r.Status == store.StatusRunning}
	if p.Report != nil {
		p.Exits = counts(p.Report.Exits)
		p.Slowest = p.Report.Slowest
		p.Done = p.Report.StarsRun
	}
	if r.Hidden {
		return p, nil
	}
	outs, err := s.st.Outcomes(ctx, id)
	if err != nil {
		return nil, err
	}
	p.Done = len(outs)
	statuses, exits := map[string]int{}, map[string]int{}
	var results []grader.StarResult
	var secs []float64
	for _, o := range outs {
		statuses[o.Status]++
		exits[o.ExitReason]++
		secs = append(secs, float64(o.RuntimeMS)/1000)
		line := StarLine{ID: o.StarID, Status: o.Status, Exit: o.ExitReason, Credit: o.Credit, False: o.False, RuntimeS: float64(o.RuntimeMS) / 1000}
		if sr, err := workspace.StarResultOf(o); err == nil {
			line.Rows = sr.RowsGiven
			results = append(results, sr)
		}
		if starPaged(r, o.StarID) {
			line.Page = starHref(o.StarID)
		}
		p.Stars = append(p.Stars, line)
	}
	p.Statuses, p.Exits = counts(statuses), counts(exits)
	p.Slowest, p.Named = nil, slowestStars(p.Stars, SlowestNamed)
	if p.Report == nil && len(results) > 0 {
		p.Report = &workspace.Report{RunID: r.ID, Set: r.Set, StarsRun: len(outs), Summary: grader.Summarize(results), Exits: exits}
	}
	if len(secs) > 0 {
		f := svgFigure("runtime", fmt.Sprintf("runtime per star of run %d (%d stars)", r.ID, len(secs)),
			figure.RuntimeHistogram(secs, 20), 6.5, 3)
		p.Runtime = &f
	}
	runs, err := s.runs(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range comparePairs(runs) {
		if c.a == r.ID || c.b == r.ID {
			p.Compares = append(p.Compares, c.link())
		}
	}
	return p, nil
}

// SlowestNamed is how many of a public run's slowest stars its page names.
const SlowestNamed = 5

// slowestStars returns the n stars of lines with the longest runtimes, slowest first (ties by id).
func slowestStars(lines []StarLine, n int) []StarLine {
	out := append([]StarLine(nil), lines...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].RuntimeS != out[j].RuntimeS {
			return out[i].RuntimeS > out[j].RuntimeS
		}
		return out[i].ID < out[j].ID
	})
	return out[:min(n, len(out))]
}

// counts sorts a map of counts by name.
func counts(m map[string]int) []Count {
	var out []Count
	for k, n := range m {
		if k == "" {
			k = "(none)"
		}
		out = append(out, Count{k, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// public reports whether a run's stars may be shown: a run on a set that is not hidden.
func public(r store.Run) bool { return !r.Hidden && !workspace.IsHiddenStar(r.Set+"-0") }

// starPaged reports whether a star of run r has a page: a star of the dev set in a public run.
func starPaged(r store.Run, id string) bool {
	return public(r) && r.Set == "dev" && !workspace.IsHiddenStar(id)
}

func runHref(id int64) string       { return "run-" + strconv.FormatInt(id, 10) + ".html" }
func starHref(id string) string     { return "star-" + id + ".html" }
func compareHref(a, b int64) string { return fmt.Sprintf("compare-%d-%d.html", a, b) }

func baseName(label string) string {
	for i := len(label) - 1; i >= 0; i-- {
		if label[i] == '/' && i < len(label)-1 {
			return label[i+1:]
		}
	}
	return label
}
