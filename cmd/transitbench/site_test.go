package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"transitbench/data"
	"transitbench/grader/store"
	"transitbench/workspace"
	"transitbench/workspace/report"
)

// siteOutputs writes the results site of home with 'transitbench report --out', serves it with the report
// package's handler, and returns every page of both by name. Each hidden star's page and a comparison with a
// hidden run must be refused by the server (403).
func siteOutputs(t *testing.T, home string, rep *workspace.GradeReport, hidden []string) map[string][]byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	cliRunOK(t, home, "report", "--out", out, "--baselines", filepath.Join("..", "..", "results", "baselines.json"))
	pages := map[string][]byte{}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages["report "+e.Name()] = b
	}
	if len(pages) < 5 {
		t.Fatalf("report --out wrote only %d pages", len(pages))
	}
	site, err := report.Open(report.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	srv := httptest.NewServer(site.Handler())
	defer srv.Close()
	get := func(name string, want int) {
		t.Helper()
		resp, err := http.Get(srv.URL + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET /%s: status %d, want %d", name, resp.StatusCode, want)
		}
		pages["served "+name] = b
	}
	for _, e := range entries {
		get(e.Name(), http.StatusOK)
	}
	for _, id := range hidden {
		get("star-"+id+".html", http.StatusForbidden)
	}
	get(fmt.Sprintf("compare-%d-%d.html", rep.A.RunID, rep.Dev.RunID), http.StatusForbidden)
	return pages
}

// checkSiteControl is the control of the site's leak test: its dev star pages show the dev truth and the
// solution's stderr on dev stars, so the same search on its pages would find a hidden star's.
func checkSiteControl(t *testing.T, pages map[string][]byte, dev map[string]data.Answer) {
	t.Helper()
	var all []byte
	for name, b := range pages {
		if strings.Contains(name, "star-dev-") {
			all = append(all, b...)
		}
	}
	if got := leaks(all, truthPeriods(dev), "dev-"); len(got) < 2 {
		t.Errorf("the control failed: the site's dev star pages show only %v of the dev truth and stderr mark", got)
	}
}

// TestSiteRefusesBadArguments checks report's usage errors.
func TestSiteRefusesBadArguments(t *testing.T) {
	home := newHome(t)
	file := filepath.Join(home, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		opts siteOptions
		want string
	}{
		{siteOptions{Workers: 1}, "exactly one of"},
		{siteOptions{Out: "x", Serve: "127.0.0.1:0", Workers: 1}, "exactly one of"},
		{siteOptions{Out: "x", Workers: -1}, "--workers -1"},
		{siteOptions{Out: file, Workers: 1}, "is a file"},
		{siteOptions{Out: filepath.Join(home, "site"), Workers: 1, Baselines: filepath.Join(home, "none.json")}, "does not exist"},
		{siteOptions{Out: filepath.Join(home, "site"), Workers: 1}, "no results database"},
		{siteOptions{Serve: "0.0.0.0:0", Workers: 1}, "pass --allow-remote"},
		{siteOptions{Serve: ":8080", Workers: 1}, "pass --allow-remote"},
		{siteOptions{Serve: "192.0.2.1:8080", Workers: 1}, "pass --allow-remote"},
	} {
		var out, errb bytes.Buffer
		err := runSite(t.Context(), streams{Out: &out, Err: &errb}, &c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("report %+v: %v, want an error saying %q", c.opts, err, c.want)
		}
	}
}

