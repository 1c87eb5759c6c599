package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds every key binding of the interface. The screens' help bars are generated from it (each screen
// picks its bindings in a help.KeyMap of its own), so the bar never disagrees with what the keys do.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Open, Back, Quit, Help key.Binding

	// Star browser.
	Search, Category, Population, MES, Outcome, Sort, Reverse key.Binding

	// Star view.
	PrevStar, NextStar, Panel, Detrended, Row, Truth, Peak, OddEven, Secondary, NextPlanet key.Binding
	// Star view, as lightkurve's users work: a fold at a typed ephemeris, the light curve zoomed and panned in
	// time, the detrending window, and the fold and periodogram written as CSV.
	FoldAt, ZoomIn, ZoomOut, PanLeft, PanRight, Narrower, Wider, Export key.Binding

	// Screens and runs.
	Dev, Grade, Cancel, Confirm, Again key.Binding

	// RV track: the task browser (RV from the star browser) and the task view's planet table.
	RV, Tier, Edit, CellLeft, CellRight, AddPlanet, DelPlanet, Fit, SearchRV, Residuals, Submit, Deny key.Binding

	// Agent sessions (a from the star browser): the MCP server's sessions and their tool calls.
	Agents, Reload key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() *KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &KeyMap{
		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		PageUp:   b("pgup", "page up", "pgup"),
		PageDown: b("pgdn", "page down", "pgdown"),
		Open:     b("enter", "open", "enter"),
		Back:     b("esc", "back", "esc"),
		Quit:     b("q", "quit", "q", "ctrl+c"),
		Help:     b("?", "help", "?"),

		Search:     b("/", "search", "/"),
		Category:   b("c", "category", "c"),
		Population: b("p", "population", "p"),
		MES:        b("m", "MES bin", "m"),
		Outcome:    b("o", "outcome", "o"),
		Sort:       b("s", "sort", "s"),
		Reverse:    b("r", "reverse", "r"),

		PrevStar:  b("←/h", "prev star", "left", "h"),
		NextStar:  b("→/l", "next star", "right", "l"),
		Panel:     b("tab", "panel", "tab"),
		Detrended: b("x", "raw/detrended", "x"),
		Row:       b("1-3", "fold at row", "1", "2", "3"),
		Truth:     b("t", "fold at truth", "t"),
		Peak:      b("p", "fold at peak", "p"),
		OddEven:   b("o", "odd/even", "o"),
		Secondary: b("s", "secondary", "s"),
		// NextPlanet masks the strongest signal's transits, searches again and folds at what comes next.
		NextPlanet: b("n", "next planet after masking", "n"),
		FoldAt:     b("f", "fold at P, t0", "f"),
		ZoomIn:     b("+", "zoom in", "+", "="),
		ZoomOut:    b("-", "zoom out", "-"),
		PanLeft:    b("<", "earlier", "<", ","),
		PanRight:   b(">", "later", ">", "."),
		Narrower:   b("[", "shorter detrend window", "["),
		Wider:      b("]", "longer detrend window", "]"),
		Export:     b("e", "export CSV", "e"),

		Dev:     b("d", "dev run", "d"),
		Grade:   b("g", "grade", "g"),
		Cancel:  b("esc", "cancel", "esc"),
		Confirm: b("y", "confirm", "y"),
		Again:   b("A", "grade again", "A"),

		RV:        b("R", "RV tasks", "R"),
		Tier:      b("tab", "tier", "tab"),
		Edit:      b("enter", "edit", "enter"),
		CellLeft:  b("←/h", "column", "left", "h"),
		CellRight: b("→/l", "column", "right", "l"),
		AddPlanet: b("a", "add planet at peak", "a"),
		DelPlanet: b("x", "remove planet", "x"),
		Fit:       b("f", "fit", "f"),
		SearchRV:  b("F", "search", "F"),
		Residuals: b("r", "data/resid", "r"),
		Submit:    b("S", "submit", "S"),
		Deny:      b("n", "no", "n"),

		Agents: b("a", "agent sessions", "a"),
		Reload: b("r", "reload", "r"),
	}
}

// ShortHelp implements help.KeyMap with the global bindings of the transit screens.
func (k *KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Dev, k.Grade, k.Help, k.Quit} }

// FullHelp implements help.KeyMap with the same global bindings, as the last group of a screen's full help.
func (k *KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
