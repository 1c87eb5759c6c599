package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

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

// agentColumns sizes the sessions table's columns for width w (80 shows them all); the session id (16 hex
// digits, cut on narrow terminals) and the client take what is left.
func agentColumns(w int) []table.Column {
	cols := []table.Column{
		{Title: "session", Width: 6}, {Title: "client", Width: 9}, {Title: "preset", Width: 6},
		{Title: "started", Width: 11}, {Title: "turns", Width: 7}, {Title: "tokens", Width: 9},
		{Title: "hours", Width: 8}, {Title: "refused", Width: 7},
	}
	used := 0
	for _, c := range cols {
		used += c.Width + 2 // the table pads each cell by one on each side
	}
	if extra := w - used; extra > 0 {
		id := min(extra/2, 10)
		cols[0].Width += id
		cols[1].Width += extra - id
	}
	return cols
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
	a.table.SetWidth(w)
	a.table.SetColumns(agentColumns(w))
	a.calls.Width = max(w, 1)
	a.layout()
	a.fillCalls()
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
	for i, s := range a.sessions {
		rows[i] = table.Row{termtext.Line(s.ID), termtext.Line(s.Client), s.Preset, s.Started.Local().Format("01-02 15:04"),
			fmt.Sprintf("%d/%d", s.Turns, s.BudgetTurns), formatTokens(s.Tokens) + "/" + formatTokens(s.BudgetTokens),
			fmt.Sprintf("%.2f/%g", s.Hours(), s.BudgetHours), fmt.Sprint(s.Refused)}
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
	}
	a.calls.SetContent(strings.Join(lines, "\n"))
	a.calls.GotoTop()
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
	status := st.Title.Render(fmt.Sprintf("%d sessions", len(a.sessions))) +
		st.Dim.Render("  turns, tokens, hours (start to last call): spent/budget")
	callsTitle := st.PanelTitle.Render(fmt.Sprintf("tool calls of %s: %d", termtext.Line(s.ID), len(s.Calls)))
	if n := len(s.Calls); n > a.calls.Height-1 {
		callsTitle += st.Dim.Render(fmt.Sprintf("  (%.0f%%, pgup/pgdn)", a.calls.ScrollPercent()*100))
	}
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
