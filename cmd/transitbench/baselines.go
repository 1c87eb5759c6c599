package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"transitbench/data/sets"
	"transitbench/workspace"
	"transitbench/workspace/baselines"
)

func init() { register(newBaselinesCmd) }

// baselinesOptions are the inputs of 'transitbench baselines'.
type baselinesOptions struct {
	Sets          string // --sets: comma-separated sets to run
	Rows          string // --rows: comma-separated rows to run
	Workers       int    // --workers: stars run at once (0: one per CPU)
	Limit         int    // --limit: only the first N stars of each set (0: all)
	AllowDegraded bool   // --allow-degraded: run hidden sets under degraded isolation
	Out           string // --out: where to write the table ("": nowhere)
	Merge         bool   // --merge: keep the rows and cells of --out that this run does not run
	MergeFrom     string // --merge-from: comma-separated tables to keep rows and cells from
	backendFlags
}

func newBaselinesCmd() *cobra.Command {
	opts := &baselinesOptions{}
	cmd := &cobra.Command{
		Use:   "baselines [--sets A,B,dev] [--rows empty,starter,...] [--workers N] [--out FILE]",
		Short: "Run the baseline ladder (empty, starter, naive_v0, learned_vetter, reference_detector, expert)",
		Long: `Run the reference pipelines of the baseline ladder (SPEC A7) on the data sets and print S, C, F and the EB share
of each row on each set; the full table, with the breakdowns by population, MES bin and category, is written
as JSON to --out (default results/baselines.json, from the repository root).

Rows: empty (prints the header only), starter (the workspace's Go starter), naive_v0 (plain BLS, SNR ≥ 8, no
vetting), learned_vetter (up to three BLS peaks kept by the embedded classifier; see 'baselines train-vetter'),
reference_detector (reads the answers and claims every planet with MES ≥ 7.1; scored in-process), expert (an
honest iterative search on cleaned data, each signal vetted with the others masked by its own classifier; see
'baselines train-vetter --pipeline expert'). Every other
row runs through the sandboxed runner exactly as a contestant's solution, one process per star; the pipeline
rows exec this program's hidden 'pipeline NAME STAR_DIR' command. Runs are recorded in the results store as
kind "baseline".

--merge keeps the rows and cells of the existing --out file that this invocation does not run (same generator,
same fingerprints on the sets both ran, same --limit), so rows, and a row's sets, can be run one at a time into
one table; --merge-from A.json,B.json does the same from other files (a cell run now, or found in an earlier
file, wins over the same cell of a later one).
--limit N runs only the first N stars of each set (a partial table, marked by "limit" in the JSON).
--json prints the table: {"generator", "fingerprints": {set: …}, "rows": [{"name", "<set>": {"S", "C", "F",
"eb_share", "credit", "false", "planets", "scored_stars", "counted_ebs", "ebs_with_rows", "by_population",
"by_mes_bin", "by_category", "ignored_stars", "ignored_rows", "stars_run", "failures", "isolation", "seconds"}}]}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runBaselines, opts),
	}
	f := cmd.Flags()
	f.StringVar(&opts.Sets, "sets", strings.Join(baselines.DefaultSets, ","), "comma-separated sets to run")
	f.StringVar(&opts.Rows, "rows", strings.Join(baselines.Rows, ","), "comma-separated rows to run")
	f.IntVar(&opts.Workers, "workers", 0, "stars run at once (default: number of CPUs)")
	f.IntVar(&opts.Limit, "limit", 0, "run only the first N stars of each set")
	f.BoolVar(&opts.AllowDegraded, "allow-degraded", false, "run hidden sets even when the sandbox cannot isolate fully")
	f.StringVar(&opts.Out, "out", filepath.Join("results", "baselines.json"), "where to write the table (empty: nowhere)")
	f.BoolVar(&opts.Merge, "merge", false, "keep the rows of --out that this run does not run (same generator and sets)")
	f.StringVar(&opts.MergeFrom, "merge-from", "", "comma-separated tables whose rows this run does not run are kept (earlier files win)")
	opts.backendFlags.add(cmd)
	cmd.AddCommand(newTrainVetterCmd(), newBaselinesFigureCmd())
	return cmd
}

// checkBaselines checks the flags before any work and returns the ladder's options.
func checkBaselines(opts *baselinesOptions) (baselines.Options, error) {
	opt := baselines.Options{Sets: splitList(opts.Sets), Rows: splitList(opts.Rows)}
	for _, r := range opt.Rows {
		if !slices.Contains(baselines.Rows, r) {
			return opt, usageErrorf("--rows: unknown row %q: use %s", r, strings.Join(baselines.Rows, ","))
		}
	}
	if opts.Workers < 0 || opts.Limit < 0 {
		return opt, usageErrorf("--workers %d, --limit %d: give counts of 0 or more (0: one worker per CPU, all stars)",
			opts.Workers, opts.Limit)
	}
	for _, s := range opt.Sets {
		if !slices.Contains(sets.Standard, s) {
			return opt, usageErrorf("--sets: unknown set %q: use %s", s, strings.Join(sets.Standard, ","))
		}
	}
	if err := checkOutFile("--out", opts.Out); err != nil {
		return opt, err
	}
	for _, path := range splitList(opts.MergeFrom) {
		if err := isRegularFileArg("--merge-from", path, "a table written by 'transitbench baselines --out'"); err != nil {
			return opt, err
		}
	}
	opt.Workers, opt.Limit, opt.AllowDegraded = opts.Workers, opts.Limit, opts.AllowDegraded
	return opt, nil
}

// runBaselines runs the ladder's rows on the sets, merges the tables opts names, writes the table to opts.Out
// and prints it (under JSON the baselines.Table), with progress on s.Err.
func runBaselines(ctx context.Context, s streams, opts *baselinesOptions) error {
	opt, err := checkBaselines(opts)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	errw := s.Err
	if opt.Backend, err = opts.backend(errw); err != nil {
		return err
	}
	opt.SetProgress = func(p sets.Progress) {}
	opt.Progress = func(row string, ev workspace.Event) {
		if ev.Done%25 == 0 || ev.Done == ev.Total {
			fmt.Fprintf(errw, "baselines: %s on %s: %d/%d stars, S %.3f\n", row, ev.Set, ev.Done, ev.Total, ev.Summary.S)
		}
	}
	start := time.Now()
	t, err := baselines.Run(ctx, opt)
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: the finished stars of each row are kept in the results store; run the same "+
			"'transitbench baselines' again to resume: %w", err)
	}
	if err != nil {
		return err
	}
	from := splitList(opts.MergeFrom)
	if opts.Merge && opts.Out != "" {
		if _, err := os.Stat(opts.Out); err == nil {
			from = append(from, opts.Out)
		}
	}
	if t, err = mergeTables(t, from); err != nil {
		return err
	}
	if opts.Out != "" {
		if err := writeJSONFile(opts.Out, t); err != nil {
			return err
		}
	}
	if s.JSON {
		return writeJSON(s.Out, t)
	}
	printLadder(s.Out, t, opt.Sets)
	fmt.Fprintf(s.Out, "%.0f s; table written to %s\n", time.Since(start).Seconds(), opts.Out)
	return nil
}

// mergeTables merges into t the rows and cells of the tables in the files from that t does not have (a cell of
// t, or of an earlier file, wins).
func mergeTables(t *baselines.Table, from []string) (*baselines.Table, error) {
	for _, path := range from {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--merge: %w", err)
		}
		var old baselines.Table
		if err := json.Unmarshal(b, &old); err != nil {
			return nil, badInputf("--merge: %s is not a baselines table: %v", path, err)
		}
		if t, err = baselines.Merge(&old, t); err != nil {
			return nil, fmt.Errorf("--merge: %s: %w", path, err)
		}
	}
	return t, nil
}

// writeJSONFile writes v as indented JSON to path, making its directory.
func writeJSONFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeJSON(f, v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// printLadder writes the ladder as a table: per row and set, S, C, F, EB share and the credit, false, planets
// and scored stars behind them.
func printLadder(w io.Writer, t *baselines.Table, order []string) {
	if len(order) == 0 {
		order = baselines.DefaultSets
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "row\tset\tS\tC\tF\tEB share\tcredit\tfalse\tplanets\tscored\tfailures")
	for _, r := range t.Rows {
		for _, s := range order {
			c, ok := r.Cells[s]
			if !ok {
				continue
			}
			fails := c.Failures.Timeout + c.Failures.Crash + c.Failures.OutputLimit
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.1f\t%.2f\t%.1f\t%d\t%d\t%d\t%d\n", r.Name, s, c.S, c.C, c.F, c.EBShare,
				c.Credit, c.False, c.Planets, c.ScoredStars, fails)
		}
	}
	tw.Flush()
	if t.Limit > 0 {
		fmt.Fprintf(w, "(first %d stars of each set only)\n", t.Limit)
	}
}
