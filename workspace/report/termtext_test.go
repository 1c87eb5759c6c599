package report

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/internal/testutil"
	"transitbench/workspace"
)

// TestHostileTextNeverReachesPages serves the leaderboard, a run page and an error page of a data directory
// whose run label, solution hash, star exit reason and row note are hostile text: no page holds a raw control
// character (every page, written or served, goes through render), and the text shows escaped.
func TestHostileTextNeverReachesPages(t *testing.T) {
	home := t.TempDir()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	h := testutil.HostileText
	id, err := st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", Label: h, SolutionHash: h, Stars: 1, Isolation: h})
	if err != nil {
		t.Fatal(err)
	}
	sr := grader.StarResult{StarID: "dev-0001", Rows: []grader.RowResult{{Rank: 1, Status: "false", Note: h}}}
	matches, _ := json.Marshal(sr)
	if err := st.PutOutcome(ctx, store.Outcome{RunID: id, StarID: "dev-0001", Status: "false", ExitReason: h,
		StderrTail: h, Isolation: h, Matches: matches}); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, store.StatusDone, nil); err != nil {
		t.Fatal(err)
	}
	site, err := Open(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	for _, name := range []string{"", runHref(id)} { // the leaderboard lists gradings: it need not show a dev run
		resp, err := http.Get(srv.URL + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /%s: %d\n%s", name, resp.StatusCode, b)
		}
		if termtext.HasControl(string(b)) {
			t.Errorf("GET /%s holds a raw control character", name)
		}
		if name != "" && !strings.Contains(string(b), `evil\x1b]52`) {
			t.Errorf("GET /%s does not show the hostile text escaped:\n%s", name, b)
		}
	}
	var b strings.Builder
	if err := render(&b, "error", h, errorPage{Title: h, Message: h}, true, 0); err != nil {
		t.Fatal(err)
	}
	if termtext.HasControl(b.String()) || !strings.Contains(b.String(), `evil\x1b]52`) {
		t.Errorf("the error page: %q", b.String())
	}
}
