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
	"transitbench/engine/gbt"
	"transitbench/workspace"
	"transitbench/workspace/baselines"
)

func init() { register(newBaselinesCmd) }

func newBaselinesCmd() *cobra.Command {
	var (
		setList, rowList, out string
		mergeFrom             string
		workers, limit        int
		allowDegraded, merge  bool
	)
	cmd := &cobra.Command{
		Use:   "baselines [--sets A,B,dev] [--rows empty,starter,...] [--workers N] [--out FILE]",
		Short: "Run the baseline ladder (empty, starter, naive_v0, learned_vetter, reference_detector)",
		Long: `Run the reference pipelines of the baseline ladder (SPEC A7) on the data sets and print S, C, F and the EB share
of each row on each set; the full table, with the breakdowns by population, MES bin and category, is written
as JSON to --out (default results/baselines.json, from the repository root).

Rows: empty (prints the header only), starter (the workspace's Go starter), naive_v0 (plain BLS, SNR ≥ 8, no
vetting), learned_vetter (up to three BLS peaks kept by the embedded classifier; see 'baselines train-vetter'),
reference_detector (reads the answers and claims every planet with MES ≥ 7.1; scored in-process). Every other
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
		RunE: func(cmd *cobra.Command, args []string) error {
			opt := baselines.Options{Sets: splitList(setList), Rows: splitList(rowList)}
			for _, r := range opt.Rows {
				if !slices.Contains(baselines.Rows, r) {
					return usageErrorf("--rows: unknown row %q: use %s", r, strings.Join(baselines.Rows, ","))
				}
			}
			if workers < 0 || limit < 0 {
				return usageErrorf("--workers %d, --limit %d: give counts of 0 or more (0: one worker per CPU, all stars)",
					workers, limit)
			}
			for _, s := range opt.Sets {
				if !slices.Contains(sets.Standard, s) {
					return usageErrorf("--sets: unknown set %q: use %s", s, strings.Join(sets.Standard, ","))
				}
			}
			if err := checkOutFile("--out", out); err != nil {
				return err
			}
			for _, path := range splitList(mergeFrom) {
				if err := isRegularFileArg("--merge-from", path, "a table written by 'transitbench baselines --out'"); err != nil {
					return err
				}
			}
			opt.Workers, opt.Limit, opt.AllowDegraded = workers, limit, allowDegraded
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			errw := cmd.ErrOrStderr()
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
			from := splitList(mergeFrom)
			if merge && out != "" {
				if _, err := os.Stat(out); err == nil {
					from = append(from, out)
				}
			}
			for _, path := range from {
				b, err := os.ReadFile(path)
				if err != nil {
					return fmt.Errorf("--merge: %w", err)
				}
				var old baselines.Table
				if err := json.Unmarshal(b, &old); err != nil {
					return badInputf("--merge: %s is not a baselines table: %v", path, err)
				}
				if t, err = baselines.Merge(&old, t); err != nil {
					return fmt.Errorf("--merge: %s: %w", path, err)
				}
			}
			if out != "" {
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					return err
				}
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				if err := writeJSON(f, t); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), t)
			}
			printLadder(cmd.OutOrStdout(), t, opt.Sets)
			fmt.Fprintf(cmd.OutOrStdout(), "%.0f s; table written to %s\n", time.Since(start).Seconds(), out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&setList, "sets", strings.Join(baselines.DefaultSets, ","), "comma-separated sets to run")
	f.StringVar(&rowList, "rows", strings.Join(baselines.Rows, ","), "comma-separated rows to run")
	f.IntVar(&workers, "workers", 0, "stars run at once (default: number of CPUs)")
	f.IntVar(&limit, "limit", 0, "run only the first N stars of each set")
	f.BoolVar(&allowDegraded, "allow-degraded", false, "run hidden sets even when the sandbox cannot isolate fully")
	f.StringVar(&out, "out", filepath.Join("results", "baselines.json"), "where to write the table (empty: nowhere)")
	f.BoolVar(&merge, "merge", false, "keep the rows of --out that this run does not run (same generator and sets)")
	f.StringVar(&mergeFrom, "merge-from", "", "comma-separated tables whose rows this run does not run are kept (earlier files win)")
	cmd.AddCommand(newTrainVetterCmd())
	return cmd
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

func newTrainVetterCmd() *cobra.Command {
	var (
		stars, workers, trees, depth int
		seed                         uint64
		out, examples                string
	)
	cmd := &cobra.Command{
		Use:   "train-vetter",
		Short: "Train the learned vetter's classifier on the train pool (seeded, reproducible)",
		Long: `Train the learned_vetter pipeline's gradient-boosted classifier on the train pool only and write it as JSON.

For the first --stars stars of the train pool (built on first use), the pipeline's BLS search gives up to three
peaks per scored star; each is labelled planet when a row at its period and mid-time would get full credit under
the grader's rules, and described by the vetting features of engine/pipeline. A model of --trees trees of depth
--depth (logistic loss, shrinkage 0.1, 80 % row subsampling seeded by --seed) is trained on them. The same pool,
stars, seed and parameters give the same file. Write it to engine/pipeline/vetter_model.json (the default, from
the repository root) and rebuild to embed it.

--examples FILE also writes the labelled peaks as CSV (star_id, rank, planet 0/1, then the features, exact), the
table to study the vetter or try other classifiers on.

--json prints the training report: pool, stars used, examples, positives, seed, training accuracy, seconds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if stars < 1 || workers < 1 {
				return usageErrorf("--stars %d, --workers %d: both must be positive", stars, workers)
			}
			if err := checkOutFile("--out", out); err != nil {
				return err
			}
			if err := checkOutFile("--examples", examples); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			opt := baselines.TrainOptions{Stars: stars, Seed: seed, Workers: workers,
				Params: gbt.Params{Trees: trees, Depth: depth}}
			if examples != "" {
				opt.Examples = func(ex []baselines.Example) error { return writeExamplesFile(examples, ex) }
			}
			if !wantJSON(cmd) {
				opt.Progress = func(done, total int) {
					if done%10 == 0 || done == total {
						fmt.Fprintf(cmd.ErrOrStderr(), "train-vetter: %d/%d stars\n", done, total)
					}
				}
			}
			m, rep, err := baselines.TrainVetter(ctx, opt)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			if err := writeJSON(f, m); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "trained on %d stars of %s (%d scored): %d peaks, %d planets; training accuracy %.3f; %s written (%.0f s)\n",
				rep.StarsUsed, rep.Pool, rep.ScoredStars, rep.Examples, rep.Positives, rep.TrainAccuracy, out, rep.Seconds)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&stars, "stars", baselines.DefaultTrainStars, "train-pool stars to use (the first, in id order)")
	f.Uint64Var(&seed, "seed", 1, "seed of the classifier's row subsampling")
	f.IntVar(&workers, "workers", 2, "stars processed at once")
	f.IntVar(&trees, "trees", gbt.DefaultTrees, "boosting rounds")
	f.IntVar(&depth, "depth", gbt.DefaultDepth, "largest tree depth")
	f.StringVar(&out, "out", filepath.Join("engine", "pipeline", "vetter_model.json"), "where to write the model")
	f.StringVar(&examples, "examples", "", "also write the labelled peaks to this CSV file")
	return cmd
}

// writeExamplesFile writes the labelled peaks to path as CSV.
func writeExamplesFile(path string, ex []baselines.Example) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := baselines.WriteExamplesCSV(f, ex); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
