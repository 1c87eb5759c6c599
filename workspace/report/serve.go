package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"transitbench/grader/store"
	"transitbench/workspace"
)

// LiveRefreshSeconds is how often a served running run's page reloads itself (a meta refresh: no script).
const LiveRefreshSeconds = 5

func (s *Site) writeBoard(ctx context.Context, w io.Writer, live bool) error {
	b, err := s.board(ctx)
	if err != nil {
		return err
	}
	b.Live = live
	return s.render(w, "board", "Leaderboard", b, live, 0)
}

func (s *Site) writeRun(ctx context.Context, w io.Writer, id int64, live bool) error {
	p, err := s.runPage(ctx, id)
	if err != nil {
		return err
	}
	refresh := 0
	if live && p.Live {
		refresh = LiveRefreshSeconds
	}
	return s.render(w, "run", fmt.Sprintf("Run %d", id), p, live, refresh)
}

func (s *Site) writeStar(ctx context.Context, w io.Writer, id string, live bool) error {
	p, err := s.starPage(ctx, id)
	if err != nil {
		return err
	}
	return s.render(w, "star", "Star "+id, p, live, 0)
}

func (s *Site) writeCompare(ctx context.Context, w io.Writer, a, b int64, live bool) error {
	p, err := s.comparePage(ctx, a, b)
	if err != nil {
		return err
	}
	return s.render(w, "compare", fmt.Sprintf("Run %d → run %d", a, b), p, live, 0)
}

// Handler serves the site's pages live from the store, under the names Build gives them: /, /index.html,
// /run-N.html, /star-ID.html, /compare-A-B.html (any two public runs; /compare?a=A&b=B, the leaderboard's
// form, redirects there), /rv.html and /rv-NAME.html. A hidden star or a
// comparison with a hidden run is refused (403), an unknown page or run is 404.
func (s *Site) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, func(b *bytes.Buffer) error { return s.writeBoard(r.Context(), b, true) })
	})
	mux.HandleFunc("GET /compare", func(w http.ResponseWriter, r *http.Request) {
		a, errA := strconv.ParseInt(r.FormValue("a"), 10, 64)
		b, errB := strconv.ParseInt(r.FormValue("b"), 10, 64)
		if errA != nil || errB != nil {
			s.serve(w, r, func(*bytes.Buffer) error { return fmt.Errorf("compare needs two run numbers, a and b: %w", errNoPage) })
			return
		}
		http.Redirect(w, r, compareHref(a, b), http.StatusSeeOther)
	})
	mux.HandleFunc("GET /{page}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("page")
		s.serve(w, r, func(b *bytes.Buffer) error { return s.writePage(r.Context(), b, name) })
	})
	return mux
}

// errNoPage is a page name the site does not have.
var errNoPage = errors.New("no such page")

// writePage writes the page called name.
func (s *Site) writePage(ctx context.Context, b *bytes.Buffer, name string) error {
	base, ok := strings.CutSuffix(name, ".html")
	if !ok {
		return errNoPage
	}
	switch {
	case base == "index":
		return s.writeBoard(ctx, b, true)
	case base == "rv":
		return s.writeRV(ctx, b, true)
	case strings.HasPrefix(base, "run-"):
		id, err := strconv.ParseInt(base[len("run-"):], 10, 64)
		if err != nil {
			return errNoPage
		}
		return s.writeRun(ctx, b, id, true)
	case strings.HasPrefix(base, "rv-"):
		return s.writeRVRun(ctx, b, base[len("rv-"):], true)
	case strings.HasPrefix(base, "star-"):
		return s.writeStar(ctx, b, base[len("star-"):], true)
	case strings.HasPrefix(base, "compare-"):
		var a, c int64
		if _, err := fmt.Sscanf(base, "compare-%d-%d", &a, &c); err != nil {
			return errNoPage
		}
		return s.writeCompare(ctx, b, a, c, true)
	}
	return errNoPage
}

// serve renders a page into a buffer first, so that an error becomes an error page with its status.
func (s *Site) serve(w http.ResponseWriter, r *http.Request, fill func(*bytes.Buffer) error) {
	var b bytes.Buffer
	err := fill(&b)
	if err == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b.Bytes())
		return
	}
	status, title := http.StatusInternalServerError, "The page could not be made"
	switch {
	case errors.Is(err, workspace.ErrHiddenStar):
		status, title = http.StatusForbidden, "Hidden stars are not shown"
	case errors.Is(err, errNoPage), errors.Is(err, store.ErrNotFound):
		status, title = http.StatusNotFound, "No such page"
	}
	b.Reset()
	render(&b, "error", title, errorPage{Title: title, Message: err.Error()}, true, 0)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}
