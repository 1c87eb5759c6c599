package baselines

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"transitbench/data"
	"transitbench/engine/pipeline"
)

// ErrUnknownPipeline is returned by PrintPipeline for a name that is not a pipeline row.
var ErrUnknownPipeline = errors.New("baselines: unknown pipeline")

// PipelineRows runs pipeline name (naive_v0, learned_vetter or expert) on the star directory dir and returns its rows.
// A light curve with too few valid cadences gives no rows and a note on stderr.
func PipelineRows(stderr io.Writer, name, dir string) ([]pipeline.Row, error) {
	if !slices.Contains(pipeline.Names, name) {
		return nil, fmt.Errorf("%w %q: use %s", ErrUnknownPipeline, name, strings.Join(pipeline.Names, ", "))
	}
	c, star, err := data.ReadStarDir(dir)
	if err != nil {
		return nil, err
	}
	rows, err := pipeline.Run(name, c, PipelineStar(star))
	if errors.Is(err, pipeline.ErrTooFewCadences) {
		fmt.Fprintln(stderr, "pipeline:", err, "- no candidate")
		err, rows = nil, nil
	}
	return rows, err
}

// PrintPipeline runs pipeline name on the star directory dir (PipelineRows) and prints its rows to w as a
// solution does: the header `period_days,t0_days,score`, then one line per row. This is the body of the hidden
// `transitbench pipeline NAME STAR_DIR` command that the ladder's solutions exec.
func PrintPipeline(w, stderr io.Writer, name, dir string) error {
	rows, err := PipelineRows(stderr, name, dir)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "period_days,t0_days,score")
	for _, r := range rows {
		fmt.Fprintf(w, "%.8f,%.8f,%.6g\n", r.PeriodDays, r.T0Days, r.Score)
	}
	return nil
}
