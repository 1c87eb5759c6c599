package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"transitbench/grader/store"
	"transitbench/internal/termtext"
	"transitbench/workspace"
)

// AgentSession is one session of an agent on the MCP server (`transitbench mcp`) with its spend
// (store.AgentSession, as `transitbench runs --agents` lists it) and its tool calls in order.
type AgentSession struct {
	store.AgentSession
	Calls []store.AgentCall
}

// Hours is the session's wall time: from its start to its last call (0 before its first call).
func (a AgentSession) Hours() float64 {
	if a.Last.IsZero() {
		return 0
	}
	return a.Last.Sub(a.Started).Hours()
}

// AgentSessions implements Backend over the results store of the data directory, as `transitbench runs
// --agents` reads it.
func (r *Real) AgentSessions(ctx context.Context) ([]AgentSession, error) {
	st, err := workspace.OpenStore(r.Home)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	sessions, err := st.AgentSessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]AgentSession, len(sessions))
	for i, s := range sessions {
		out[i].AgentSession = s
		if out[i].Calls, err = st.AgentCalls(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// agentsLoadedMsg carries the agent sessions screen's rows.
type agentsLoadedMsg struct {
	sessions []AgentSession
	err      error
}

func loadAgentsCmd(ctx *ProgramContext) tea.Cmd {
	return func() tea.Msg {
		s, err := ctx.Backend.AgentSessions(ctx.Ctx)
		return agentsLoadedMsg{s, err}
	}
}

// agentsHeaderLines are the lines above the sessions table: the title and the status line.
const agentsHeaderLines = 2

// agents is the agent sessions screen: the sessions of the MCP server, newest first, with their spend against
// their budget in a table, and the selected session's tool calls in a viewport below it.
type agents struct {
	ctx      *ProgramContext
	sessions []AgentSession
	table    table.Model
	calls    viewport.Model
	loaded   bool
	err      error
	body     int // the lines below the header lines
	width    int
}

func newAgents(ctx *ProgramContext) agents {
	km := ctx.Keys
	t := table.New(table.WithFocused(true), table.WithColumns(agentColumns(80)))
	t.SetStyles(ctx.Styles.Table())
	t.KeyMap = table.KeyMap{LineUp: km.Up, LineDown: km.Down} // the page keys scroll the calls
	calls := viewport.New(80, 1)
	calls.KeyMap = viewport.KeyMap{PageUp: km.PageUp, PageDown: km.PageDown}
	return agents{ctx: ctx, table: t, calls: calls}
}

// agentColumn is a column of the sessions table: its title, width and cell of a session.
type agentColumn struct {
	title string
	width int
	cell  func(s AgentSession) string
}

// agentColumnList are the sessions table's columns in their order; agentDropOrder is the order narrow
// terminals drop them in (the session id, 16 hex digits, and the spend stay whole).
var (
	agentColumnList = []agentColumn{
		{"session", 16, func(s AgentSession) string { return termtext.Line(s.ID) }},
		{"client", 9, func(s AgentSession) string { return termtext.Line(s.Client) }},
		{"preset", 6, func(s AgentSession) string { return s.Preset }},
		{"started", 11, func(s AgentSession) string { return s.Started.Local().Format("01-02 15:04") }},
		{"turns", 7, func(s AgentSession) string { return fmt.Sprintf("%d/%d", s.Turns, s.BudgetTurns) }},
		{"tokens", 9, func(s AgentSession) string {
			return formatTokens(s.Tokens) + "/" + formatTokens(s.BudgetTokens)
		}},
		{"hours", 8, func(s AgentSession) string { return fmt.Sprintf("%.2f/%g", s.Hours(), s.BudgetHours) }},
		{"refused", 7, func(s AgentSession) string { return fmt.Sprint(s.Refused) }},
	}
	agentDropOrder = []string{"preset", "client", "started", "hours", "tokens"}
)

// agentColumnsFor chooses the sessions table's columns for width w: all of them when they fit (the client
// taking what is left), else without the first of agentDropOrder, and so on; a cell is never cut.
func agentColumnsFor(w int) []agentColumn {
	cols := append([]agentColumn{}, agentColumnList...)
	used := func() int {
		n := 0
		for _, c := range cols {
			n += c.width + 2 // the table pads each cell by one on each side
		}
		return n
	}
	for _, drop := range agentDropOrder {
		if used() <= w {
			break
		}
		cols = slices.DeleteFunc(cols, func(c agentColumn) bool { return c.title == drop })
	}
	if extra := w - used(); extra > 0 {
		for i := range cols {
			if cols[i].title == "client" {
				cols[i].width += extra
			}
		}
	}
	return cols
}

// agentColumns are the bubbles table's columns of agentColumnsFor(w).
func agentColumns(w int) []table.Column {
	var out []table.Column
	for _, c := range agentColumnsFor(w) {
		out = append(out, table.Column{Title: c.title, Width: c.width})
	}
	return out
}

// formatTokens writes a token count short: 900, 1.5k, 20k.
func formatTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.0fk", float64(n)/1000)
}

func (a *agents) SetSize(w, h int) {
	a.body = max(h-agentsHeaderLines, 4)
	a.width = w
	a.table.SetRows(nil) // the rows may have more cells than the new columns
	a.table.SetWidth(w)
	a.table.SetColumns(agentColumns(w))
	a.calls.Width = max(w, 1)
	a.refresh(a.sessions)
}

// layout shares the body between the sessions table (its rows, up to half the body) and the calls.
func (a *agents) layout() {
	tableH := max(min(len(a.sessions)+2, a.body/2), 3) // the header, the rows and a blank line
	a.table.SetHeight(tableH)
	a.calls.Height = max(a.body-tableH-1, 1) // the calls' title line
}

// refresh puts sessions into the table, keeping the selected session when it is still listed.
func (a *agents) refresh(sessions []AgentSession) {
	sel := ""
	if s := a.selected(); s != nil {
		sel = s.ID
	}
	a.sessions = sessions
	a.layout()
	rows := make([]table.Row, len(a.sessions))
	cursor := 0
	cols := agentColumnsFor(a.width)
	for i, s := range a.sessions {
		for _, c := range cols {
			rows[i] = append(rows[i], c.cell(s))
		}
		if s.ID == sel {
			cursor = i
		}
	}
	a.table.SetRows(rows)
	a.table.SetCursor(cursor)
	a.fillCalls()
}

// selected is the session under the cursor, nil when there is none.
func (a *agents) selected() *AgentSession {
	if c := a.table.Cursor(); c >= 0 && c < len(a.sessions) {
		return &a.sessions[c]
	}
	return nil
}

// fillCalls puts the selected session's tool calls into the viewport, from its top.
func (a *agents) fillCalls() {
	s := a.selected()
	if s == nil {
		a.calls.SetContent("")
		return
	}
	st := a.ctx.Styles
	lines := []string{st.Dim.Render(fmt.Sprintf("%4s  %-16s %-8s %9s %7s  %s", "#", "tool", "at", "duration", "tokens", "status"))}
	for _, c := range s.Calls {
		line := fmt.Sprintf("%4d  %-16s %-8s %9s %7d  ", c.Seq, termtext.Line(c.Tool), c.Started.Local().Format("15:04:05"),
			formatMillis(c.Millis), c.Tokens)
		lines = append(lines, fit(line+st.CallStatus(c.Status).Render(c.Status), a.calls.Width))
		lines = append(lines, callDetail(st, "args", c.Args, a.calls.Width)...)
		lines = append(lines, callDetail(st, "error", c.Error, a.calls.Width)...)
	}
	a.calls.SetContent(strings.Join(lines, "\n"))
	a.calls.GotoTop()
}

// callDetail is a failed call's arguments or error text under its line: the name, then the text (what the
// client or the server wrote, through termtext) wrapped to width, indented; nothing when text is empty.
func callDetail(st *Styles, name, text string, width int) []string {
	if text == "" {
		return nil
	}
	const indent = 6
	lead := fmt.Sprintf("%*s%-6s", indent, "", name)
	w := max(width-indent-6, 10)
	var out []string
	for i, l := range strings.Split(ansi.Wrap(termtext.Text(text), w, " ,"), "\n") {
		if i > 0 {
			lead = strings.Repeat(" ", indent+6)
		}
		out = append(out, fit(st.Dim.Render(lead)+l, width))
	}
	return out
}

// formatMillis writes a tool call's duration: milliseconds under a second, else seconds.
func formatMillis(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", time.Duration(ms*int64(time.Millisecond)).Seconds())
}

func (a *agents) Update(msg tea.Msg) tea.Cmd {
	km := a.ctx.Keys
	switch msg := msg.(type) {
	case agentsLoadedMsg:
		a.loaded, a.err = true, msg.err
		if msg.err == nil {
			a.refresh(msg.sessions)
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, km.Back):
			return show(stateBrowser)
		case key.Matches(msg, km.Reload):
			return loadAgentsCmd(a.ctx)
		case key.Matches(msg, km.PageUp, km.PageDown):
			var cmd tea.Cmd
			a.calls, cmd = a.calls.Update(msg)
			return cmd
		default:
			before := a.table.Cursor()
			var cmd tea.Cmd
			a.table, cmd = a.table.Update(msg)
			if a.table.Cursor() != before {
				a.fillCalls()
			}
			return cmd
		}
	}
	return nil
}

