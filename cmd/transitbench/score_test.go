package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/data/sets"
	"transitbench/grader"
)

// scoreTestSet builds a small simulated set in a fresh data directory and returns it.
func scoreTestSet(t *testing.T) *sets.Set {
	t.Helper()
	home := newHome(t)
	s, err := sets.Open(home, "scoretest", sets.Options{
		Composition: &sets.Composition{Injected: 4, Untouched: 3, EB: 3, Confirmed: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runScore(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return execute(append([]string{"score"}, args...)...)
}

// TestScoreTruthRows scores, on simulated stars, rows at each star's true ephemeris: every scored planet must
// get full credit (its midtimes coincide with the truth's, so f_true = f_pred = 1), every row on an untouched star
// or a counted EB is false, and rows on confirmed hosts and uncounted EBs are ignored.
func TestScoreTruthRows(t *testing.T) {
	s := scoreTestSet(t)
	var csv strings.Builder
	csv.WriteString("star_id,period_days,t0_days,score\n")
	wantFalse, wantIgnored, planets := 0, 0, 0
	for _, id := range s.IDs {
		a := s.Answers[id]
		switch {
		case a.Planet != nil:
			fmt.Fprintf(&csv, "%s,%.9g,%.9g,10\n", id, a.Planet.PeriodDays, a.Planet.T0Days)
			planets++
		case a.EB != nil:
			fmt.Fprintf(&csv, "%s,%.9g,%.9g,10\n", id, a.EB.PeriodDays, a.EB.T0Days)
		case len(a.Confirmed) > 0:
			fmt.Fprintf(&csv, "%s,%.9g,%.9g,10\n", id, a.Confirmed[0].PeriodDays, a.Confirmed[0].T0Days)
		default:
			fmt.Fprintf(&csv, "%s,3.3,170.5,1\n", id)
		}
		switch {
		case !a.Scored:
			wantIgnored++
		case a.Category != data.CategoryInjected:
			wantFalse++
		}
	}
	if planets == 0 || wantFalse == 0 || wantIgnored == 0 {
		t.Fatalf("test set lacks a kind of star: %d planets, %d false rows, %d ignored rows", planets, wantFalse, wantIgnored)
	}
	csv.WriteString("not a row\n")
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(path, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	out, _, err := runScore(t, "--rows", path, "--set", "scoretest", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep scoreReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not a report: %v\n%s", err, out)
	}
	sum := rep.Summary
	if sum.Planets != planets || sum.Credit != float64(planets) || sum.False != wantFalse ||
		sum.IgnoredRows != wantIgnored || rep.Rows != len(s.IDs) || len(rep.Stars) != len(s.IDs) {
		t.Errorf("planets %d credit %g false %d ignored rows %d rows %d stars %d; want %d, %d, %d, %d, %d, %d",
			sum.Planets, sum.Credit, sum.False, sum.IgnoredRows, rep.Rows, len(rep.Stars),
			planets, planets, wantFalse, wantIgnored, len(s.IDs), len(s.IDs))
	}
	for _, st := range rep.Stars {
		for _, r := range st.Rows {
			if st.Category != data.CategoryInjected || !st.Scored {
				continue
			}
			if r.Status != grader.StatusFull || r.FTrue != 1 || r.FPred != 1 {
				t.Errorf("%s: truth row %+v, want full with f_true = f_pred = 1", st.StarID, r)
			}
			// The simulator counts a transit with data when half its window has cadences (engine/noise), the
			// matcher when one cadence is in it (SPEC A5): the matcher never sees fewer.
			if n := s.Answers[st.StarID].Planet.NTransits; r.TrueObserved < n {
				t.Errorf("%s: %d observed midtimes, fewer than the answer's %d transits with data",
					st.StarID, r.TrueObserved, n)
			}
		}
	}
	if len(rep.Dropped) != 1 || rep.Dropped[0].Line != len(s.IDs)+2 {
		t.Errorf("dropped = %+v, want the last line", rep.Dropped)
	}

	// The human table carries the same numbers.
	out, errOut, err := runScore(t, "--rows", path, "--set", "scoretest")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"set scoretest: 11 stars", "random", "false-alarm", "4-7.1", "untouched"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "not a row") {
		t.Errorf("dropped line not reported on stderr: %q", errOut)
	}
}

func TestScoreErrors(t *testing.T) {
	s := scoreTestSet(t)
	path := filepath.Join(t.TempDir(), "rows.csv")
	rows := s.IDs[0] + ",10,170,1\nkplr-0001,10,170,1\nzz-9,3,171,1\n"
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string // a substring of the error
		code int
	}{
		{[]string{"--rows", path, "--set", "scoretest"}, "2 star ids that set scoretest does not have: kplr-0001, zz-9", 2},
		{[]string{"--rows", path}, "needs --rows FILE and --set NAME", 2},
		{[]string{"--rows", path, "--set", "A"}, "set A is hidden", 2},
		{[]string{"--rows", filepath.Join(t.TempDir(), "none.csv"), "--set", "scoretest"}, "does not exist", 2},
	}
	for _, c := range cases {
		_, _, err := runScore(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("score %q: error %v, want one containing %q", c.args, err, c.want)
		}
		if got := run(append([]string{"score"}, c.args...)); got != c.code {
			t.Errorf("score %q: exit %d, want %d", c.args, got, c.code)
		}
	}
}

// TestScoreRunFunction scores rows at the true ephemerides of a small set's planets through runScoreRows, the
// rows read from the streams' input.
func TestScoreRunFunction(t *testing.T) {
	set := scoreTestSet(t)
	var rows strings.Builder
	planets := 0
	for _, id := range set.IDs {
		if a := set.Answers[id]; a.Scored && a.Planet != nil {
			fmt.Fprintf(&rows, "%s,%.8f,%.8f,1\n", id, a.Planet.PeriodDays, a.Planet.T0Days)
			planets++
		}
	}
	var out, errb bytes.Buffer
	s := streams{In: strings.NewReader(rows.String()), Out: &out, Err: &errb, JSON: true}
	if err := runScoreRows(context.Background(), s, &scoreOptions{Rows: "-", Set: set.Name}); err != nil {
		t.Fatal(err)
	}
	var rep scoreReport
	decodeJSON(t, &out, &rep)
	if planets == 0 || rep.Rows != planets || rep.Summary.Credit != float64(planets) || rep.Summary.False != 0 ||
		len(rep.Stars) != len(set.IDs) {
		t.Fatalf("score of %d true rows: %d rows, credit %.1f, false %d, %d stars", planets, rep.Rows,
			rep.Summary.Credit, rep.Summary.False, len(rep.Stars))
	}
	s.In = strings.NewReader("nosuch-0000,1,2,3\n")
	if err := runScoreRows(context.Background(), s, &scoreOptions{Rows: "-", Set: set.Name}); !isCode(err, codeBadInput) {
		t.Fatalf("rows for an unknown star: %v, want code bad_input", err)
	}
}
