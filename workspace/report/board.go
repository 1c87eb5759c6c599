package report

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strconv"

	"transitbench/data/sets"
	"transitbench/grader/store"
	"transitbench/workspace"
	"transitbench/workspace/baselines"
	"transitbench/workspace/figure"
)

// Cell is a solution's score on one set: S and the numbers behind it, the run that gave it (0 for reference
// rows) and whether the set was run at all.
type Cell struct {
	Has      bool
	Withheld bool // a hidden run not complete: no score yet
	S, C, F  float64
	EB       float64
	Run      int64
}

// BoardRow is one row of the leaderboard: a grading (its A, B and dev runs), a baseline run of this data
// directory, a row of results/baselines.json or one of TransitBench's published values.
type BoardRow struct {
	Kind   string // KindGrading, KindBaselineRun, KindLadder, KindPublished
	Name   string
	Detail string
	First  bool // grading #1 of its workspace
	Again  bool // a re-grade of a solution graded before
	Hash   string
	Date   string
	A, B   Cell
	Dev    Cell
	Note   string // what a published value adds (C and F where TransitBench gives them)
}

// Kinds of leaderboard rows.
const (
	KindGrading     = "grading"
	KindBaselineRun = "baseline run"
	KindLadder      = "baseline (ladder)"
	KindPublished   = "TransitBench"
)

// published are TransitBench's scores on real Kepler data (S on A / B), as README's ladder table quotes them.
var published = []struct {
	name   string
	sa, sb float64
	note   string
}{
	{baselines.RowEmpty, 0, 0, ""},
	{baselines.RowStarter, 0.046, 0.076, "C ≈ 0.68, F ≈ 29"},
	{baselines.RowNaive, -0.159, -0.155, ""},
	{baselines.RowLearned, 0.696, 0.673, ""},
	{baselines.RowReference, 0.805, 0.805, ""},
}

// reportOf decodes a run's stored summary (a workspace.Report); nil when the run has none yet.
func reportOf(r store.Run) *workspace.Report {
	if len(r.Summary) == 0 {
		return nil
	}
	var rep workspace.Report
	if json.Unmarshal(r.Summary, &rep) != nil {
		return nil
	}
	if r.Hidden { // the site shows a hidden run as its contestant does: S alone
		rep.Hidden = true
		return rep.ForContestant()
	}
	return &rep
}

// cellOf is a run's cell: its score when it has one (a hidden run only when complete).
func cellOf(r store.Run) Cell {
	c := Cell{Has: true, Run: r.ID}
	rep := reportOf(r)
	if rep == nil || rep.ScoreWithheld || r.Status != store.StatusDone {
		c.Withheld = true
		return c
	}
	c.S, c.C, c.F, c.EB = rep.S, rep.C, rep.F, rep.EBShare
	return c
}

// Board is the leaderboard page: every row and the plot of S on A against S on B.
type Board struct {
	Rows      []BoardRow
	Runs      []RunLine
	Compares  []Link
	Plot      Figure
	LadderGen string
	LadderSrc string // where the ladder came from
	HasRV     bool
	Live      bool // served: the page offers a form to compare any two runs
}

// Link is a page link with its text.
type Link struct{ Href, Text string }

// board builds the leaderboard from the store's runs and the baseline table.
func (s *Site) board(ctx context.Context) (*Board, error) {
	runs, err := s.runs(ctx)
	if err != nil {
		return nil, err
	}
	b := &Board{Rows: gradingRows(runs)}
	b.Rows = append(b.Rows, baselineRunRows(runs)...)
	if s.ladder != nil {
		b.LadderGen, b.LadderSrc = s.ladder.Generator, s.ladderSource
		for _, r := range s.ladder.Rows {
			row := BoardRow{Kind: KindLadder, Name: r.Name, Detail: "simulator " + s.ladder.Generator}
			for set, cell := range map[string]*Cell{sets.A: &row.A, sets.B: &row.B, sets.Dev: &row.Dev} {
				if c, ok := r.Cells[set]; ok {
					*cell = Cell{Has: true, S: c.S, C: c.C, F: c.F, EB: c.EBShare}
				}
			}
			b.Rows = append(b.Rows, row)
		}
	}
	for _, p := range published {
		b.Rows = append(b.Rows, BoardRow{Kind: KindPublished, Name: p.name, Detail: "real Kepler data", Note: p.note,
			A: Cell{Has: true, S: p.sa}, B: Cell{Has: true, S: p.sb}})
	}
	for _, r := range runs {
		b.Runs = append(b.Runs, runLine(r))
	}
	b.Compares = compareLinks(runs)
	b.Plot = svgFigure("score-plot", "S on A against S on B for every grading and reference row", figure.ScorePlot(scorePoints(b.Rows)), 6.5, 5)
	b.HasRV = s.hasRV()
	return b, nil
}

// gradingRows groups the grade runs by workspace and grading number, newest first.
func gradingRows(runs []store.Run) []BoardRow {
	type key struct {
		label   string
		grading int
	}
	byKey := map[key]*BoardRow{}
	var order []key
	for _, r := range runs {
		if r.Kind != store.KindGrade {
			continue
		}
		k := key{r.Label, r.Grading}
		row, ok := byKey[k]
		if !ok {
			row = &BoardRow{Kind: KindGrading, Name: filepath.Base(r.Label), Hash: short(r.SolutionHash),
				Date: r.Started.Format("2006-01-02 15:04"), First: r.Grading == 1}
			byKey[k] = row
			order = append(order, k)
		}
		row.Again = row.Again || r.HasFlag(store.FlagAgain)
		switch r.Set {
		case sets.A:
			row.A = cellOf(r)
		case sets.B:
			row.B = cellOf(r)
		case sets.Dev:
			row.Dev = cellOf(r)
		}
	}
	var out []BoardRow
	for _, k := range order {
		row := byKey[k]
		row.Detail = "grading #" + strconv.Itoa(k.grading)
		out = append(out, *row)
	}
	return out
}

// baselineRunRows gives one row per baseline pipeline run in this data directory: its latest run on each set.
func baselineRunRows(runs []store.Run) []BoardRow {
	byName := map[string]*BoardRow{}
	var names []string
	for _, r := range runs { // newest first: the first run seen of a set is its latest
		if r.Kind != store.KindBaseline {
			continue
		}
		row, ok := byName[r.Label]
		if !ok {
			row = &BoardRow{Kind: KindBaselineRun, Name: r.Label, Detail: "run in this data directory",
				Date: r.Started.Format("2006-01-02 15:04")}
			byName[r.Label] = row
			names = append(names, r.Label)
		}
		for set, cell := range map[string]*Cell{sets.A: &row.A, sets.B: &row.B, sets.Dev: &row.Dev} {
			if r.Set == set && !cell.Has {
				*cell = cellOf(r)
			}
		}
	}
	sort.Strings(names)
	var out []BoardRow
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out
}

// scorePoints are the rows with a score on both A and B.
func scorePoints(rows []BoardRow) []figure.ScorePoint {
	var pts []figure.ScorePoint
	for _, r := range rows {
		if !r.A.Has || !r.B.Has || r.A.Withheld || r.B.Withheld {
			continue
		}
		label := r.Name
		switch r.Kind {
		case KindGrading:
			label += " " + r.Detail
			if r.First {
				label += " (first)"
			}
		case KindPublished:
			label += " (TransitBench)"
		}
		pts = append(pts, figure.ScorePoint{Label: label, SA: r.A.S, SB: r.B.S, Reference: r.Kind != KindGrading})
	}
	return pts
}

// short is the first 12 characters of a hash.
func short(h string) string { return h[:min(len(h), 12)] }
