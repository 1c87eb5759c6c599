package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
)

// putRun records a finished public dev run of the stars given as id → (credit, false, runtime ms); every
// star is scored and holds one planet, so S's denominator is the number of stars.
func putRun(t *testing.T, st *store.Store, stars map[string][3]float64) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", Label: "ws", Stars: len(stars)})
	if err != nil {
		t.Fatal(err)
	}
	for sid, v := range stars {
		sr := grader.StarResult{Scored: true, Category: data.CategoryInjected, Credit: v[0], False: int(v[1]),
			Planets: []grader.PlanetResult{{MES: 9, Credit: v[0]}}}
		m, _ := json.Marshal(sr)
		o := store.Outcome{RunID: id, StarID: sid, Status: sr.Outcome(), Credit: v[0], False: int(v[1]), RuntimeMS: int64(v[2]),
			ExitReason: "ok", Matches: m}
		if err := st.PutOutcome(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.FinishRun(ctx, id, store.StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCompareTableAndSlowestStars records two dev runs of four stars (one planet each) and checks the compare
// page's table: each changed star with its outcomes and its contribution to S, (Δcredit − Δfalse) / planets,
// as a signed fraction with three decimals, and their sum; and that the dev run's page names its slowest stars.
func TestCompareTableAndSlowestStars(t *testing.T) {
	home := emptyHome(t)
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	a := putRun(t, st, map[string][3]float64{"dev-0001": {1, 0, 100}, "dev-0002": {0, 0, 200}, "dev-0003": {0.5, 0, 300}, "dev-0004": {1, 0, 50}})
	b := putRun(t, st, map[string][3]float64{"dev-0001": {0, 1, 900}, "dev-0002": {1, 0, 800}, "dev-0003": {0.5, 0, 700}, "dev-0004": {1, 0, 600}})
	st.Close()
	s, err := Open(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	p, err := s.comparePage(ctx, a, b)
	if err != nil {
		t.Fatal(err)
	}
	// dev-0001: credit 1 → 0 and a false row: (−1 − 1) / 4 planets; dev-0002: credit 0 → 1: +1 / 4.
	want := map[string]float64{"dev-0001": -0.5, "dev-0002": 0.25}
	if len(p.Changed) != 2 || p.Same != 2 || p.Planets != 4 || math.Abs(p.DeltaS+0.25) > 1e-12 {
		t.Fatalf("compare: %d changed, %d same, %d planets, ΔS %g", len(p.Changed), p.Same, p.Planets, p.DeltaS)
	}
	for _, c := range p.Changed {
		if math.Abs(c.DeltaS-want[c.ID]) > 1e-12 {
			t.Errorf("%s: ΔS %g, want %g", c.ID, c.DeltaS, want[c.ID])
		}
	}
	var page bytes.Buffer
	if err := s.writeCompare(ctx, &page, a, b, false); err != nil {
		t.Fatal(err)
	}
	text := html.UnescapeString(page.String()) // html/template writes + as &#43;
	for _, w := range []string{"S contribution", `<td>half</td><td>false</td>`, `>-0.500</td>`, `>+0.250</td>`, "<strong>-0.250</strong>"} {
		if !strings.Contains(text, w) {
			t.Errorf("the compare page lacks %q", w)
		}
	}
	page.Reset()
	if err := s.writeRun(ctx, &page, b, false); err != nil {
		t.Fatal(err)
	}
	named := fmt.Sprintf(`<p id="slowest">Slowest stars: <a href="%s">dev-0001</a> 0.90 s, <a href="%s">dev-0002</a> 0.80 s`,
		starHref("dev-0001"), starHref("dev-0002"))
	if !strings.Contains(page.String(), named) || strings.Contains(page.String(), "no star named") {
		t.Errorf("the dev run's page does not name its slowest stars as %q", named)
	}
}
