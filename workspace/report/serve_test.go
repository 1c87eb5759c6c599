package report

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
)

// TestServedRunPageFollowsARunningRun serves the page of a dev run while its stars finish: it refreshes itself
// and counts the finished stars, until the run is done. Hidden stars, a comparison with a hidden run and unknown
// pages are refused.
func TestServedRunPageFollowsARunningRun(t *testing.T) {
	home := t.TempDir()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	id, err := st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", Label: "/tmp/ws", Stars: 3})
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := st.CreateRun(ctx, store.Run{Kind: store.KindGrade, Set: "A", Label: "/tmp/ws", Stars: 3, Grading: 1, Hidden: true})
	if err != nil {
		t.Fatal(err)
	}
	site, err := Open(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	page := func(name string, want int) string {
		t.Helper()
		resp, err := http.Get(srv.URL + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Errorf("GET /%s: status %d, want %d", name, resp.StatusCode, want)
		}
		return string(b)
	}
	for i, star := range []string{"dev-0001", "dev-0002"} {
		sr := grader.StarResult{StarID: star, Scored: true, Category: "injected", Credit: 1,
			Planets: []grader.PlanetResult{{PeriodDays: 3, MES: 12, Credit: 1, Status: "full", ClaimedBy: 1}},
			Rows:    []grader.RowResult{{Row: grader.Row{PeriodDays: 3, T0Days: 170, Score: 9}, Rank: 1, Status: "full", Credit: 1}}}
		matches, _ := json.Marshal(sr)
		if err := st.PutOutcome(ctx, store.Outcome{RunID: id, StarID: star, Status: sr.Outcome(), Credit: 1, RuntimeMS: 1500,
			ExitReason: "ok", Matches: matches}); err != nil {
			t.Fatal(err)
		}
		body := page(runHref(id), http.StatusOK)
		want := []string{`http-equiv="refresh"`, "finished", star, "stars finished"}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("after %d stars the running run's page lacks %q", i+1, w)
			}
		}
		if !strings.Contains(body, []string{"1 of 3 stars finished", "2 of 3 stars finished"}[i]) {
			t.Errorf("after %d stars the page does not count them", i+1)
		}
	}
	if err := st.FinishRun(ctx, id, store.StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	if body := page(runHref(id), http.StatusOK); strings.Contains(body, `http-equiv="refresh"`) {
		t.Error("a finished run's page still refreshes itself")
	}
	if body := page("star-A-0001.html", http.StatusForbidden); !strings.Contains(body, "Hidden stars are not shown") {
		t.Errorf("a hidden star's page: %.300s", body)
	}
	page(compareHref(hidden, id), http.StatusForbidden)
	page("compare?a=x", http.StatusNotFound)
	if body := page("compare?a=1&b=1", http.StatusOK); !strings.Contains(body, "0 stars changed") {
		t.Errorf("the compare form's redirect gave %.300s", body)
	}
	page("run-999.html", http.StatusNotFound)
	page("nothing.html", http.StatusNotFound)
	page("secrets", http.StatusNotFound)
	if _, err := Open(Options{Home: filepath.Join(home, "none")}); err == nil {
		t.Error("a data directory without a results database opened")
	}
}
