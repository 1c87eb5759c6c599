package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"transitbench/workspace/baselines"
	"transitbench/workspace/figure"
)

// figureOptions are the inputs of 'transitbench baselines figure'.
type figureOptions struct {
	In   string // --in: the ladder table
	Set  string // --set: the set whose cells are shown
	Rows string // --rows: the rows, comma-separated, in order
	Out  string // --out: the SVG to write ("": none)
}

// defaultFigureRows are the rows the README's breakdown compares.
var defaultFigureRows = []string{baselines.RowStarter, baselines.RowLearned, baselines.RowExpert, baselines.RowReference}

func newBaselinesFigureCmd() *cobra.Command {
	opts := &figureOptions{}
	cmd := &cobra.Command{
		Use:   "figure [--in results/baselines.json] [--set A] [--rows starter,learned_vetter,expert,reference_detector] [--out FILE.svg]",
		Short: "Recall by MES bin and false rows by population of ladder rows: a Markdown table and an SVG figure",
		Long: `Read a ladder table (written by 'transitbench baselines --out') and print, for the --rows on --set, a Markdown
table: S, the recall (credit / planets) in each MES bin of SPEC A5, the recall on the random and false-alarm
halves, the false rows per 100 scored stars of each half, and the false rows on untouched stars and EBs. --out
FILE.svg also draws the recall by MES bin of each row as an SVG figure (the README's).`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runBaselinesFigure, opts),
	}
	f := cmd.Flags()
	f.StringVar(&opts.In, "in", filepath.Join("results", "baselines.json"), "the ladder table to read")
	f.StringVar(&opts.Set, "set", "A", "the set whose cells are shown")
	f.StringVar(&opts.Rows, "rows", strings.Join(defaultFigureRows, ","), "comma-separated rows, in order")
	f.StringVar(&opts.Out, "out", "", "also write the recall figure as SVG to this file")
	return cmd
}

// runBaselinesFigure prints the breakdown table and writes the figure.
func runBaselinesFigure(_ context.Context, s streams, opts *figureOptions) error {
	t, err := baselines.ReadTable(opts.In)
	if errors.Is(err, fs.ErrNotExist) {
		return notFoundf("--in %s does not exist: give a table written by 'transitbench baselines --out'", opts.In)
	}
	if err != nil {
		return badInputf("%v: give a table written by 'transitbench baselines --out'", err)
	}
	if _, ok := t.Fingerprints[opts.Set]; !ok {
		return usageErrorf("--set %q: the table %s holds no such set", opts.Set, opts.In)
	}
	rows := strings.Split(opts.Rows, ",")
	if opts.Out != "" {
		if err := checkOutFile("--out", opts.Out); err != nil {
			return err
		}
		var b bytes.Buffer
		p := figure.RecallPlot("recall by MES bin on "+opts.Set+" ("+t.Generator+")", baselines.Recall(t, opts.Set, rows))
		if err := figure.WritePlot(&b, p, 6.5, 4, figure.SVG); err != nil {
			return err
		}
		if err := os.WriteFile(opts.Out, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return baselines.WriteBreakdown(s.Out, t, opts.Set, rows)
}
