package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"transitbench/data/sets"
	"transitbench/internal/termtext"
)

// progressPrinter shows a build's progress on w: a bar with an ETA redrawn in place on a terminal, else a
// line per tenth of the work.
type progressPrinter struct {
	w      io.Writer
	verb   string
	tty    bool
	start  time.Time
	last   int // last tenth printed (non-terminal) or last percent drawn (terminal)
	begun  bool
	resume int
	set    string // the set of the step being shown: a new set is a new step, timed from its own start
}

// newProgressPrinter returns a printer on w. On a terminal it redraws its bar with CR, so it writes under the
// command's sanitising writer (termtext.Raw): what it prints is its own text and the set's name through
// termtext.Line.
func newProgressPrinter(w io.Writer, verb string) *progressPrinter {
	w = termtext.Raw(w)
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressPrinter{w: w, verb: verb, tty: tty, last: -1}
}

func (p *progressPrinter) update(pr sets.Progress) {
	if pr.Total == 0 {
		return
	}
	pr.Set = termtext.Line(pr.Set)
	if p.begun && pr.Set != p.set {
		p.begun, p.last = false, -1 // a printer used for several steps times each from its own start
	}
	if !p.begun {
		p.set = pr.Set
		p.begun, p.start, p.resume = true, time.Now(), pr.Resumed
		if !p.tty {
			p.last = 10 * pr.Resumed / pr.Total
		}
		if pr.Resumed > 0 {
			fmt.Fprintf(p.w, "%s %s: continuing an interrupted build, %d of %d stars already made\n", p.verb, pr.Set,
				pr.Resumed, pr.Total)
		} else if !p.tty {
			fmt.Fprintf(p.w, "%s %s: %d stars\n", p.verb, pr.Set, pr.Total)
		}
	}
	elapsed := time.Since(p.start)
	eta := ""
	if made := pr.Done - p.resume; made > 0 && pr.Done < pr.Total {
		left := time.Duration(float64(elapsed) / float64(made) * float64(pr.Total-pr.Done))
		eta = fmt.Sprintf(", %s left", left.Round(time.Second))
	}
	if p.tty {
		pct := 100 * pr.Done / pr.Total
		if pct == p.last && pr.Done != pr.Total {
			return
		}
		p.last = pct
		const width = 30
		fill := width * pr.Done / pr.Total
		fmt.Fprintf(p.w, "\r%s %-5s [%s%s] %3d%% %d/%d%s   ", p.verb, pr.Set, strings.Repeat("=", fill),
			strings.Repeat(" ", width-fill), pct, pr.Done, pr.Total, eta)
		if pr.Done == pr.Total {
			fmt.Fprintf(p.w, "\n")
		}
		return
	}
	tenth := 10 * pr.Done / pr.Total
	if tenth == p.last && pr.Done != pr.Total {
		return
	}
	p.last = tenth
	fmt.Fprintf(p.w, "%s %s: %d%% (%d/%d stars, %.1fs%s)\n", p.verb, pr.Set, 100*pr.Done/pr.Total, pr.Done,
		pr.Total, elapsed.Seconds(), eta)
}
