package tui

import (
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"transitbench/internal/termtext"
)

// state names the screen the root model shows.
type state int

const (
	stateOpening state = iota
	stateBrowser
	stateStar
	stateDev
	stateGrade
	stateRVBrowser
	stateRVTask
	stateAgents
	stateCount
)

// Opener opens the backend, reporting progress (building the dev set on first use, say).
type Opener func(ctx context.Context, progress func(Progress)) (Backend, error)

// Model is the root model: it opens the backend, owns the screens, handles the global keys (quit, help, and on
// the transit screens the run keys d and g) and passes everything else to the active screen, or to the screen
// a data message is for. Like the screens it is a value: each Update changes a copy and returns it.
type Model struct {
	ctx    *ProgramContext
	cancel context.CancelFunc
	open   Opener
	state  state
	prev   state // where esc returns to from the dev and grade screens
	help   help.Model

	opening   opening
	browser   browser
	star      starview
	dev       devrun
	grade     grade
	rvBrowser rvBrowser
	rvTask    rvTask
	agents    agents
}

// screens gives each state its screen within a model; the screen changes the model it was taken from.
var screens = [stateCount]func(m *Model) screen{
	stateOpening:   func(m *Model) screen { return &m.opening },
	stateBrowser:   func(m *Model) screen { return &m.browser },
	stateStar:      func(m *Model) screen { return &m.star },
	stateDev:       func(m *Model) screen { return &m.dev },
	stateGrade:     func(m *Model) screen { return &m.grade },
	stateRVBrowser: func(m *Model) screen { return rvBrowserScreen{&m.rvBrowser} },
	stateRVTask:    func(m *Model) screen { return rvTaskScreen{&m.rvTask} },
	stateAgents:    func(m *Model) screen { return &m.agents },
}

// screen is the screen of state s.
func (m *Model) screen(s state) screen { return screens[s](m) }

// active is the screen showing.
func (m *Model) active() screen { return m.screen(m.state) }

// New returns the root model; open is called (in a command) when the program starts. logger may be nil.
func New(open Opener, logger *log.Logger) Model {
	ctx, cancel := context.WithCancel(context.Background())
	pc := &ProgramContext{Styles: NewStyles(DefaultTheme), Keys: DefaultKeyMap(), Ctx: ctx, Log: logger,
		Width: 80, Height: 24}
	m := Model{ctx: pc, cancel: cancel, open: open, help: help.New(), opening: opening{ctx: pc, bar: newBar(pc.Styles)}}
	m.browser, m.star, m.dev, m.grade = newBrowser(pc), newStarview(pc), newDevrun(pc), newGrade(pc)
	m.rvBrowser, m.rvTask, m.agents = newRVBrowser(pc), newRVTask(pc), newAgents(pc)
	m.resize(80, 24)
	return m
}

// openProgressMsg is a step of opening the backend; openedMsg ends it.
type openProgressMsg struct {
	ch <-chan tea.Msg
	p  Progress
}

type openedMsg struct {
	backend Backend
	err     error
}

// Init implements tea.Model: it starts opening the backend, streaming its progress.
func (m Model) Init() tea.Cmd {
	ch := make(chan tea.Msg, 16)
	open, ctx := m.open, m.ctx.Ctx
	go func() {
		b, err := open(ctx, func(p Progress) {
			select {
			case ch <- openProgressMsg{ch: ch, p: p}:
			default: // the screen is behind: drop a step rather than slow the build
			}
		})
		ch <- openedMsg{b, err}
		close(ch)
	}()
	return waitNext(ch)
}

