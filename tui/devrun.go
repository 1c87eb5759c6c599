package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"

	"transitbench/grader"
)

// maxStreamed is how many finished stars the run screens keep listed.
const maxStreamed = 500

// devrun is the dev run screen: progress, the live score and the outcomes streaming in.
type devrun struct {
	ctx         *ProgramContext
	running     bool
	cancel      context.CancelFunc
	done, total int
	summary     grader.Summary
	events      []RunEvent
	final       *grader.Summary
	err         error
	bar         progress.Model
	width       int
	height      int
}

func newDevrun(ctx *ProgramContext) devrun {
	return devrun{ctx: ctx, bar: progress.New(progress.WithDefaultGradient())}
}

func (d *devrun) setSize(w, h int) {
	d.width, d.height = w, h
	d.bar.Width = max(w-30, 10)
}

// start begins a dev run unless one is running.
func (d devrun) start() (devrun, tea.Cmd) {
	if d.running {
		return d, nil
	}
	ctx, cancel := context.WithCancel(d.ctx.Ctx)
	d.running, d.cancel = true, cancel
	d.done, d.total, d.events, d.final, d.err, d.summary = 0, 0, nil, nil, nil, grader.Summary{}
	b := d.ctx.Backend
	return d, startRun(ctx, func(ctx context.Context, events chan<- RunEvent) runDoneMsg {
		s, err := b.Dev(ctx, events)
		return runDoneMsg{summary: s, err: err}
	})
}

func (d devrun) update(msg tea.Msg) (devrun, tea.Cmd) {
	switch msg := msg.(type) {
	case runEventMsg:
		e := msg.event
		d.done, d.total, d.summary = e.Done, e.Total, e.Summary
		d.events = append(d.events, e)
		if len(d.events) > maxStreamed {
			d.events = d.events[len(d.events)-maxStreamed:]
		}
		return d, waitRun(msg.ch)
	case runDoneMsg:
		d.running = false
		if d.cancel != nil {
			d.cancel()
		}
		d.final, d.err = msg.summary, msg.err
		if d.final != nil {
			d.summary = *d.final
		}
		return d, nil
	case tea.KeyMsg:
		if key.Matches(msg, d.ctx.Keys.Cancel) && d.running && d.cancel != nil {
			d.cancel()
		}
	}
	return d, nil
}

func (d devrun) view() string {
	st := d.ctx.Styles
	var b strings.Builder
	b.WriteString(st.Title.Render("Dev run") + st.Dim.Render(" · the solution on the labelled dev stars, as grading runs it") + "\n\n")
	frac := 0.0
	if d.total > 0 {
		frac = float64(d.done) / float64(d.total)
	}
	state := "ready: press d to start"
	switch {
	case d.running:
		state = "running · esc cancels (finished stars are kept)"
	case d.err != nil && errors.Is(d.err, context.Canceled):
		state = st.Error.Render("cancelled") + " · press d to resume"
	case d.err != nil:
		state = st.Error.Render("failed: " + d.err.Error())
	case d.final != nil:
		state = st.OutcomeStyle("hit").Render("done")
	}
	fmt.Fprintf(&b, "%s  %d/%d\n%s\n\n", d.bar.ViewAs(frac), d.done, d.total, state)
	b.WriteString(st.Header.Render(formatScore(d.summary)) + "\n\n")
	b.WriteString(st.Dim.Render(fmt.Sprintf("%-10s %-9s %-8s %5s %6s  %s", "star", "category", "outcome", "rows", "credit", "exit")) + "\n")
	rows := max(d.height-9, 1)
	start := max(len(d.events)-rows, 0)
	for _, e := range d.events[start:] {
		b.WriteString(eventLine(st, e) + "\n")
	}
	return b.String()
}

// eventLine is one streamed star: id, category, outcome, counted rows, credit and the exit reason.
func eventLine(st *Styles, e RunEvent) string {
	if e.Star == nil {
		return st.Dim.Render(fmt.Sprintf("%d/%d", e.Done, e.Total))
	}
	s := e.Star
	out := s.Outcome()
	return fmt.Sprintf("%-10s %-9s %s %5d %6.1f  %s", s.StarID, s.Category,
		st.OutcomeStyle(out).Render(fmt.Sprintf("%-8s", out)), len(s.Rows), s.Credit, st.Dim.Render(e.Exit))
}

func (d devrun) keys() help.KeyMap {
	km := d.ctx.Keys
	return screenKeys{short: []key.Binding{km.Dev, km.Cancel}, km: km}
}
