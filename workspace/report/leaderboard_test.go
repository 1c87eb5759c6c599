package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"transitbench/data"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
)

// boardGrading is a grading the leaderboard test records: its lineage and workspace, when it ran, whether it was
// a re-grade, its S on A and on B (NaN: the run was interrupted, no score) and its dev stars' results.
type boardGrading struct {
	lineage, ws string
	grading     int
	at          time.Time
	again       bool
	sa, sb      float64
	dev         []grader.StarResult
}

// devResults are n dev stars' results: hosts found (credit 1) for the first found stars, missed hosts up to
// hosts, and untouched stars with one false row each for the rest up to n.
func devResults(n, hosts, found, falseRows int) []grader.StarResult {
	var out []grader.StarResult
	for i := range n {
		r := grader.StarResult{StarID: fmt.Sprintf("dev-%04d", i), Scored: true, Category: data.CategoryUntouched}
		switch {
		case i < found:
			r.Category, r.Credit, r.Planets = data.CategoryInjected, 1, []grader.PlanetResult{{MES: 12, Credit: 1}}
		case i < hosts:
			r.Category, r.Planets = data.CategoryInjected, []grader.PlanetResult{{MES: 8}}
		case i < hosts+falseRows:
			r.False = 1
		}
		out = append(out, r)
	}
	return out
}

