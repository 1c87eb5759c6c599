package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	tea "github.com/charmbracelet/bubbletea"

	"transitbench/data/stargazer"
	"transitbench/internal/termtext"
)

// rvBrowser is the RV task browser: a table of the tasks of one tier (or all), cycled with tab.
type rvBrowser struct {
	ctx    *ProgramContext
	all    []RVTaskMeta
	shown  []RVTaskMeta
	tier   string // "" for every tier
	table  table.Model
	err    error
	loaded bool
}

// rvTierChoices are the tiers tab cycles through.
var rvTierChoices = append([]string{""}, stargazer.Tiers...)

func newRVBrowser(ctx *ProgramContext) rvBrowser {
	t := table.New(table.WithFocused(true))
	st := table.DefaultStyles()
	st.Header = st.Header.Foreground(ctx.Styles.Title.GetForeground()).Bold(true)
	st.Selected = ctx.Styles.Selected
	t.SetStyles(st)
	return rvBrowser{ctx: ctx, table: t}
}

func (b *rvBrowser) setSize(w, h int) {
	b.table.SetWidth(w)
	b.table.SetHeight(max(h-2, 3)) // the status line and the table's header
	b.table.SetColumns(rvBrowserColumns(w))
	b.refresh()
}

// rvBrowserColumns sizes the columns for width w: task, tier, difficulty, points, instruments, span,
// submissions left, passed.
func rvBrowserColumns(w int) []table.Column {
	cols := []table.Column{
		{Title: "task", Width: 12}, {Title: "tier", Width: 6}, {Title: "diff", Width: 4}, {Title: "pts", Width: 4},
		{Title: "inst", Width: 4}, {Title: "span d", Width: 7}, {Title: "left", Width: 5}, {Title: "passed", Width: 6},
	}
	used := 0
	for _, c := range cols {
		used += c.Width + 2
	}
	if extra := w - used; extra > 0 {
		cols[0].Width += extra / 2
	}
	return cols
}

// filterRVTasks keeps the tasks of tier ("" keeps all), in the given order.
func filterRVTasks(all []RVTaskMeta, tier string) []RVTaskMeta {
	var out []RVTaskMeta
	for _, t := range all {
		if tier == "" || t.Tier == tier {
			out = append(out, t)
		}
	}
	return out
}

// rvTaskRow is a task's row of the table.
func rvTaskRow(t RVTaskMeta) table.Row {
	passed := ""
	if t.Passed {
		passed = "yes"
	}
	return table.Row{termtext.Line(t.ID), t.Tier, fmt.Sprint(t.Difficulty), fmt.Sprint(t.Points), fmt.Sprint(t.Instruments),
		fmt.Sprintf("%.0f", t.SpanDays), fmt.Sprintf("%d/%d", t.Left, t.Budget), passed}
}

func (b *rvBrowser) refresh() {
	sel := b.selected()
	b.shown = filterRVTasks(b.all, b.tier)
	rows := make([]table.Row, len(b.shown))
	cursor := 0
	for i, t := range b.shown {
		rows[i] = rvTaskRow(t)
		if t.ID == sel {
			cursor = i
		}
	}
	b.table.SetRows(rows)
	b.table.SetCursor(cursor)
}

// selected returns the id under the cursor, "" when the table is empty.
func (b rvBrowser) selected() string {
	if c := b.table.Cursor(); c >= 0 && c < len(b.shown) {
		return b.shown[c].ID
	}
	return ""
}

func (b rvBrowser) update(msg tea.Msg) (rvBrowser, tea.Cmd) {
	km := b.ctx.Keys
	switch msg := msg.(type) {
	case rvTasksLoadedMsg:
		b.loaded, b.err = true, msg.err
		if msg.err == nil {
			b.all = msg.tasks
			b.refresh()
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, km.Tier):
			b.tier = cycle(rvTierChoices, b.tier)
			b.refresh()
		case key.Matches(msg, km.Open):
			if id := b.selected(); id != "" {
				return b, func() tea.Msg { return openRVTaskMsg{id} }
			}
		default:
			var cmd tea.Cmd
			b.table, cmd = b.table.Update(msg)
			return b, cmd
		}
	}
	return b, nil
}

func (b rvBrowser) view() string {
	st := b.ctx.Styles
	if !b.loaded {
		return st.Dim.Render("loading the RV tasks…")
	}
	if b.err != nil {
		return st.Error.Render("cannot list the RV tasks: " + termtext.Text(b.err.Error()))
	}
	tier := b.tier
	if tier == "" {
		tier = "all"
	}
	passed := 0
	for _, t := range b.shown {
		if t.Passed {
			passed++
		}
	}
	status := fmt.Sprintf("%s  %s%s  %s", st.Title.Render(fmt.Sprintf("%d/%d tasks", len(b.shown), len(b.all))),
		st.Dim.Render("tier "), tier, st.Dim.Render(fmt.Sprintf("%d passed", passed)))
	return status + "\n" + b.table.View()
}

func (b rvBrowser) keys() help.KeyMap {
	km := b.ctx.Keys
	return rvKeys{short: []key.Binding{km.Open, km.Tier, km.Back}, km: km}
}
