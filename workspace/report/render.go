package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"transitbench/internal/termtext"
)

//go:embed templates/*.html
var templateFS embed.FS

var funcs = template.FuncMap{
	"f0":      func(v float64) string { return fmt.Sprintf("%.0f", v) },
	"f1":      func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"f2":      func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"f3":      func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"s3":      func(v float64) string { return fmt.Sprintf("%+.3f", v) }, // a change of S: a signed fraction, three decimals
	"f4":      func(v float64) string { return fmt.Sprintf("%.4f", v) },
	"f5":      func(v float64) string { return fmt.Sprintf("%.5f", v) },
	"pct":     func(v float64) string { return fmt.Sprintf("%.0f %%", 100*v) },
	"hours":   func(days float64) float64 { return days * 24 },
	"runHref": runHref,
}

// pages are the templates, one per kind of page, each the base layout with its "content".
var pages = func() map[string]*template.Template {
	base := template.Must(template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/base.html", "templates/figure.html"))
	out := map[string]*template.Template{}
	for _, name := range []string{"board", "run", "star", "compare", "rv", "rvrun", "error"} {
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html"))
	}
	return out
}()

// frame is what the base layout needs besides the page.
type frame struct {
	Title     string
	Page      any
	Live      bool   // served live
	Refresh   int    // seconds between reloads of a served running run's page (0: none)
	Generated string // when a static site was written
	Scope     string // whose runs the site shows: a workspace and its solution kind, or every workspace ("": not said)
}

// render writes page (a *Board, *RunPage, …) with the template name: every page of the site, written or served.
// html/template escapes what the pages quote from solutions, task files and agents for HTML, but leaves their
// control characters raw (a browser hides them; a bidi override reorders the text around it, and a page saved
// and shown with cat reaches the terminal), so the page goes through termtext.Text, which shows them as escapes
// (\x1b, \u202e). The pages' own text holds no control character but newlines and tabs.
func render(w io.Writer, name, title string, page any, live bool, refresh int) error {
	return renderFrame(w, name, frame{Title: title, Page: page, Live: live, Refresh: refresh})
}

// render is the package's render with the site's scope (Options.Scope) in every page's header.
func (s *Site) render(w io.Writer, name, title string, page any, live bool, refresh int) error {
	return renderFrame(w, name, frame{Title: title, Page: page, Live: live, Refresh: refresh, Scope: s.opt.Scope})
}

// renderFrame writes the page of f with the template name.
func renderFrame(w io.Writer, name string, f frame) error {
	live := f.Live
	if !live {
		f.Generated = time.Now().UTC().Format("2006-01-02 15:04 UTC")
	}
	var b strings.Builder
	if err := pages[name].ExecuteTemplate(&b, "base", f); err != nil {
		return err
	}
	_, err := io.WriteString(w, termtext.Text(b.String()))
	return err
}

// errorPage is the page of a request that cannot be shown.
type errorPage struct{ Title, Message string }
