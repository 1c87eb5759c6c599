package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
)

func init() { register(newScoreCmd) }

// scoreReport is the JSON output of 'transitbench score': the set, the rows file, how many rows it held and for
// how many stars, the lines dropped while reading it, the summary (grader.Summary) and every star's result
// (grader.StarResult) in the set's order.
type scoreReport struct {
	Set           string               `json:"set"`
	RowsFile      string               `json:"rows_file"`
	Rows          int                  `json:"rows"`
	StarsWithRows int                  `json:"stars_with_rows"`
	Dropped       []grader.DroppedLine `json:"dropped"`
	Summary       grader.Summary       `json:"summary"`
	Stars         []grader.StarResult  `json:"stars"`
}

// scoreOptions are the inputs of 'transitbench score'.
type scoreOptions struct {
	Rows string // --rows: the rows file ("-": standard input)
	Set  string // --set: the public set to score against
}

func newScoreCmd() *cobra.Command {
	opts := &scoreOptions{}
	cmd := &cobra.Command{
		Use:   "score --rows ROWS.csv --set NAME",
		Short: "Score a file of candidate rows against a public data set's answers",
		Long: `Score a file of candidate rows against the answers of a data set (SPEC A5).

ROWS.csv holds one candidate per line as star_id,period_days,t0_days,score (a header line with exactly
those names is optional; blank lines and '#' lines are ignored; '-' reads standard input). Lines that do not
parse are dropped and listed. Stars without rows count with no rows; only the three highest-scored rows of
a star count. Rows for star ids the set does not have are an error.

The hidden sets (A, B) cannot be scored here: their answers are used only by 'transitbench grade'.

--json prints {"set", "rows_file", "rows", "stars_with_rows", "dropped": [{"line", "text", "reason"}],
"summary": {"S", "C", "F", "eb_share", "credit", "false", "planets", "scored_stars", "counted_ebs",
"ebs_with_rows", "by_population", "by_mes_bin", "by_category", "ignored_stars", "ignored_rows"},
"stars": [per-star results with each counted row's status, f_true and f_pred]}.`,
		Args: cobra.NoArgs,
		RunE: runWithOpts(runScoreRows, opts),
	}
	cmd.Flags().StringVar(&opts.Rows, "rows", "", "file of star_id,period_days,t0_days,score rows ('-' for standard input)")
	cmd.Flags().StringVar(&opts.Set, "set", "", "public data set to score against (dev, train or a custom set)")
	return cmd
}

// runScoreRows scores the rows file against the set's answers and prints the summary tables (under JSON the
// scoreReport); dropped lines and set-build progress go to s.Err, rows "-" are read from s.In.
func runScoreRows(_ context.Context, s streams, opts *scoreOptions) error {
	rowsPath, setName := opts.Rows, opts.Set
	if rowsPath == "" || setName == "" {
		return usageErrorf("score needs --rows FILE and --set NAME (e.g. --set dev)")
	}
	if sets.IsHidden(setName) {
		return hiddenf("set %s is hidden: its answers are used only by 'transitbench grade'; "+
			"score rows against dev or another public set", setName)
	}
	home, err := data.Home()
	if err != nil {
		return err
	}
	if err := checkSetName(home, "--set", setName); err != nil {
		return err
	}
	rows, dropped, err := scoreReadRows(s.In, rowsPath)
	if err != nil {
		return err
	}
	set, err := sets.Open(home, setName, sets.Options{Progress: scoreProgress(s.Err)})
	if err != nil {
		return fmt.Errorf("cannot open set %s: %w", setName, err)
	}
	if unknown := scoreUnknownIDs(rows, set.Answers); len(unknown) > 0 {
		return badInputf("%s holds rows for %d star ids that set %s does not have: %s; check --set "+
			"(set %s has ids like %s)", rowsPath, len(unknown), setName, scoreList(unknown, 10), setName,
			scoreList(set.IDs, 2))
	}
	rep := scoreReport{Set: setName, RowsFile: rowsPath, StarsWithRows: len(rows), Dropped: dropped}
	for _, rs := range rows {
		rep.Rows += len(rs)
	}
	if rep.Dropped == nil {
		rep.Dropped = []grader.DroppedLine{}
	}
	for _, id := range set.IDs {
		times, err := set.ValidTimes(id)
		if err != nil {
			return fmt.Errorf("cannot read star %s of set %s: %w", id, setName, err)
		}
		rep.Stars = append(rep.Stars, grader.MatchStar(set.Answers[id], times, rows[id]))
	}
	rep.Summary = grader.Summarize(rep.Stars)
	if s.JSON {
		return writeJSON(s.Out, rep)
	}
	scorePrintDropped(s.Err, rowsPath, dropped)
	return scorePrint(s.Out, &rep, len(set.IDs))
}