// TestSiteWritesAndServes runs 'report --out --json' and 'report --serve' on a data directory with one run:
// the JSON names the pages written, and the server answers the leaderboard until its context ends.
func TestSiteWritesAndServes(t *testing.T) {
	home := newHome(t)
	st, err := workspace.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRun(t.Context(), store.Run{Kind: store.KindDev, Set: "dev", Label: "ws", Stars: 2}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var out, errb bytes.Buffer
	dir := filepath.Join(t.TempDir(), "site")
	if err := runSite(t.Context(), streams{Out: &out, Err: &errb, JSON: true}, &siteOptions{Out: dir, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	var res report.BuildResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Dir != dir || res.Pages != 3 || res.Stars != 0 {
		t.Errorf("report --out --json: %v, %+v (want index, rv and the run's page)", err, res)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	ready := make(chan string, 1)
	out.Reset()
	go func() {
		served <- runSite(ctx, streams{Out: &out, Err: &errb}, &siteOptions{Serve: "127.0.0.1:0", Workers: 1,
			ready: func(addr string) { ready <- addr }})
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-served:
		t.Fatalf("report --serve ended before listening: %v", err)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `href="run-1.html"`) {
		t.Errorf("GET / from report --serve: %d %.200s", resp.StatusCode, body)
	}
	// DNS rebinding: a page whose own name resolves to 127.0.0.1 sends its name as Host. Only the loopback
	// names are answered.
	_, port, _ := net.SplitHostPort(addr)
	for host, want := range map[string]int{"rebind.example:" + port: http.StatusForbidden, "rebind.example": http.StatusForbidden,
		"localhost:" + port: http.StatusOK, "127.0.0.1:" + port: http.StatusOK, "LOCALHOST": http.StatusOK} {
		if got := statusWithHost(t, "http://"+addr+"/", host); got != want {
			t.Errorf("GET / with Host %s: %d, want %d", host, got, want)
		}
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("report --serve after its context ended: %v", err)
	}
}

// statusWithHost returns the status of a GET of url sent with the Host header host.
func statusWithHost(t *testing.T, url, host string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestHTTPGuardAnswersAnyHostWhenRemote checks the guard of a server listening beyond loopback (which
// --allow-remote allowed): it answers any Host, as a server reached by its network name must.
func TestHTTPGuardAnswersAnyHostWhenRemote(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	remote := &httpGuard{hosts: loopbackHosts(&net.TCPAddr{IP: net.IPv4zero, Port: 8080}), next: ok}
	local := &httpGuard{hosts: loopbackHosts(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}), next: ok}
	for _, c := range []struct {
		g    *httpGuard
		host string
		want int
	}{{remote, "results.lab.example:8080", 200}, {remote, "localhost:8080", 200}, {local, "results.lab.example:8080", 403},
		{local, "[::1]:8080", 200}} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = c.host
		c.g.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("Host %s: %d, want %d", c.host, rec.Code, c.want)
		}
	}
}

// TestHTTPGuardToken checks the bearer token of 'mcp --http' in the guard: the scheme is case-insensitive
// (RFC 7235), the token is not, and any other scheme or a missing token is 401 with a WWW-Authenticate header.
func TestHTTPGuardToken(t *testing.T) {
	g := &httpGuard{token: "s3cret", next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}
	for auth, want := range map[string]int{"Bearer s3cret": 200, "bearer s3cret": 200, "Bearer  s3cret ": 200,
		"Bearer S3CRET": 401, "Basic s3cret": 401, "s3cret": 401, "Bearer": 401, "": 401, "Bearer s3cret2": 401} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		g.ServeHTTP(rec, req)
		if rec.Code != want || want == 401 && rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: %d (WWW-Authenticate %q), want %d", auth, rec.Code, rec.Header().Get("WWW-Authenticate"), want)
		}
	}
}

// TestSiteBuildGC: a build collects garbage at siteGCPercent and restores the target after; with GOGC set, the
// user's target stays.
func TestSiteBuildGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	t.Setenv("GOGC", "")
	restore := withBuildGC()
	if got := debug.SetGCPercent(siteGCPercent); got != siteGCPercent {
		t.Errorf("during a build the collector's target is %d %%, want %d", got, siteGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after a build the target is %d %%, want the 100 it was", got)
	}
	t.Setenv("GOGC", "50")
	restore = withBuildGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set a build changed the target to %d %%", got)
	}
	restore()
}
