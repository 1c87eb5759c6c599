package report

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"transitbench/grader/store"
	"transitbench/workspace"
)

// TestSiteOfOneWorkspace serves the site of one workspace: its pages name the workspace and its solution kind,
// the leaderboard lists its run and not another workspace's, whose page is not found.
func TestSiteOfOneWorkspace(t *testing.T) {
	home := t.TempDir()
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	var ids []int64
	for _, ws := range []string{"/ws/one", "/ws/two"} {
		id, err := st.CreateRun(ctx, store.Run{Kind: store.KindDev, Set: "dev", Label: ws, Workspace: ws, SolutionKind: "go", Stars: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, id, store.StatusDone, []byte(`{"S": 0.5}`)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	const scope = "workspace /ws/one (go solution)"
	site, err := Open(Options{Home: home, Workspace: "/ws/one", Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	get := func(name string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, index := get("index.html")
	if code != http.StatusOK || !strings.Contains(index, scope) || !strings.Contains(index, fmt.Sprintf("run-%d.html", ids[0])) ||
		strings.Contains(index, fmt.Sprintf("run-%d.html", ids[1])) {
		t.Errorf("index: status %d\n%s", code, index)
	}
	if code, page := get(fmt.Sprintf("run-%d.html", ids[0])); code != http.StatusOK || !strings.Contains(page, scope) {
		t.Errorf("the workspace's run page: status %d", code)
	}
	if code, _ := get(fmt.Sprintf("run-%d.html", ids[1])); code != http.StatusNotFound {
		t.Errorf("another workspace's run page: status %d, want 404", code)
	}
}
