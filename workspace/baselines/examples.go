package baselines

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"transitbench/engine/pipeline"
)

// examplesHeader is the header of the examples CSV: star_id, rank, planet (0/1), then the features.
func examplesHeader() []string {
	return append([]string{"star_id", "rank", "planet"}, pipeline.FeatureNames...)
}

// WriteExamplesCSV writes labelled peaks as CSV: a header, then one row per peak with its star, rank, label
// (1 planet, 0 not) and features in the order of pipeline.FeatureNames, each written exactly (shortest
// round-trip form; NaN for a feature that could not be measured).
func WriteExamplesCSV(w io.Writer, ex []Example) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(examplesHeader()); err != nil {
		return err
	}
	row := make([]string, 0, 3+len(pipeline.FeatureNames))
	for _, e := range ex {
		if len(e.X) != len(pipeline.FeatureNames) {
			return fmt.Errorf("baselines: example of star %s has %d features, want %d", e.StarID, len(e.X), len(pipeline.FeatureNames))
		}
		label := "0"
		if e.Planet {
			label = "1"
		}
		row = append(row[:0], e.StarID, strconv.Itoa(e.Rank), label)
		for _, x := range e.X {
			row = append(row, strconv.FormatFloat(x, 'g', -1, 64))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadExamplesCSV reads what WriteExamplesCSV wrote. The header must name the features the pipeline computes.
func ReadExamplesCSV(r io.Reader) ([]Example, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("baselines: examples CSV: %w", err)
	}
	if !slices.Equal(head, examplesHeader()) {
		return nil, fmt.Errorf("baselines: examples CSV has columns %v, want %v: write it again with this program's 'baselines train-vetter --examples'", head, examplesHeader())
	}
	var out []Example
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("baselines: examples CSV: %w", err)
		}
		e := Example{StarID: rec[0], X: make([]float64, len(pipeline.FeatureNames))}
		if e.Rank, err = strconv.Atoi(rec[1]); err != nil {
			return nil, fmt.Errorf("baselines: examples CSV line %d: rank %q is not an integer", line, rec[1])
		}
		switch rec[2] {
		case "1":
			e.Planet = true
		case "0":
		default:
			return nil, fmt.Errorf("baselines: examples CSV line %d: planet is %q, want 0 or 1", line, rec[2])
		}
		for i := range e.X {
			if e.X[i], err = strconv.ParseFloat(rec[3+i], 64); err != nil {
				return nil, fmt.Errorf("baselines: examples CSV line %d: %s %q is not a number", line, pipeline.FeatureNames[i], rec[3+i])
			}
		}
		out = append(out, e)
	}
}
