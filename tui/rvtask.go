package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/internal/termtext"
	"transitbench/workspace/chart"
	"transitbench/workspace/rvtrack"
)

// rvTask is the RV task view: the data and the current model, the residuals, the GLS periodogram, the
// editable planet table with its dry-run metrics, and submission.
type rvTask struct {
	ctx           *ProgramContext
	width, height int

	id      string
	task    *RVTask
	err     error // loading failed
	planets []rv.Planet
	jitter  float64
	// gen counts the table's edits; an analysis of an older generation is dropped.
	gen       int
	analysis  *rvAnalysis
	residuals bool // the periodogram shows the residuals of the current model (else the data)

	row, col   int
	editing    bool
	input      textinput.Model
	fitting    string // "fit" or "search" while an automatic fit runs
	confirming bool
	submitting bool
	now        time.Time // the clock's last tick: the header counts down from the task's deadline to it
	feedback   *rvgate.Feedback
	status     string // the last edit's or command's message
	statusErr  bool
}

func newRVTask(ctx *ProgramContext) rvTask {
	in := textinput.New()
	in.CharLimit = 24
	in.Cursor.SetMode(cursor.CursorStatic) // a blinking cursor would tick the program for nothing
	return rvTask{ctx: ctx, input: in, residuals: true}
}

func (v *rvTask) setSize(w, h int) { v.width, v.height = w, h }

// open shows task id, loading it; start starts its clock (the contestant confirmed it).
func (v rvTask) open(id string, start bool) (rvTask, tea.Cmd) {
	if v.id == id && v.task != nil {
		return v, nil // back to the task left: keep its table
	}
	nv := newRVTask(v.ctx)
	nv.width, nv.height, nv.id = v.width, v.height, id
	ctx := v.ctx
	return nv, func() tea.Msg {
		t, err := ctx.Backend.LoadRVTask(ctx.Ctx, id, start)
		return rvTaskLoadedMsg{id, t, err}
	}
}

// rvNow is the task view's clock (tests set it).
var rvNow = time.Now

// rvTick is the command that ticks the task view's clock once a second (tests replace it: their driver runs
// commands as they come, and a real tick would wait).
var rvTick = func(id string) tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return rvClockMsg{id, t} })
}

// ticking reports whether the header's clock still counts down at v.now: the task has a deadline not yet
// passed, and is neither passed nor out of submissions.
func (v rvTask) ticking() bool {
	if v.task == nil {
		return false
	}
	m := v.task.Meta
	return !m.Deadline.IsZero() && !m.Passed && m.Left > 0 && v.now.Before(m.Deadline)
}

// analyse starts the analysis of the table as it stands (a new generation).
func (v rvTask) analyse() (rvTask, tea.Cmd) {
	if v.task == nil {
		return v, nil
	}
	v.gen++
	gen, d, med := v.gen, v.task.Data, v.task.MedianSigma
	planets, jitter, res := append([]rv.Planet(nil), v.planets...), v.jitter, v.residuals
	return v, func() tea.Msg { return rvAnalysedMsg{gen, rvtrack.Analyse(d, med, planets, jitter, res)} }
}

func (v rvTask) fitCmd(search bool) tea.Cmd {
	ctx, id := v.ctx, v.id
	var init []rv.Planet
	if !search {
		init = append(init, v.planets...)
	}
	return func() tea.Msg {
		f, err := ctx.Backend.FitRV(ctx.Ctx, id, init)
		return rvFittedMsg{id, search, f, err}
	}
}

func (v rvTask) submitCmd() tea.Cmd {
	ctx, id := v.ctx, v.id
	planets, jitter := append([]rv.Planet(nil), v.planets...), v.jitter
	return func() tea.Msg {
		fb, err := ctx.Backend.SubmitRV(ctx.Ctx, id, planets, jitter)
		return rvSubmittedMsg{id, fb, err}
	}
}

func (v *rvTask) say(format string, a ...any) {
	v.status, v.statusErr = fmt.Sprintf(format, a...), false
}

func (v *rvTask) fail(err error) { v.status, v.statusErr = termtext.Text(err.Error()), true }

