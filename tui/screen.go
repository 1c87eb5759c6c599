package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"
)

// screen is one full-screen view of the interface. The root model keeps one of each, behind a pointer (the root
// is a value, as bubbletea's models are, and its copies share the screens), sends the active screen the keys
// and every message not addressed to another, and draws it between the top of the terminal and the help bar.
type screen interface {
	// Update handles a message: a key while the screen shows, or one of its data messages whatever shows.
	Update(msg tea.Msg) tea.Cmd
	// View draws the screen in the area SetSize gave it.
	View() string
	// SetSize gives the screen its area: the terminal's width, the height above the help bar.
	SetSize(w, h int)
	// Keys is the screen's help: ShortHelp the bar, FullHelp what ? shows (the screen's own bindings, then
	// the global ones it honours).
	Keys() help.KeyMap
	// Enter is called when a global key (d, g, R) switches to the screen.
	Enter() tea.Cmd
	// Capturing reports whether every key is the screen's (a search or a cell being typed, a confirmation),
	// so that the global keys other than ctrl+c do not apply.
	Capturing() bool
	// RunKeys reports whether the global run keys (d: dev run, g: grade) apply on the screen: the transit
	// screens' keys, not the RV track's.
	RunKeys() bool
}

// showMsg asks the root to show screen to; enter calls its Enter.
type showMsg struct {
	to    state
	enter bool
}

// show is the command that switches to screen to (esc's way back, say).
func show(to state) tea.Cmd { return func() tea.Msg { return showMsg{to: to} } }

// backMsg asks the root to leave the dev or grade screen for the screen it came from; reload reloads the
// star shown there (its rows change after a dev run).
type backMsg struct{ reload bool }

func back(reload bool) tea.Cmd { return func() tea.Msg { return backMsg{reload: reload} } }

// screenKeys is the help.KeyMap of a transit screen: its own bindings, then the global ones (KeyMap.ShortHelp
// and FullHelp). full groups the bindings ? lists; nil lists short as one group.
type screenKeys struct {
	short []key.Binding
	full  [][]key.Binding
	km    *KeyMap
}

func (s screenKeys) ShortHelp() []key.Binding {
	out := append([]key.Binding{}, s.short...)
	seen := map[string]bool{}
	for _, b := range s.short {
		seen[b.Help().Key] = true
	}
	for _, b := range s.km.ShortHelp() {
		if !seen[b.Help().Key] {
			out = append(out, b)
		}
	}
	return out
}

func (s screenKeys) FullHelp() [][]key.Binding {
	own := s.full
	if own == nil {
		own = [][]key.Binding{s.short}
	}
	seen := map[string]bool{}
	for _, group := range own {
		for _, b := range group {
			seen[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	out := append([][]key.Binding{}, own...)
	for _, group := range s.km.FullHelp() {
		var global []key.Binding
		for _, b := range group {
			if !seen[b.Help().Key+" "+b.Help().Desc] {
				global = append(global, b)
			}
		}
		out = append(out, global)
	}
	return out
}

// quitOnly is the help of the opening screen, where the only key is quit.
type quitOnly struct{ quit key.Binding }

func (q quitOnly) ShortHelp() []key.Binding  { return []key.Binding{q.quit} }
func (q quitOnly) FullHelp() [][]key.Binding { return [][]key.Binding{{q.quit}} }

// step runs a screen's value-returning update on the screen p points to, as its Update.
func step[T any](p *T, update func(T, tea.Msg) (T, tea.Cmd), msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*p, cmd = update(*p, msg)
	return cmd
}

// The RV screens keep their value-returning update and view (rv*.go); these adapters make them screens.

// rvBrowserScreen is the RV task browser as a screen: esc returns to the star browser (unless a task's start is
// being confirmed), R (re)loads its rows.
type rvBrowserScreen struct{ b *rvBrowser }

func (s rvBrowserScreen) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && !s.Capturing() && key.Matches(k, s.b.ctx.Keys.Back) {
		return show(stateBrowser)
	}
	return step(s.b, rvBrowser.update, msg)
}

func (s rvBrowserScreen) View() string {
	st := s.b.ctx.Styles
	return st.Title.Render(" TransitBench") + st.Dim.Render(" · RV tasks") + "\n" + s.b.view()
}

func (s rvBrowserScreen) SetSize(w, h int)  { s.b.setSize(w, h-1) }
func (s rvBrowserScreen) Keys() help.KeyMap { return s.b.keys() }
func (s rvBrowserScreen) Enter() tea.Cmd    { return loadRVTasksCmd(s.b.ctx) }
func (s rvBrowserScreen) Capturing() bool   { return s.b.confirming != "" }
func (s rvBrowserScreen) RunKeys() bool     { return false }

// rvTaskScreen is the RV task view as a screen: esc returns to the RV browser unless a cell is being edited
// or a submission confirmed.
type rvTaskScreen struct{ v *rvTask }

func (s rvTaskScreen) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && !s.Capturing() && key.Matches(k, s.v.ctx.Keys.Back) {
		return show(stateRVBrowser)
	}
	return step(s.v, rvTask.update, msg)
}

func (s rvTaskScreen) View() string      { return s.v.view() }
func (s rvTaskScreen) SetSize(w, h int)  { s.v.setSize(w, h) }
func (s rvTaskScreen) Keys() help.KeyMap { return s.v.keys() }
func (s rvTaskScreen) Enter() tea.Cmd    { return nil }
func (s rvTaskScreen) Capturing() bool   { return s.v.editing || s.v.confirming }
func (s rvTaskScreen) RunKeys() bool     { return false }

// newBar is a progress bar in the theme's gradient.
func newBar(st *Styles) progress.Model {
	return progress.New(progress.WithGradient(st.BarFrom, st.BarTo))
}