// Update implements tea.Model: global messages first, then the screens' own.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	case openedMsg:
		if msg.err != nil {
			m.ctx.logf("open: %v", msg.err)
			return m, m.opening.Update(msg)
		}
		m.ctx.Backend = msg.backend
		m.ctx.logf("opened the backend")
		m.state = stateBrowser
		return m, loadStarsCmd(m.ctx)
	case showMsg:
		return m.show(msg.to, msg.enter)
	case backMsg:
		m.state = m.back()
		m.relayout()
		if msg.reload {
			return m, m.reloadStar()
		}
		return m, nil
	case openStarMsg:
		m.state = stateStar
		m.relayout()
		return m, m.star.Update(msg)
	case runEventMsg, runDoneMsg:
		if done, ok := msg.(runDoneMsg); ok {
			m.ctx.logf("run ended: error %v", done.err)
		}
		return m.routeRun(msg)
	case starLoadedMsg:
		if msg.err != nil {
			m.ctx.logf("load %s: %v", msg.id, msg.err)
		} else {
			m.ctx.logf("loaded %s in %v", msg.id, msg.elapsed.Round(time.Millisecond))
		}
	case rvMsg:
		return m.routeRV(msg)
	}
	if to, ok := owner(msg); ok {
		return m, m.screen(to).Update(msg)
	}
	return m, m.active().Update(msg)
}

// owner is the screen a data message is for, whatever screen shows.
func owner(msg tea.Msg) (state, bool) {
	switch msg.(type) {
	case openProgressMsg:
		return stateOpening, true
	case starsLoadedMsg:
		return stateBrowser, true
	case starLoadedMsg, foldedMsg, nextPlanetMsg, detrendedMsg, exportedMsg:
		return stateStar, true
	case gradeInfoMsg:
		return stateGrade, true
	case agentsLoadedMsg:
		return stateAgents, true
	}
	return 0, false
}

// routeRun sends a run's messages to the screen that started it, whichever screen is showing.
func (m Model) routeRun(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.grade.running() {
		return m, m.grade.Update(msg)
	}
	cmd := m.dev.Update(msg)
	if _, done := msg.(runDoneMsg); done && m.ctx.Backend != nil {
		// The browser's last-outcome column and the star view's rows change after a run.
		return m, tea.Batch(cmd, loadStarsCmd(m.ctx))
	}
	return m, cmd
}

// handleKey handles the global keys, then passes the key to the active screen. While the screen captures the
// keys (typing) only ctrl+c is global.
func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	km := m.ctx.Keys
	s := m.active()
	switch {
	case msg.String() == "ctrl+c":
		return m.quit()
	case s.Capturing():
		return m, s.Update(msg)
	case key.Matches(msg, km.Quit):
		return m.quit()
	case key.Matches(msg, km.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.resize(m.ctx.Width, m.ctx.Height)
		return m, nil
	case !s.RunKeys():
	case key.Matches(msg, km.Dev) && m.state != stateDev && m.state != stateGrade:
		return m.show(stateDev, true)
	case key.Matches(msg, km.Grade) && m.state != stateGrade && !m.dev.running:
		return m.show(stateGrade, true)
	}
	return m, s.Update(msg)
}

// show switches to screen to (remembering where the dev and grade screens were entered from), calling its
// Enter when enter is set.
func (m Model) show(to state, enter bool) (tea.Model, tea.Cmd) {
	if to == stateDev || to == stateGrade {
		m.prev = m.state
	}
	m.state = to
	m.relayout()
	if enter {
		return m, m.active().Enter()
	}
	return m, nil
}

// back is the screen esc returns to from the dev and grade screens.
func (m Model) back() state {
	if m.prev == stateStar {
		return stateStar
	}
	return stateBrowser
}

// reloadStar reloads the star shown, so its rows reflect the latest run.
func (m *Model) reloadStar() tea.Cmd {
	if m.state != stateStar || m.star.currentID() == "" {
		return nil
	}
	var cmd tea.Cmd
	m.star, cmd = m.star.load()
	return cmd
}

func (m Model) quit() (tea.Model, tea.Cmd) {
	m.cancel()
	return m, tea.Quit
}

