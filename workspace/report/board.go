package report

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"transitbench/data/sets"
	"transitbench/grader"
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
	// SE is the standard error of S from the run's per-star contributions (grader.StandardErrorS), set for a
	// finished run on the dev set whose outcomes the store keeps (HasSE); Bar draws S ± SE on the leaderboard's
	// common scale.
	SE    float64
	HasSE bool
	Bar   template.HTML
}

// BoardRow is one row of the leaderboard: a grading (its A, B and dev runs), a baseline run of this data
// directory, a row of results/baselines.json or one of TransitBench's published values.
type BoardRow struct {
	Kind string // KindGrading, KindBaselineRun, KindLadder, KindPublished
	// Rank is a grading's place by S on A among the gradings with a score (ties share a place, 1 2 2 4); 0 for
	// other rows and for gradings whose score is withheld.
	Rank int
	// Name is a grading's label: the contestant's (grade --frozen --label) or the workspace's folder name.
	Name   string
	Detail string
	First  bool // grading #1 of its workspace
	Again  bool // a re-grade of a solution graded before
	Hash   string
	Date   string
	At     time.Time // when the grading started (its first run)
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
	History   Figure // S on A of every grading over time, with S on dev ± SE
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
	for i := range b.Rows {
		if err := s.devScatter(ctx, &b.Rows[i].Dev); err != nil {
			return nil, err
		}
	}
	rankGradings(b.Rows)
	sort.SliceStable(b.Rows, func(i, j int) bool { return boardOrder(b.Rows[i]) < boardOrder(b.Rows[j]) })
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
	b.History = svgFigure("score-history", "S over time: S on A of every grading by the date it ran (first gradings filled, re-gradings as rings), "+
		"and S on the dev set with its standard error", figure.ScoreHistoryPlot(historyPoints(b.Rows)), 6.5, 4)
	devBars(b.Rows)
	b.HasRV = s.hasRV()
	return b, nil
}

