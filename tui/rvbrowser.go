package tui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	tea "github.com/charmbracelet/bubbletea"

	"transitbench/data/stargazer"
	"transitbench/internal/termtext"
	"transitbench/workspace/rvtrack"
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
	// confirming is the task whose start the browser asks to confirm ("" when it asks nothing).
	confirming string
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
// submissions left, state.
func rvBrowserColumns(w int) []table.Column {
	cols := []table.Column{
		{Title: "task", Width: 12}, {Title: "tier", Width: 6}, {Title: "diff", Width: 4}, {Title: "pts", Width: 4},
		{Title: "inst", Width: 4}, {Title: "span d", Width: 7}, {Title: "left", Width: 5}, {Title: "state", Width: 13},
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

// rvTaskRow is a task's row of the table at now.
func rvTaskRow(t RVTaskMeta, now time.Time) table.Row {
	return table.Row{termtext.Line(t.ID), t.Tier, fmt.Sprint(t.Difficulty), fmt.Sprint(t.Points), fmt.Sprint(t.Instruments),
		fmt.Sprintf("%.0f", t.SpanDays), fmt.Sprintf("%d/%d", t.Left, t.Budget), rvStateCell(t, now)}
}

// rvStateCell is a task's state in the browser at now: "not started", the time left on its clock, "expired",
// "passed", "no subs left" or "imported".
func rvStateCell(t RVTaskMeta, now time.Time) string {
	switch {
	case t.Passed:
		return "passed"
	case t.State.State == rvtrack.StateImported:
		return "imported"
	case t.Left <= 0:
		return "no subs left"
	case t.Deadline.IsZero():
		return "not started"
	}
	left := t.Deadline.Sub(now).Seconds()
	if left <= 0 {
		return "expired"
	}
	return rvtrack.Clock(left) + " left"
}

// needsStart reports whether opening t starts its clock, which the browser asks to confirm first.
func needsStart(t RVTaskMeta) bool {
	return t.State.State == rvtrack.StateNotStarted
}

func (b *rvBrowser) refresh() {
	sel := b.selected()
	b.shown = filterRVTasks(b.all, b.tier)
	rows := make([]table.Row, len(b.shown))
	cursor := 0
	now := rvNow()
	for i, t := range b.shown {
		rows[i] = rvTaskRow(t, now)
		if t.ID == sel {
			cursor = i
		}
	}
	b.table.SetRows(rows)
	b.table.SetCursor(cursor)
}

// selected returns the id under the cursor, "" when the table is empty.
func (b rvBrowser) selected() string {
	if t, ok := b.selectedTask(); ok {
		return t.ID
	}
	return ""
}

// selectedTask returns the task under the cursor.
func (b rvBrowser) selectedTask() (RVTaskMeta, bool) {
	if c := b.table.Cursor(); c >= 0 && c < len(b.shown) {
		return b.shown[c], true
	}
	return RVTaskMeta{}, false
}

// confirmStart answers the browser's question "start task X?": y opens the task starting its clock, any other
// key leaves it not started.
func (b rvBrowser) confirmStart(msg tea.KeyMsg) (rvBrowser, tea.Cmd) {
	id := b.confirming
	b.confirming = ""
	if key.Matches(msg, b.ctx.Keys.Confirm) {
		return b, func() tea.Msg { return openRVTaskMsg{id: id, start: true} }
	}
	return b, nil
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
		if b.confirming != "" {
			return b.confirmStart(msg)
		}
		switch {
		case key.Matches(msg, km.Tier):
			b.tier = cycle(rvTierChoices, b.tier)
			b.refresh()
		case key.Matches(msg, km.Open):
			if t, ok := b.selectedTask(); ok {
				if needsStart(t) {
					b.confirming = t.ID
					return b, nil
				}
				return b, func() tea.Msg { return openRVTaskMsg{id: t.ID} }
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
	if b.confirming != "" {
		status = st.Accent.Render(startQuestion(b.confirming, b.all))
	}
	return status + "\n" + b.table.View()
}

// startQuestion asks to confirm starting task id: "Start task X? its 900 s clock starts now [y/n]".
func startQuestion(id string, tasks []RVTaskMeta) string {
	secs := 0
	for _, t := range tasks {
		if t.ID == id {
			secs = t.State.Seconds
		}
	}
	return fmt.Sprintf("Start task %s? its %d s clock starts now [y/n]", termtext.Line(id), secs)
}

func (b rvBrowser) keys() help.KeyMap {
	km := b.ctx.Keys
	if b.confirming != "" {
		return rvKeys{short: []key.Binding{km.Confirm, km.Deny}, km: km}
	}
	return rvKeys{short: []key.Binding{km.Open, km.Tier, km.Back}, km: km}
}