// scoreReadRows reads the rows file, or standard input for "-".
func scoreReadRows(stdin io.Reader, path string) (map[string][]grader.Row, []grader.DroppedLine, error) {
	if path == "-" {
		rows, dropped := grader.ParseStarRows(stdin)
		return rows, dropped, nil
	}
	if err := isRegularFileArg("--rows", path, "a CSV file of star_id,period_days,t0_days,score lines"); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read rows file: %w", err)
	}
	defer f.Close()
	rows, dropped := grader.ParseStarRows(f)
	return rows, dropped, nil
}

// scoreUnknownIDs returns the star ids of rows that answers lacks, sorted.
func scoreUnknownIDs(rows map[string][]grader.Row, answers map[string]data.Answer) []string {
	var unknown []string
	for id := range rows {
		if _, ok := answers[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	slices.Sort(unknown)
	return unknown
}

// scoreList joins the first n ids, noting how many more there are.
func scoreList(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

// scoreProgress prints a line when a set build starts, at every tenth of it and when it ends.
func scoreProgress(w io.Writer) func(sets.Progress) {
	last := -1
	return func(p sets.Progress) {
		if p.Total == 0 {
			return
		}
		tenth := 10 * p.Done / p.Total
		if tenth == last && p.Done != p.Total {
			return
		}
		last = tenth
		fmt.Fprintf(w, "building set %s: %d/%d stars\n", p.Set, p.Done, p.Total)
	}
}

// scorePrintDropped lists dropped lines on w, at most 10.
func scorePrintDropped(w io.Writer, path string, dropped []grader.DroppedLine) {
	for i, d := range dropped {
		if i == 10 {
			fmt.Fprintf(w, "%s: %d more lines dropped (see --json)\n", path, len(dropped)-10)
			return
		}
		if d.Text == "" {
			fmt.Fprintf(w, "%s:%d: %s\n", path, d.Line, d.Reason)
			continue
		}
		fmt.Fprintf(w, "%s:%d: dropped %q: %s\n", path, d.Line, d.Text, d.Reason)
	}
}

// namedRows prints header, then one tab-separated row per value: its name and the cells cells formats.
func namedRows[T any](w io.Writer, header string, names []string, values []T, cells func(T) string) {
	fmt.Fprintln(w, header)
	for i, v := range values {
		fmt.Fprintf(w, "%s\t%s\t\n", names[i], cells(v))
	}
}

// scorePrint prints the summary tables.
func scorePrint(w io.Writer, rep *scoreReport, stars int) error {
	s := &rep.Summary
	fmt.Fprintf(w, "set %s: %d stars, %d scored, %d planets; %d rows for %d stars, %d lines dropped\n\n",
		rep.Set, stars, s.ScoredStars, s.Planets, rep.Rows, rep.StarsWithRows, len(rep.Dropped))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tS\tC\tF\tEB share\tcredit\tfalse\tplanets\tstars\t")
	line := func(name string, t grader.Totals) {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.1f\t%.3f\t%.1f\t%d\t%d\t%d\t\n", name, t.S, t.C, t.F,
			t.EBShare, t.Credit, t.False, t.Planets, t.ScoredStars)
	}
	line("all", s.Totals)
	line("random", s.ByPopulation.Random)
	line("false-alarm", s.ByPopulation.FalseAlarm)
	fmt.Fprintln(tw) // a line without cells ends the column block
	namedRows(tw, "MES\tcredit\tplanets\tC\t", grader.MESBinNames[:],
		[]grader.MESBin{s.ByMESBin.Low, s.ByMESBin.Mid, s.ByMESBin.High, s.ByMESBin.Top},
		func(b grader.MESBin) string { return fmt.Sprintf("%.1f\t%d\t%.3f", b.Credit, b.Planets, b.C) })
	fmt.Fprintln(tw)
	namedRows(tw, "category\tstars\trows\tfalse\t", []string{"injected", "untouched", "eb", "labelled"},
		[]grader.CategoryCounts{s.ByCategory.Injected, s.ByCategory.Untouched, s.ByCategory.EB, s.ByCategory.Labelled},
		func(n grader.CategoryCounts) string { return fmt.Sprintf("%d\t%d\t%d", n.Stars, n.Rows, n.False) })
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.IgnoredStars > 0 {
		fmt.Fprintf(w, "\nnot scored: %d stars (confirmed hosts, uncounted EBs) with %d counted rows\n",
			s.IgnoredStars, s.IgnoredRows)
	}
	return nil
}
