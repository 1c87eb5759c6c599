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
)

// state is the screen the root model shows.
type state int

const (
	stateOpening state = iota
	stateBrowser
	stateStar
	stateDev
	stateGrade
	stateRVBrowser
	stateRVTask
)

// Opener opens the backend, reporting progress (building the dev set on first use, say).
type Opener func(ctx context.Context, progress func(Progress)) (Backend, error)

// Model is the root model: it opens the backend, owns the screens and routes messages to them.
type Model struct {
	ctx     *ProgramContext
	cancel  context.CancelFunc
	open    Opener
	state   state
	prev    state // where esc returns to from the dev and grade screens
	opening Progress
	openErr error
	bar     progress.Model
	help    help.Model

	browser browser
	star    starview
	dev     devrun
	grade   grade

	rvBrowser rvBrowser
	rvTask    rvTask
}

// New returns the root model; open is called (in a command) when the program starts. logger may be nil.
func New(open Opener, logger *log.Logger) Model {
	ctx, cancel := context.WithCancel(context.Background())
	pc := &ProgramContext{Styles: NewStyles(DefaultTheme), Keys: DefaultKeyMap(), Ctx: ctx, Log: logger,
		Width: 80, Height: 24}
	m := Model{ctx: pc, cancel: cancel, open: open, help: help.New(),
		bar: progress.New(progress.WithDefaultGradient())}
	m.browser, m.star, m.dev, m.grade = newBrowser(pc), newStarview(pc), newDevrun(pc), newGrade(pc)
	m.rvBrowser, m.rvTask = newRVBrowser(pc), newRVTask(pc)
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
	return waitOpen(ch)
}

func waitOpen(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

// Update implements tea.Model: global messages first, then the screen's own.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	case openProgressMsg:
		m.opening = msg.p
		return m, waitOpen(msg.ch)
	case openedMsg:
		if msg.err != nil {
			m.openErr = msg.err
			m.ctx.logf("open: %v", msg.err)
			return m, nil
		}
		m.ctx.Backend = msg.backend
		m.ctx.logf("opened the backend")
		m.state = stateBrowser
		return m, loadStarsCmd(m.ctx)
	case openStarMsg:
		m.state = stateStar
		var cmd tea.Cmd
		m.star, cmd = m.star.open(msg.ids, msg.index)
		return m, cmd
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
	}
	return m.route(msg)
}

// routeRun sends a run's messages to the screen that started it, whichever screen is showing.
func (m Model) routeRun(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if m.grade.running() {
		m.grade, cmd = m.grade.update(msg)
		return m, cmd
	}
	m.dev, cmd = m.dev.update(msg)
	if _, done := msg.(runDoneMsg); done && m.ctx.Backend != nil {
		// The browser's last-outcome column and the star view's rows change after a run.
		return m, tea.Batch(cmd, loadStarsCmd(m.ctx))
	}
	return m, cmd
}

// route passes a message to the screen showing; data messages go to their screen whatever is showing.
func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg.(type) {
	case rvMsg:
		return m.routeRV(msg)
	case starsLoadedMsg:
		m.browser, cmd = m.browser.update(msg)
		return m, cmd
	case starLoadedMsg, foldedMsg:
		m.star, cmd = m.star.update(msg)
		return m, cmd
	case gradeInfoMsg:
		m.grade, cmd = m.grade.update(msg)
		return m, cmd
	}
	switch m.state {
	case stateBrowser:
		m.browser, cmd = m.browser.update(msg)
	case stateStar:
		m.star, cmd = m.star.update(msg)
	case stateDev:
		m.dev, cmd = m.dev.update(msg)
	case stateGrade:
		m.grade, cmd = m.grade.update(msg)
	}
	return m, cmd
}

