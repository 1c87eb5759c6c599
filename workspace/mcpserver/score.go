package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/grader"
	"transitbench/workspace"
)

// ScoreRowsIn is a rows file: candidate rows of many stars, given as text or as a file of solution/.
type ScoreRowsIn struct {
	Rows string `json:"rows,omitempty" jsonschema:"star_id,period_days,t0_days,score lines (a header with those names, blank and # lines are ignored); at most 256 KiB"`
	File string `json:"file,omitempty" jsonschema:"instead of rows: a rows file inside solution/, e.g. rows.csv"`
}

// ScoredStar is one dev star's result: its outcome (hit, half, false, missed, quiet, ignored), the rows it was
// given and counted, its credit and false candidates.
type ScoredStar struct {
	ID      string  `json:"id"`
	Outcome string  `json:"outcome"`
	Rows    int     `json:"rows"`
	Counted int     `json:"counted_rows"`
	Credit  float64 `json:"credit"`
	False   int     `json:"false"`
}

// ScoreRowsOut is score_rows's answer: the dev set's summary (S, C, F as the grader computes them), the lines
// that were not rows, and every dev star's result in the set's order.
type ScoreRowsOut struct {
	Set           string               `json:"set"`
	S             float64              `json:"S"`
	C             float64              `json:"C"`
	F             float64              `json:"F"`
	Credit        float64              `json:"credit"`
	False         int                  `json:"false"`
	Planets       int                  `json:"planets"`
	ScoredStars   int                  `json:"scored_stars"`
	Rows          int                  `json:"rows"`
	StarsWithRows int                  `json:"stars_with_rows"`
	Dropped       []grader.DroppedLine `json:"dropped"`
	Stars         []ScoredStar         `json:"stars"`
}

const scoreRowsDoc = "Score a rows file (star_id,period_days,t0_days,score lines: a solution's output with each star's id " +
	"in front, as 'transitbench score' reads it) against the dev set's answers with the grader's matcher: S, C, F and " +
	"each dev star's outcome. Only the dev set: hidden stars are never scored here."

func (s *Server) scoreRows(_ context.Context, _ *mcp.CallToolRequest, in ScoreRowsIn) (*mcp.CallToolResult, ScoreRowsOut, error) {
	text := in.Rows
	switch {
	case text != "" && in.File != "":
		return nil, ScoreRowsOut{}, badInput("give rows or file, not both")
	case in.File != "":
		_, f, err := s.solutionRead(context.Background(), nil, SolutionFileIn{Path: in.File})
		if err != nil {
			return nil, ScoreRowsOut{}, err
		}
		text = f.Content
	case len(text) > MaxFileBytes:
		return nil, ScoreRowsOut{}, badInput("rows of %d bytes: score_rows takes at most %d; score the stars in parts", len(text), MaxFileBytes)
	}
	set, err := s.set("")
	if err != nil {
		return nil, ScoreRowsOut{}, err
	}
	rows, dropped := grader.ParseStarRows(strings.NewReader(text))
	var unknown []string
	for id := range rows {
		if workspace.IsHiddenStar(id) {
			return nil, ScoreRowsOut{}, hiddenError(id + " is a star of a hidden set: only the dev set is scored here")
		}
		if _, ok := set.Answers[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, ScoreRowsOut{}, notFound("rows for stars the dev set does not have: " + strings.Join(unknown[:min(len(unknown), 10)], ", ") +
			" (list_stars gives the dev ids)")
	}
	out := ScoreRowsOut{Set: set.Name, StarsWithRows: len(rows), Dropped: dropped, Stars: []ScoredStar{}}
	if out.Dropped == nil {
		out.Dropped = []grader.DroppedLine{}
	}
	ids := set.IDs
	if set.Name == s.devSetName() {
		ids = s.ws.DevIDs(set)
	}
	var results []grader.StarResult
	for _, id := range ids {
		times, err := set.ValidTimes(id)
		if err != nil {
			return nil, ScoreRowsOut{}, err
		}
		r := grader.MatchStar(set.Answers[id], times, rows[id])
		results = append(results, r)
		out.Rows += len(rows[id])
		out.Stars = append(out.Stars, ScoredStar{ID: id, Outcome: r.Outcome(), Rows: r.RowsGiven, Counted: len(r.Rows),
			Credit: r.Credit, False: r.False})
	}
	sum := grader.Summarize(results)
	out.S, out.C, out.F, out.Credit, out.False, out.Planets, out.ScoredStars = sum.S, sum.C, sum.F, sum.Credit, sum.False, sum.Planets, sum.ScoredStars
	return nil, out, nil
}
