package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"transitbench/grader"
	"transitbench/internal/termtext"
	"transitbench/workspace"
)

// maxStreamed is how many finished stars the run screens keep listed.
const maxStreamed = 500

// devHeaderLines is how many lines of the dev run screen are above the list of finished stars.
const devHeaderLines = 9

// devrun is the dev run screen: progress, the live score and the outcomes streaming in, in a viewport that
// follows the newest star unless scrolled back.
type devrun struct {
	ctx         *ProgramContext
	running     bool
	cancel      context.CancelFunc
	done, total int
	summary     grader.Summary
	events      []RunEvent
	phase       string // what the run does before its next star finishes (RunEvent.Phase)
	final       *grader.Summary
	err         error
	bar         progress.Model
	list        viewport.Model
	width       int
	height      int
	msg         string // why a key did nothing, until the next key
}

func newDevrun(ctx *ProgramContext) devrun {
	km := ctx.Keys
	list := viewport.New(80, 1)
	list.KeyMap = viewport.KeyMap{Up: km.Up, Down: km.Down, PageUp: km.PageUp, PageDown: km.PageDown}
	return devrun{ctx: ctx, bar: newBar(ctx.Styles), list: list}
}

func (d *devrun) SetSize(w, h int) {
	d.width, d.height = w, h
	d.bar.Width = max(w-30, 10)
	follow := d.list.AtBottom()
	d.list.Width, d.list.Height = max(w, 1), max(h-devHeaderLines, 1)
	d.fill(follow)
}

// fill puts the finished stars into the list, each cut to the width; follow keeps the newest in view.
func (d *devrun) fill(follow bool) {
	lines := make([]string, len(d.events))
	for i, e := range d.events {
		lines[i] = fit(eventLine(d.ctx.Styles, e), d.list.Width)
	}
	d.list.SetContent(strings.Join(lines, "\n"))
	if follow {
		d.list.GotoBottom()
	}
}

// start begins a dev run unless one is running.
func (d devrun) start() (devrun, tea.Cmd) {
	if d.running {
		return d, nil
	}
	ctx, cancel := context.WithCancel(d.ctx.Ctx)
	d.running, d.cancel = true, cancel
	d.done, d.total, d.events, d.final, d.err, d.summary, d.phase = 0, 0, nil, nil, nil, grader.Summary{}, ""
	d.fill(true)
	b := d.ctx.Backend
	return d, startRun(ctx, func(ctx context.Context, events chan<- RunEvent) runDoneMsg {
		s, err := b.Dev(ctx, events)
		return runDoneMsg{summary: s, err: err}
	})
}

func (d devrun) update(msg tea.Msg) (devrun, tea.Cmd) {
	km := d.ctx.Keys
	switch msg := msg.(type) {
	case runEventMsg:
		e := msg.event
		d.done, d.total, d.phase = e.Done, e.Total, e.Phase
		if e.Phase != "" {
			return d, waitNext(msg.ch)
		}
		d.summary = e.Summary
		follow := d.list.AtBottom()
		d.events = append(d.events, e)
		if len(d.events) > maxStreamed {
			d.events = d.events[len(d.events)-maxStreamed:]
		}
		d.fill(follow)
		return d, waitNext(msg.ch)
	case runDoneMsg:
		d.running, d.phase = false, ""
		stopRun(d.cancel)
		d.final, d.err = msg.summary, msg.err
		if d.final != nil {
			d.summary = *d.final
		}
		return d, nil
	case tea.KeyMsg:
		d.msg = ""
		switch {
		case key.Matches(msg, km.Cancel) && d.running:
			stopRun(d.cancel)
		case key.Matches(msg, km.Back):
			return d, back(true)
		case key.Matches(msg, km.Dev) && d.running:
			d.msg = "a run is going: esc cancels it"
		case key.Matches(msg, km.Dev):
			return d.start()
		default:
			var cmd tea.Cmd
			d.list, cmd = d.list.Update(msg)
			return d, cmd
		}
	}
	return d, nil
}

func (d devrun) View() string {
	st := d.ctx.Styles
	w := d.width
	var b strings.Builder
	b.WriteString(fitStatus(w, val(0, st.Title.Render("Dev run")),
		val(1, st.Dim.Render("· the solution on the labelled dev stars, as grading runs it"))) + "\n\n")
	frac := 0.0
	if d.total > 0 {
		frac = float64(d.done) / float64(d.total)
	}
	state := "ready: press d to start"
	switch {
	case d.running && d.phase == workspace.PhaseBuild:
		state = "building the solution… · esc cancels"
	case d.running:
		state = "running · esc cancels (finished stars are kept)"
	case d.err != nil && errors.Is(d.err, context.Canceled):
		state = st.Error.Render("cancelled") + " · press d to resume, esc to go back"
	case d.err != nil:
		state = st.Error.Render("failed: " + termtext.Text(d.err.Error()))
	case d.final != nil:
		state = st.OutcomeStyle("hit").Render("done") + " · press d to run again, esc to go back"
	}
	if d.msg != "" {
		state = st.Accent.Render(d.msg)
	}
	progress := fmt.Sprintf("%s  %d/%d", d.bar.ViewAs(frac), d.done, d.total)
	switch {
	case d.running && d.phase == workspace.PhaseBuild:
		progress = st.Dim.Render("building the solution…")
	case d.running && d.total == 0:
		progress = st.Dim.Render("starting the run…")
	}
	fmt.Fprintf(&b, "%s\n%s\n\n", progress, state)
	b.WriteString(st.Header.Render(fitStatus(w, scoreFields(d.summary)...)) + "\n\n")
	head := []statusField{val(0, fmt.Sprintf("%-10s %-9s %-8s %5s %6s  %s", "star", "category", "outcome", "rows", "credit", "exit"))}
	if n := d.list.TotalLineCount(); n > d.list.Height {
		first := d.list.YOffset + 1
		head = append(head, val(1, fmt.Sprintf(" %d–%d of %d", first, min(first+d.list.Height-1, n), n)), val(2, "(↑/↓ pgup/pgdn)"))
	}
	b.WriteString(st.Dim.Render(fitStatus(w, head...)) + "\n")
	if len(d.events) > 0 {
		b.WriteString(d.list.View())
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

// Keys offers esc as cancel while a run is going, as back once it has ended.
func (d devrun) Keys() help.KeyMap {
	km := d.ctx.Keys
	cancel, back, dev := km.Cancel, km.Back, km.Dev
	cancel.SetEnabled(d.running)
	back.SetEnabled(!d.running)
	dev.SetEnabled(!d.running)
	return screenKeys{short: []key.Binding{dev, cancel, back},
		full: [][]key.Binding{{dev, cancel, back}, {km.Up, km.Down, km.PageUp, km.PageDown}}, km: km}
}

// The dev run screen as a screen: d from another transit screen enters it, starting a run unless one ran.

func (d *devrun) Update(msg tea.Msg) tea.Cmd { return step(d, devrun.update, msg) }

func (d *devrun) Enter() tea.Cmd {
	if d.running || d.final != nil || d.err != nil {
		return nil
	}
	var cmd tea.Cmd
	*d, cmd = d.start()
	return cmd
}

func (d *devrun) Capturing() bool { return false }
func (d *devrun) RunKeys() bool   { return true }
