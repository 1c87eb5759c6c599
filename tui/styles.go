package tui

import (
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/lipgloss"

	"transitbench/grader/store"
	"transitbench/workspace/chart"
)

// Theme is the palette the styles are built from. Colours adapt to light and dark terminals.
type Theme struct {
	Fg, Dim, Subtle, Accent, Border, BorderFocus lipgloss.AdaptiveColor
	Data, Flag, Binned, Peak, Current            lipgloss.AdaptiveColor
	Hit, Half, False, Missed, Quiet              lipgloss.AdaptiveColor
	// BarFrom and BarTo are the progress bars' gradient, as hex colours (the gradient is blended in RGB).
	BarFrom, BarTo string
	// Instruments are the RV plots' colours, one per instrument (cycled when a task has more).
	Instruments []lipgloss.AdaptiveColor
}

// DefaultTheme is the palette used unless a test or a flag asks for another.
var DefaultTheme = Theme{
	Fg:          lipgloss.AdaptiveColor{Light: "235", Dark: "252"},
	Dim:         lipgloss.AdaptiveColor{Light: "245", Dark: "243"},
	Subtle:      lipgloss.AdaptiveColor{Light: "250", Dark: "238"},
	Accent:      lipgloss.AdaptiveColor{Light: "25", Dark: "75"},
	Border:      lipgloss.AdaptiveColor{Light: "250", Dark: "240"},
	BorderFocus: lipgloss.AdaptiveColor{Light: "25", Dark: "75"},
	Data:        lipgloss.AdaptiveColor{Light: "240", Dark: "250"},
	Flag:        lipgloss.AdaptiveColor{Light: "166", Dark: "208"},
	Binned:      lipgloss.AdaptiveColor{Light: "25", Dark: "81"},
	Peak:        lipgloss.AdaptiveColor{Light: "130", Dark: "179"},
	Current:     lipgloss.AdaptiveColor{Light: "161", Dark: "205"},
	Hit:         lipgloss.AdaptiveColor{Light: "28", Dark: "42"},
	Half:        lipgloss.AdaptiveColor{Light: "136", Dark: "221"},
	False:       lipgloss.AdaptiveColor{Light: "160", Dark: "203"},
	Missed:      lipgloss.AdaptiveColor{Light: "130", Dark: "173"},
	Quiet:       lipgloss.AdaptiveColor{Light: "245", Dark: "243"},
	BarFrom:     "#5A56E0",
	BarTo:       "#EE6FF8",
	Instruments: []lipgloss.AdaptiveColor{
		{Light: "25", Dark: "81"}, {Light: "130", Dark: "179"}, {Light: "28", Dark: "42"},
		{Light: "90", Dark: "177"}, {Light: "166", Dark: "208"}, {Light: "30", Dark: "44"},
	},
}

// Styles are every lipgloss style the screens use, built once from a Theme.
type Styles struct {
	App, Header, Title, Dim, Accent, Error lipgloss.Style
	Border, BorderFocus, PanelTitle        lipgloss.Style
	Selected                               lipgloss.Style
	Ink                                    map[chart.Ink]lipgloss.Style
	Outcome                                map[string]lipgloss.Style
	// BarFrom and BarTo are the progress bars' gradient (Theme.BarFrom, BarTo).
	BarFrom, BarTo string
	// Instrument colours the RV plots' data, one style per instrument (Theme.Instruments).
	Instrument []lipgloss.Style
	// Call colours the status of an agent's tool call (store.CallOK, CallError, CallRefused).
	Call map[string]lipgloss.Style
}

// NewStyles builds the styles of theme t.
func NewStyles(t Theme) *Styles {
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	return &Styles{
		App:         lipgloss.NewStyle(),
		Header:      fg(t.Fg).Bold(true),
		Title:       fg(t.Accent).Bold(true),
		Dim:         fg(t.Dim),
		Accent:      fg(t.Accent),
		Error:       fg(t.False).Bold(true),
		Border:      fg(t.Border),
		BorderFocus: fg(t.BorderFocus),
		PanelTitle:  fg(t.Fg).Bold(true),
		Selected:    fg(t.Current).Bold(true),
		Ink: map[chart.Ink]lipgloss.Style{
			chart.AxisInk:    fg(t.Dim),
			chart.InkData:    fg(t.Data),
			chart.InkFlag:    fg(t.Flag),
			chart.InkBinned:  fg(t.Binned).Bold(true),
			chart.InkPeak:    fg(t.Peak),
			chart.InkCurrent: fg(t.Current).Bold(true),
		},
		Outcome: map[string]lipgloss.Style{
			"hit":     fg(t.Hit).Bold(true),
			"half":    fg(t.Half).Bold(true),
			"false":   fg(t.False).Bold(true),
			"missed":  fg(t.Missed),
			"quiet":   fg(t.Quiet),
			"ignored": fg(t.Quiet),
		},
		BarFrom:    t.BarFrom,
		BarTo:      t.BarTo,
		Instrument: instrumentStyles(t.Instruments, fg),
		Call: map[string]lipgloss.Style{
			store.CallOK:      fg(t.Hit),
			store.CallError:   fg(t.Half),
			store.CallRefused: fg(t.False).Bold(true),
		},
	}
}

// instrumentStyles is one style per instrument colour; a theme without any draws every instrument as data.
func instrumentStyles(colours []lipgloss.AdaptiveColor, fg func(lipgloss.AdaptiveColor) lipgloss.Style) []lipgloss.Style {
	var out []lipgloss.Style
	for _, c := range colours {
		out = append(out, fg(c))
	}
	return out
}

// Table is the styles of a table: bubbles' default padding, the header in the title's colour, the selected
// row as Selected.
func (s *Styles) Table() table.Styles {
	st := table.DefaultStyles()
	st.Header = st.Header.Foreground(s.Title.GetForeground()).Bold(true)
	st.Selected = s.Selected
	return st
}

// Paint colours a run of plot cells by its ink; it is the paint function given to the chart package.
func (s *Styles) Paint(ink chart.Ink, text string) string {
	st, ok := s.Ink[ink]
	if !ok {
		return text
	}
	return st.Render(text)
}

// OutcomeStyle returns the style of an outcome word (hit, half, false, missed, quiet, ignored).
func (s *Styles) OutcomeStyle(outcome string) lipgloss.Style {
	if st, ok := s.Outcome[outcome]; ok {
		return st
	}
	return s.Dim
}

// CallStatus returns the style of an agent tool call's status (ok, error, refused).
func (s *Styles) CallStatus(status string) lipgloss.Style {
	if st, ok := s.Call[status]; ok {
		return st
	}
	return s.Dim
}