// recordGrading writes g into st as a grading writes it: a hidden run on A and on B with their aggregates
// (sealed per-star states while running, as the runner keeps them) and a run on the dev stars with their
// outcomes.
func recordGrading(t *testing.T, st *store.Store, g boardGrading) {
	t.Helper()
	ctx := context.Background()
	var flags []string
	if g.again {
		flags = []string{store.FlagAgain}
	}
	for i, set := range []string{"A", "B", "dev"} {
		r := store.Run{Kind: store.KindGrade, Set: set, Label: g.ws, Workspace: g.ws, Lineage: g.lineage, Grading: g.grading,
			Flags: flags, Started: g.at.Add(time.Duration(i) * time.Minute), Hidden: set != "dev", Stars: 8,
			SolutionHash: fmt.Sprintf("%064x", g.grading)}
		id, err := st.CreateRun(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		rep := &workspace.Report{RunID: id, Set: set, Hidden: r.Hidden, Grading: g.grading, Complete: true}
		switch set {
		case "A", "B":
			s := g.sa
			if set == "B" {
				s = g.sb
			}
			if err := st.PutHiddenOutcome(ctx, id, set+"-0007", []byte(`{"scored":true,"category":"injected","credit":1,"exit":"ok"}`)); err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(s) {
				if err := st.FinishRun(ctx, id, store.StatusCancelled, nil); err != nil {
					t.Fatal(err)
				}
				continue
			}
			rep.StarsRun, rep.S = 8, s
		case "dev":
			for _, sr := range g.dev {
				m, _ := json.Marshal(sr)
				o := store.Outcome{RunID: id, StarID: sr.StarID, Status: sr.Outcome(), Credit: sr.Credit, False: sr.False, Matches: m}
				if err := st.PutOutcome(ctx, o); err != nil {
					t.Fatal(err)
				}
			}
			rep.StarsRun, rep.Summary = len(g.dev), grader.Summarize(g.dev)
		}
		b, _ := json.Marshal(rep)
		if err := st.FinishRun(ctx, id, store.StatusDone, b); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLeaderboardOfSeveralGradings builds the site of a results store holding five gradings of two workspaces
// and a contestant (a re-grade among them, one interrupted) and reads its leaderboard: the gradings ranked by S on
// A with ties sharing a place, each under its label with its ordinal, first gradings and re-grades marked, S on
// dev with the standard error of its per-star contributions, and the chart of S over time; no hidden star.
func TestLeaderboardOfSeveralGradings(t *testing.T) {
	home := t.TempDir()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	gradings := []boardGrading{
		{"ws:alpha", "/work/alpha", 1, day, false, 0.120, 0.100, devResults(40, 20, 8, 6)},
		{"ws:alpha", "/work/alpha", 2, day.Add(48 * time.Hour), true, 0.310, 0.290, devResults(40, 20, 12, 4)},
		{"ws:beta", "/work/beta", 1, day.Add(24 * time.Hour), false, 0.310, 0.350, devResults(40, 20, 13, 5)},
		{"contestant:carol", "/work/alpha", 1, day.Add(72 * time.Hour), false, 0.455, 0.401, devResults(40, 20, 15, 2)},
		{"ws:beta", "/work/beta", 2, day.Add(96 * time.Hour), false, math.NaN(), math.NaN(), devResults(40, 20, 10, 3)},
	}
	for _, g := range gradings {
		recordGrading(t, st, g)
	}
	st.Close()

	site, err := Open(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	b, err := site.board(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type shown struct {
		rank        int
		name, tag   string
		first, redo bool
	}
	var got []shown
	for _, r := range b.Rows {
		if r.Kind == KindGrading {
			got = append(got, shown{r.Rank, r.Name, r.Detail, r.First, r.Again})
		}
	}
	// carol 0.455 first; alpha #2 and beta #1 tie at 0.310 and share place 2; alpha #1 0.120 is fourth; beta #2
	// has no score on A and no place, after the ranked ones.
	want := []shown{
		{1, "carol", "grading #1", true, false},
		{2, "alpha", "grading #2", false, true},
		{2, "beta", "grading #1", true, false},
		{4, "alpha", "grading #1", true, false},
		{0, "beta", "grading #2", false, false},
	}
	if len(got) != len(want) {
		t.Fatalf("grading rows %+v, want %+v", got, want)
	}
	for i := range want {
		// the tied pair may come in either order
		if got[i] != want[i] && !(i == 1 || i == 2) {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if (got[1] != want[1] || got[2] != want[2]) && (got[1] != want[2] || got[2] != want[1]) {
		t.Errorf("rows 1–2: %+v, %+v; want the tied %+v and %+v", got[1], got[2], want[1], want[2])
	}
	for _, r := range b.Rows {
		if r.Kind != KindGrading {
			continue
		}
		var g boardGrading
		for _, c := range gradings {
			if gradingLabel(store.Run{Lineage: c.lineage, Label: c.ws}) == r.Name && "grading #"+fmt.Sprint(c.grading) == r.Detail {
				g = c
			}
		}
		se, _ := grader.StandardErrorS(g.dev)
		if !r.Dev.HasSE || math.Abs(r.Dev.SE-se) > 1e-12 || math.Abs(r.Dev.S-grader.Summarize(g.dev).S) > 1e-12 || se <= 0 {
			t.Errorf("%s %s: dev S %.4f ± %.4f (%v), want %.4f ± %.4f", r.Name, r.Detail, r.Dev.S, r.Dev.SE, r.Dev.HasSE,
				grader.Summarize(g.dev).S, se)
		}
		if !r.At.Equal(g.at) {
			t.Errorf("%s %s: dated %v, want its first run's start %v", r.Name, r.Detail, r.At, g.at)
		}
	}
	hist := historyPoints(b.Rows)
	if len(hist) != 5 || !hist[0].Time.Equal(day) || !hist[4].Time.Equal(day.Add(96*time.Hour)) || !math.IsNaN(hist[4].SA) ||
		!hist[2].Regrade || hist[2].SA != 0.310 {
		t.Errorf("history points %+v: want the five gradings oldest first, alpha #2 a re-grade at 0.310, beta #2 without S on A", hist)
	}

	out := filepath.Join(t.TempDir(), "site")
	if _, err := site.Build(context.Background(), out, nil); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(index)
	for _, s := range []string{`id="score-history"`, `<th scope="row">carol</th>`, `re-grade</span>`, `class="ebar"`, "S on dev ± SE",
		fmt.Sprintf("± %.3f", b.Rows[0].Dev.SE)} {
		if !strings.Contains(page, s) {
			t.Errorf("the leaderboard page lacks %q", s)
		}
	}
	if n := strings.Count(page, `<span class="tag again">re-grade</span>`); n < 1 {
		t.Errorf("no re-grade marked")
	}
	if m := regexp.MustCompile(`<svg[^>]*>`).FindAllString(page[strings.Index(page, `id="score-history"`):], 1); len(m) == 0 {
		t.Error("the chart of S over time has no SVG")
	}
	hidden := regexp.MustCompile(`\b[AB]-\d{4}\b`)
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(out, e.Name()))
		if m := hidden.FindString(string(b)); m != "" {
			t.Errorf("%s names the hidden star %s", e.Name(), m)
		}
	}
}

// TestRankGradings checks the ranking rule on its own: by S on A as shown (three decimals), ties sharing a
// place, withheld scores and reference rows unranked.
func TestRankGradings(t *testing.T) {
	g := func(s float64) BoardRow { return BoardRow{Kind: KindGrading, A: Cell{Has: true, S: s}} }
	rows := []BoardRow{g(0.1), g(0.5), {Kind: KindGrading, A: Cell{Has: true, Withheld: true}}, g(0.30004), g(0.3),
		{Kind: KindLadder, A: Cell{Has: true, S: 0.9}}, g(-0.2)}
	rankGradings(rows)
	want := []int{4, 1, 0, 2, 2, 0, 5}
	for i, r := range rows {
		if r.Rank != want[i] {
			t.Errorf("row %d (S %.5f): rank %d, want %d", i, r.A.S, r.Rank, want[i])
		}
	}
}