func (v rvTask) update(msg tea.Msg) (rvTask, tea.Cmd) {
	switch msg := msg.(type) {
	case rvTaskLoadedMsg:
		if msg.id != v.id {
			return v, nil
		}
		v.task, v.err = msg.task, msg.err
		v.now = rvNow()
		v, cmd := v.analyse()
		if v.ticking() {
			cmd = tea.Batch(cmd, rvTick(v.id))
		}
		return v, cmd
	case rvClockMsg:
		if msg.id != v.id || v.task == nil {
			return v, nil // a tick of a task left: its clock stops
		}
		v.now = msg.now
		if v.ticking() {
			return v, rvTick(v.id)
		}
		return v, nil
	case rvAnalysedMsg:
		if msg.gen == v.gen {
			v.analysis = msg.a
		}
		return v, nil
	case rvFittedMsg:
		if msg.id != v.id {
			return v, nil
		}
		v.fitting = ""
		if msg.err != nil {
			v.fail(msg.err)
			return v, nil
		}
		v.planets, v.jitter = append([]rv.Planet(nil), msg.fit.Planets...), msg.fit.JitterMS
		sortPlanets(v.planets)
		v.row = min(v.row, max(len(v.planets)-1, 0))
		what := "fit"
		if msg.search {
			what = "search"
		}
		v.say("%s: %d planet(s), jitter %.2f m/s", what, len(v.planets), v.jitter)
		if msg.fit.GP {
			v.status += " (rotation noise found)"
		}
		if h := msg.fit.HonestSummary(v.task.Data.Instruments); h != "" {
			v.status += " · honest search: " + h
		}
		return v.analyse()
	case rvSubmittedMsg:
		if msg.id != v.id {
			return v, nil
		}
		v.submitting = false
		if msg.err != nil {
			v.fail(msg.err)
			if errors.Is(msg.err, rvtrack.ErrBudgetSpent) && v.task != nil {
				v.task.Meta.Left = 0
			}
			return v, nil
		}
		fb := msg.fb
		v.feedback = &fb
		v.status = ""
		if v.task != nil {
			v.task.Meta.Left, v.task.Meta.Passed = fb.SubmissionsLeft, fb.TaskPassed
		}
		return v, nil
	case tea.KeyMsg:
		return v.handleKey(msg)
	}
	return v, nil
}

func (v rvTask) handleKey(msg tea.KeyMsg) (rvTask, tea.Cmd) {
	km := v.ctx.Keys
	if v.editing {
		return v.handleEditKey(msg)
	}
	if v.confirming {
		v.confirming = false
		if key.Matches(msg, km.Confirm) {
			v.submitting = true
			v.say("grading…")
			return v, v.submitCmd()
		}
		v.say("submission cancelled")
		return v, nil
	}
	if v.task == nil {
		return v, nil
	}
	switch {
	case key.Matches(msg, km.Up):
		v.row = max(v.row-1, 0)
	case key.Matches(msg, km.Down):
		v.row = max(min(v.row+1, len(v.planets)-1), 0)
	case key.Matches(msg, km.CellLeft):
		v.col = max(v.col-1, 0)
	case key.Matches(msg, km.CellRight):
		v.col = min(v.col+1, nCols-1)
	case key.Matches(msg, km.Edit):
		if len(v.planets) == 0 {
			return v, nil
		}
		v.editing = true
		v.input.Prompt = cellNames[v.col] + " = "
		v.input.SetValue(fmt.Sprint(cellValue(v.planets[v.row], v.col)))
		v.input.CursorEnd()
		return v, v.input.Focus()
	case key.Matches(msg, km.AddPlanet):
		return v.addPeakPlanet()
	case key.Matches(msg, km.DelPlanet):
		if len(v.planets) == 0 {
			return v, nil
		}
		v.planets = append(v.planets[:v.row:v.row], v.planets[v.row+1:]...)
		v.row = max(min(v.row, len(v.planets)-1), 0)
		v.say("removed planet %d", v.row+1)
		return v.analyse()
	case key.Matches(msg, km.Residuals):
		v.residuals = !v.residuals
		return v.analyse()
	case key.Matches(msg, km.Fit), key.Matches(msg, km.SearchRV):
		if v.fitting != "" {
			return v, nil
		}
		search := key.Matches(msg, km.SearchRV) || len(v.planets) == 0
		v.fitting = "fitting…"
		if search {
			v.fitting = "searching (rv.SearchGP)…"
			if v.task.Meta.Tier == stargazer.TierUser {
				v.fitting = "searching (rv.Honest)…"
			}
		}
		return v, v.fitCmd(search)
	case key.Matches(msg, km.Submit):
		switch {
		case v.submitting:
		case v.task.Meta.Left <= 0:
			v.fail(errors.New("no submission left on this task"))
		default:
			v.confirming = true
		}
	}
	return v, nil
}