// resize gives every screen the area above the help bar of the active screen.
func (m *Model) resize(w, h int) {
	m.ctx.Width, m.ctx.Height = w, h
	m.help.Width = w
	helpH := strings.Count(m.help.View(m.keys()), "\n") + 1
	bodyH := max(h-helpH, 1)
	for s := range stateCount {
		m.screen(s).SetSize(w, bodyH)
	}
}

// relayout resizes the screens after a switch when the full help shows: its height is the new screen's. (The
// short help is one line on every screen.)
func (m *Model) relayout() {
	if m.help.ShowAll {
		m.resize(m.ctx.Width, m.ctx.Height)
	}
}

// keys is the help.KeyMap of the screen showing.
func (m *Model) keys() help.KeyMap { return m.active().Keys() }

// View implements tea.Model.
func (m Model) View() string {
	w, h := m.ctx.Width, m.ctx.Height
	helpView := m.help.View(m.keys())
	helpLines := strings.Split(helpView, "\n")
	for i, l := range helpLines {
		if lipgloss.Width(l) > w {
			helpLines[i] = ansi.Truncate(l, w-1, "…")
		}
	}
	helpView = strings.Join(helpLines, "\n")
	bodyH := max(h-strings.Count(helpView, "\n")-1, 1)
	// The screens show what solutions, task files and agents wrote through termtext.Text and Line; Styled is
	// the net under them all, letting only the views' own SGR styling reach the terminal as escape sequences.
	return fitLines(termtext.Styled(m.active().View()), w, bodyH) + "\n" + helpView
}

// opening is the screen shown while the backend opens: the steps of building the dev set, or why it failed.
type opening struct {
	ctx *ProgramContext
	p   Progress
	err error
	bar progress.Model
}

func (o *opening) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case openProgressMsg:
		o.p = msg.p
		return waitNext(msg.ch)
	case openedMsg:
		o.err = msg.err
	}
	return nil
}

func (o *opening) View() string {
	st := o.ctx.Styles
	if o.err != nil {
		return st.Error.Render("cannot open the workspace: "+termtext.Text(o.err.Error())) + "\n" + st.Dim.Render("press q to quit")
	}
	p := o.p
	s := st.Title.Render("TransitBench") + "\n\n"
	if p.Step == "" {
		return s + st.Dim.Render("opening the workspace…")
	}
	frac := 0.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	return s + fmt.Sprintf("%s\n%s  %d/%d", p.Step, o.bar.ViewAs(frac), p.Done, p.Total)
}

func (o *opening) SetSize(w, h int)  { o.bar.Width = max(min(w-20, 60), 10) }
func (o *opening) Keys() help.KeyMap { return quitOnly{o.ctx.Keys.Quit} }
func (o *opening) Enter() tea.Cmd    { return nil }
func (o *opening) Capturing() bool   { return false }
func (o *opening) RunKeys() bool     { return false }

// State names for tests and logs.
func (s state) String() string {
	return [...]string{"opening", "browser", "star", "dev", "grade", "rv browser", "rv task", "agents"}[s]
}

// RunReal runs the interface over the real backend (OpenReal with opt), logging to logPath.
func RunReal(opt OpenOptions, logPath string) error {
	return Run(func(ctx context.Context, progress func(Progress)) (Backend, error) {
		return OpenReal(ctx, opt, progress)
	}, logPath)
}

// Run runs the interface full-screen until the user quits, logging to logPath (the terminal belongs to the
// interface, so nothing else may write to stdout).
func Run(open Opener, logPath string) error {
	f, err := tea.LogToFile(logPath, "tui")
	if err != nil {
		return fmt.Errorf("cannot open the log file %s: %w", logPath, err)
	}
	defer f.Close()
	logger := log.New(f, "tui ", log.LstdFlags)
	m := New(open, logger)
	_, err = tea.NewProgram(m, tea.WithAltScreen()).Run()
	m.cancel()
	return err
}