func (a *agents) View() string {
	st := a.ctx.Styles
	title := st.Title.Render(" TransitBench") + st.Dim.Render(" · agent sessions") + "\n"
	switch {
	case !a.loaded:
		return title + st.Dim.Render("loading the agent sessions…")
	case a.err != nil:
		return title + st.Error.Render("cannot list the agent sessions: "+termtext.Text(a.err.Error()))
	case len(a.sessions) == 0:
		return title + st.Dim.Render("no agent sessions yet: 'transitbench mcp' records each session and its tool calls")
	}
	s := a.selected()
	status := fitStatus(a.width, val(0, st.Title.Render(fmt.Sprintf("%d sessions", len(a.sessions)))),
		val(1, st.Dim.Render("turns, tokens, hours (start to last call): spent/budget")))
	callsFields := []statusField{val(0, st.PanelTitle.Render(fmt.Sprintf("tool calls of %s: %d", termtext.Line(s.ID), len(s.Calls))))}
	if a.calls.TotalLineCount() > a.calls.Height {
		callsFields = append(callsFields, val(1, st.Dim.Render(fmt.Sprintf("(%.0f%%, pgup/pgdn)", a.calls.ScrollPercent()*100))))
	}
	callsTitle := fitStatus(a.width, callsFields...)
	return title + status + "\n" + a.table.View() + "\n" + callsTitle + "\n" + a.calls.View()
}

// agentKeys is the agent sessions screen's help: its own keys, then help and quit (the run keys do not apply).
type agentKeys struct{ km *KeyMap }

func (k agentKeys) ShortHelp() []key.Binding {
	km := k.km
	return []key.Binding{km.Up, km.Down, km.PageDown, km.Reload, km.Back, km.Help, km.Quit}
}

func (k agentKeys) FullHelp() [][]key.Binding {
	km := k.km
	return [][]key.Binding{{km.Up, km.Down, km.PageUp, km.PageDown}, {km.Reload, km.Back}, {km.Help, km.Quit}}
}

func (a *agents) Keys() help.KeyMap { return agentKeys{a.ctx.Keys} }

func (a *agents) Enter() tea.Cmd  { return loadAgentsCmd(a.ctx) }
func (a *agents) Capturing() bool { return false }
func (a *agents) RunKeys() bool   { return false }