// handleEditKey handles a key while a cell is edited: esc drops the edit, enter sets the cell and refits the
// analysis, any other key goes to the input.
func (v rvTask) handleEditKey(msg tea.KeyMsg) (rvTask, tea.Cmd) {
	switch msg.String() {
	case "esc":
		v.editing = false
		v.input.Blur()
		return v, nil
	case "enter":
		v.editing = false
		v.input.Blur()
		p, err := setCell(v.planets[v.row], v.col, v.input.Value())
		if err != nil {
			v.fail(err)
			return v, nil
		}
		v.planets[v.row] = p
		v.say("planet %d %s = %s", v.row+1, cellNames[v.col], formatCell(p, v.col))
		return v.analyse()
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	return v, cmd
}

// addPeakPlanet adds a circular planet at the periodogram's highest peak, selects its row and refits the analysis.
func (v rvTask) addPeakPlanet() (rvTask, tea.Cmd) {
	p, ok := rvtrack.PeakPlanet(v.task.Data, v.analysis)
	if !ok {
		v.fail(errors.New("no periodogram peak to add a planet at"))
		return v, nil
	}
	v.planets = append(v.planets, p)
	sortPlanets(v.planets)
	for i := range v.planets {
		if v.planets[i] == p {
			v.row = i
		}
	}
	v.say("added a circular planet at P = %s d", formatCell(p, colP))
	return v.analyse()
}

// rvTaskLayout splits the body: the header line, the data panel on top, the periodogram and planet panels
// below, and the status line; tableW is the planet panel's width.
func rvTaskLayout(w, h int) (topH, botH, pgW, tableW int) {
	avail := max(h-2, 6)
	botH = max(min(avail*2/5, 12), 7)
	topH = max(avail-botH, 5)
	tableW = min(max(w/2, 40), w)
	return topH, botH, w - tableW, tableW
}

func (v rvTask) view() string {
	st := v.ctx.Styles
	if v.err != nil {
		return st.Error.Render(termtext.Text(fmt.Sprintf("cannot load %s: %v", v.id, v.err)))
	}
	if v.task == nil || v.analysis == nil {
		return st.Dim.Render("loading " + termtext.Line(v.id) + "…")
	}
	topH, botH, pgW, tableW := rvTaskLayout(v.width, v.height)
	top := v.dataPanel(v.width, topH)
	bottom := lipgloss.JoinHorizontal(lipgloss.Top, v.periodogramPanel(pgW, botH), v.planetPanel(tableW, botH))
	return v.header() + "\n" + top + "\n" + bottom + "\n" + v.statusLine()
}

func (v rvTask) header() string {
	st := v.ctx.Styles
	m := v.task.Meta
	passed := ""
	if m.Passed {
		passed = " · " + st.OutcomeStyle("hit").Render("passed")
	}
	return st.Title.Render(" RV "+termtext.Line(m.ID)) + st.Dim.Render(fmt.Sprintf(" · %s · %d pts · %d inst · %.0f d · M★ %.2f ·",
		m.Tier, m.Points, m.Instruments, m.SpanDays, v.task.View.MStarSun)) +
		fmt.Sprintf(" left %d/%d", m.Left, m.Budget) + clockNote(m.Deadline, v.now) + passed
}

// clockNote is the header's clock: the time left until deadline at now (" · 12:30 left"), " · expired" once
// it has passed, "" for a task without a clock (imported).
func clockNote(deadline, now time.Time) string {
	if deadline.IsZero() {
		return ""
	}
	left := deadline.Sub(now).Seconds()
	if left <= 0 {
		return " · expired"
	}
	return " · " + rvtrack.Clock(left) + " left"
}

func (v rvTask) dataPanel(w, h int) string {
	inner := h - 2
	resH := max(min(inner/3, 5), 3)
	data, res := rvCharts(v.task.Data, v.analysis, w-2, inner-resH, resH)
	paint := rvPaint(v.ctx.Styles)
	body := append(data.Lines(paint), res.Lines(paint)...)
	var legend []string
	for i, name := range v.task.Data.Instruments {
		legend = append(legend, paint(rvInkInst+chart.Ink(i), "┃")+termtext.Line(name))
	}
	sub := strings.Join(legend, " ") + " ── model " + paint(rvInkModel, "━") + " ── residuals below"
	return Panel(v.ctx.Styles, "RV m/s", sub, body, w, h, false)
}

func (v rvTask) periodogramPanel(w, h int) string {
	a := v.analysis
	of := "data"
	if a.OfResiduals {
		of = "residuals"
	}
	inner := h - 2
	peaks := peakLines(a)
	listH := min(len(peaks), max(inner-4, 0))
	marks := make([]chart.PeakMark, len(a.Peaks))
	for i, p := range a.Peaks {
		marks[i] = chart.PeakMark{PeriodDays: p.PeriodDays, Label: fmt.Sprint(i + 1), Current: i == 0}
	}
	body := chart.Periodogram(w-2, inner-listH, a.Periods, a.Power, marks, v.ctx.Styles.Paint)
	body = append(body, peaks[:listH]...)
	return Panel(v.ctx.Styles, "GLS", "of the "+of+" ── period d (log)", body, w, h, false)
}

// planetLines renders the planet table (the cursor's cell marked, or the cell editor), the jitter and the
// dry-run metrics, in h lines.
func planetLines(st *Styles, planets []rv.Planet, jitter float64, m rvgate.ModelMetrics, row, col int, editor string, h int) []string {
	widths := [nCols]int{8, 6, 5, 4, 4}
	heads := [nCols]string{"P d", "K m/s", "e", "ω", "M0"}
	line := func(first string, cells [nCols]string, mark int) string {
		var b strings.Builder
		b.WriteString(first)
		for c, s := range cells {
			s = fmt.Sprintf("%*s", widths[c], s)
			if c == mark {
				s = st.Selected.Render(s)
			}
			b.WriteString(" " + s)
		}
		return b.String()
	}
	out := []string{st.Header.Render(line(" # ", heads, -1))}
	rows := max(h-3, 1)
	first := max(0, min(row-rows+1, len(planets)-rows))
	for i := first; i < len(planets) && i < first+rows; i++ {
		var cells [nCols]string
		for c := range cells {
			cells[c] = formatCell(planets[i], c)
		}
		mark, cur := -1, "  "
		if i == row {
			mark, cur = col, "▸"+" "
		}
		out = append(out, line(fmt.Sprintf("%s%d", cur, i+1), cells, mark))
	}
	if len(planets) == 0 {
		out = append(out, st.Dim.Render(" no planet: a adds one at the GLS peak, f searches"))
	}
	for len(out) < h-2 {
		out = append(out, "")
	}
	if editor != "" {
		out = append(out, editor)
	} else {
		out = append(out, st.Dim.Render(fmt.Sprintf(" jitter %.2f m/s · dry run:", jitter)))
	}
	return append(out, " "+metricsLine(m))
}

func (v rvTask) planetPanel(w, h int) string {
	editor := ""
	if v.editing {
		editor = " " + v.input.View()
	}
	body := planetLines(v.ctx.Styles, v.planets, v.jitter, v.analysis.Metrics, v.row, v.col, editor, h-2)
	return Panel(v.ctx.Styles, "Planets", "dry run costs nothing", body, w, h, true)
}

func (v rvTask) statusLine() string {
	st := v.ctx.Styles
	switch {
	case v.confirming:
		return st.Accent.Render(fmt.Sprintf(" submit %d planet(s)? it spends 1 of %d submissions left  y/n",
			len(v.planets), v.task.Meta.Left))
	case v.fitting != "":
		return st.Dim.Render(" " + v.fitting)
	case v.status != "" && v.statusErr:
		return st.Error.Render(" " + v.status)
	case v.status != "":
		return " " + v.status
	case v.feedback != nil:
		return " " + feedbackLine(*v.feedback)
	}
	return ""
}

// rvKeys is the help of the RV screens: their own bindings, help and quit (the dev run and grading belong to
// the transit screens).
type rvKeys struct {
	short []key.Binding
	km    *KeyMap
}

func (k rvKeys) ShortHelp() []key.Binding {
	return append(append([]key.Binding{}, k.short...), k.km.Help, k.km.Quit)
}

// FullHelp adds the table's cursor keys and lays the bindings out in columns of four.
func (k rvKeys) FullHelp() [][]key.Binding {
	all := append([]key.Binding{k.km.Up, k.km.Down, k.km.CellLeft, k.km.CellRight}, k.ShortHelp()...)
	var cols [][]key.Binding
	for len(all) > 0 {
		n := min(4, len(all))
		cols, all = append(cols, all[:n]), all[n:]
	}
	return cols
}

func (v rvTask) keys() help.KeyMap {
	km := v.ctx.Keys
	if v.confirming {
		return rvKeys{short: []key.Binding{km.Confirm, km.Deny}, km: km}
	}
	return rvKeys{short: []key.Binding{km.Edit, km.AddPlanet, km.DelPlanet, km.Fit, km.Submit, km.Back, km.SearchRV, km.Residuals}, km: km}
}