// gradingRows groups the grade runs by lineage (a workspace, or a contestant's label) and grading number,
// newest first. A grading's name is its label: the contestant's for a grading of grade --frozen --label, else
// the workspace's folder name.
func gradingRows(runs []store.Run) []BoardRow {
	type key struct {
		lineage string
		grading int
	}
	byKey := map[key]*BoardRow{}
	var order []key
	for _, r := range runs {
		if r.Kind != store.KindGrade {
			continue
		}
		k := key{r.Lineage, r.Grading}
		if k.lineage == "" { // recorded before lineages: counted per workspace path
			k.lineage = "label:" + r.Label
		}
		row, ok := byKey[k]
		if !ok {
			row = &BoardRow{Kind: KindGrading, Name: gradingLabel(r), Hash: short(r.SolutionHash), First: r.Grading == 1}
			byKey[k] = row
			order = append(order, k)
		}
		if row.At.IsZero() || r.Started.Before(row.At) {
			row.At = r.Started
			row.Date = r.Started.Format("2006-01-02 15:04")
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

// gradingLabel is the label a grading run is shown under: the contestant's label of its lineage
// (workspace.LineageContestant), else its workspace's folder name.
func gradingLabel(r store.Run) string {
	if l, ok := strings.CutPrefix(r.Lineage, workspace.LineageContestant); ok && l != "" {
		return l
	}
	return filepath.Base(r.Label)
}

// rankGradings numbers the gradings with a score on A by S on A, highest first; equal scores (to the three
// decimals shown) share a place and the next place skips (1, 2, 2, 4).
func rankGradings(rows []BoardRow) {
	var idx []int
	for i, r := range rows {
		if r.Kind == KindGrading && r.A.Has && !r.A.Withheld {
			idx = append(idx, i)
		}
	}
	shown := func(v float64) float64 { return math.Round(v * 1000) }
	sort.SliceStable(idx, func(a, b int) bool { return shown(rows[idx[a]].A.S) > shown(rows[idx[b]].A.S) })
	for n, i := range idx {
		rows[i].Rank = n + 1
		if n > 0 && shown(rows[i].A.S) == shown(rows[idx[n-1]].A.S) {
			rows[i].Rank = rows[idx[n-1]].Rank
		}
	}
}

// boardOrder is where a row goes on the leaderboard: ranked gradings by rank, then the gradings without a score
// (newest first, as the store lists them), then the reference rows in their order.
func boardOrder(r BoardRow) int {
	switch {
	case r.Kind != KindGrading:
		return math.MaxInt
	case r.Rank == 0:
		return math.MaxInt - 1
	}
	return r.Rank
}

// devScatter sets the standard error of a dev cell's S from its run's per-star outcomes (grader.StandardErrorS):
// a finished run on the dev set whose outcomes the store keeps. Hidden runs keep none and get none.
func (s *Site) devScatter(ctx context.Context, c *Cell) error {
	if !c.Has || c.Withheld || c.Run == 0 {
		return nil
	}
	r, err := s.st.Run(ctx, c.Run)
	if err != nil {
		return err
	}
	if !public(r) || r.Set != sets.Dev {
		return nil
	}
	outs, err := s.st.Outcomes(ctx, r.ID)
	if err != nil {
		return err
	}
	results := make([]grader.StarResult, 0, len(outs))
	for _, o := range outs {
		if sr, err := workspace.StarResultOf(o); err == nil {
			results = append(results, sr)
		}
	}
	c.SE, c.HasSE = grader.StandardErrorS(results)
	return nil
}

// historyPoints are the gradings, oldest first, as the chart of S over time takes them.
func historyPoints(rows []BoardRow) []figure.HistoryPoint {
	var pts []figure.HistoryPoint
	for _, r := range rows {
		if r.Kind != KindGrading {
			continue
		}
		pt := figure.HistoryPoint{Label: r.Name + " " + strings.TrimPrefix(r.Detail, "grading "), Time: r.At, Regrade: r.Again,
			SA: math.NaN(), Dev: math.NaN(), DevSE: math.NaN()}
		if r.A.Has && !r.A.Withheld {
			pt.SA = r.A.S
		}
		if r.Dev.Has && !r.Dev.Withheld {
			pt.Dev = r.Dev.S
			if r.Dev.HasSE {
				pt.DevSE = r.Dev.SE
			}
		}
		pts = append(pts, pt)
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Time.Before(pts[j].Time) })
	return pts
}

// devBars draws each dev cell with a standard error as a small inline bar, S ± SE, on one scale for the column.
func devBars(rows []BoardRow) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if r.Dev.HasSE {
			lo, hi = math.Min(lo, r.Dev.S-r.Dev.SE), math.Max(hi, r.Dev.S+r.Dev.SE)
		}
	}
	for i := range rows {
		if c := &rows[i].Dev; c.HasSE {
			c.Bar = errorBarSVG(c.S, c.SE, lo, hi)
		}
	}
}

// errorBarSVG is an inline SVG, 80 × 10 px, of S ± SE on the scale [lo, hi] (widened to at least 0.1): a dot at
// S and a whisker from S − SE to S + SE, in the text's colour.
func errorBarSVG(s, se, lo, hi float64) template.HTML {
	if hi-lo < 0.1 {
		mid := (hi + lo) / 2
		lo, hi = mid-0.05, mid+0.05
	}
	const w, pad = 80.0, 3.0
	x := func(v float64) float64 { return pad + (w-2*pad)*(v-lo)/(hi-lo) }
	return template.HTML(fmt.Sprintf(`<svg class="ebar" width="80" height="10" viewBox="0 0 80 10" role="img" aria-label="S %.3f ± %.3f">`+
		`<path d="M%.1f 5H%.1fM%.1f 2V8M%.1f 2V8" stroke="currentColor" fill="none"/><circle cx="%.1f" cy="5" r="2.2" fill="currentColor"/></svg>`,
		s, se, x(s-se), x(s+se), x(s-se), x(s+se), x(s)))
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