// handleKey handles the global keys, then passes the key to the screen.
func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	km := m.ctx.Keys
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	if m.state == stateOpening {
		if key.Matches(msg, km.Quit) {
			return m.quit()
		}
		return m, nil
	}
	if m.state == stateBrowser && m.browser.searching {
		return m.route(msg) // typing a search: every key is text
	}
	if m.state == stateRVBrowser || m.state == stateRVTask {
		return m.handleRVKey(msg)
	}
	switch {
	case key.Matches(msg, km.Quit):
		return m.quit()
	case key.Matches(msg, km.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.resize(m.ctx.Width, m.ctx.Height)
		return m, nil
	case key.Matches(msg, km.Dev) && m.state != stateDev && m.state != stateGrade:
		m.prev, m.state = m.state, stateDev
		if !m.dev.running && m.dev.final == nil && m.dev.err == nil {
			var cmd tea.Cmd
			m.dev, cmd = m.dev.start()
			return m, cmd
		}
		return m, nil
	case key.Matches(msg, km.Dev) && m.state == stateDev:
		var cmd tea.Cmd
		m.dev, cmd = m.dev.start()
		return m, cmd
	case key.Matches(msg, km.RV) && m.state == stateBrowser:
		return m.enterRV()
	case key.Matches(msg, km.Grade) && m.state != stateGrade && !m.dev.running:
		m.prev, m.state = m.state, stateGrade
		var cmd tea.Cmd
		m.grade, cmd = m.grade.enter()
		return m, cmd
	case key.Matches(msg, km.Back):
		switch m.state {
		case stateStar:
			m.state = stateBrowser
			return m, nil
		case stateDev:
			if m.dev.running {
				return m.route(msg) // esc cancels the run
			}
			m.state = m.back()
			return m, m.reloadStar()
		case stateGrade:
			if m.grade.running() {
				return m.route(msg)
			}
			m.state = m.back()
			return m, nil
		}
	}
	return m.route(msg)
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

// resize gives every screen the area between the title line and the help bar.
func (m *Model) resize(w, h int) {
	m.ctx.Width, m.ctx.Height = w, h
	m.help.Width = w
	helpH := strings.Count(m.help.View(m.keys()), "\n") + 1
	bodyH := max(h-helpH, 1)
	m.bar.Width = max(min(w-20, 60), 10)
	m.browser.setSize(w, bodyH-1)
	m.star.setSize(w, bodyH)
	m.dev.setSize(w, bodyH)
	m.grade.setSize(w, bodyH)
	m.rvBrowser.setSize(w, bodyH-1)
	m.rvTask.setSize(w, bodyH)
}

// keys is the help.KeyMap of the screen showing.
func (m Model) keys() help.KeyMap {
	switch m.state {
	case stateBrowser:
		return withKey(m.browser.keys(), m.ctx.Keys.RV)
	case stateStar:
		return m.star.keys()
	case stateDev:
		return m.dev.keys()
	case stateGrade:
		return m.grade.keys()
	case stateRVBrowser:
		return m.rvBrowser.keys()
	case stateRVTask:
		return m.rvTask.keys()
	}
	return quitOnly{m.ctx.Keys.Quit}
}

// quitOnly is the help of the opening screen, where the only key is quit.
type quitOnly struct{ quit key.Binding }

func (q quitOnly) ShortHelp() []key.Binding  { return []key.Binding{q.quit} }
func (q quitOnly) FullHelp() [][]key.Binding { return [][]key.Binding{{q.quit}} }

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
	var body string
	switch m.state {
	case stateOpening:
		body = m.openingView()
	case stateBrowser:
		body = m.ctx.Styles.Title.Render(" TransitBench") + m.ctx.Styles.Dim.Render(" · dev stars") + "\n" + m.browser.view()
	case stateStar:
		body = m.star.view()
	case stateDev:
		body = m.dev.view()
	case stateGrade:
		body = m.grade.view()
	case stateRVBrowser:
		body = m.ctx.Styles.Title.Render(" TransitBench") + m.ctx.Styles.Dim.Render(" · RV tasks") + "\n" + m.rvBrowser.view()
	case stateRVTask:
		body = m.rvTask.view()
	}
	return fitLines(body, w, bodyH) + "\n" + helpView
}

func (m Model) openingView() string {
	st := m.ctx.Styles
	if m.openErr != nil {
		return st.Error.Render("cannot open the workspace: "+m.openErr.Error()) + "\n" + st.Dim.Render("press q to quit")
	}
	p := m.opening
	s := st.Title.Render("TransitBench") + "\n\n"
	if p.Step == "" {
		return s + st.Dim.Render("opening the workspace…")
	}
	frac := 0.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	return s + fmt.Sprintf("%s\n%s  %d/%d", p.Step, m.bar.ViewAs(frac), p.Done, p.Total)
}

// State names for tests and logs.
func (s state) String() string {
	return [...]string{"opening", "browser", "star", "dev", "grade", "rv browser", "rv task"}[s]
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
