package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"transitbench/grader"
	"transitbench/internal/termtext"
)

// Filter choices cycled by the browser's keys; "" means any.
var (
	categoryChoices   = []string{"", "injected", "untouched", "eb", "confirmed"}
	populationChoices = []string{"", "random", "false_alarm"}
	outcomeChoices    = []string{"", "hit", "half", "missed", "false", "quiet", "ignored", "not run"}
	mesChoices        = []string{"", "4-7.1", "7.1-10", "10-20", "20+", "none"} // SPEC A5's MES bins; none: no planet
	sortChoices       = []string{"id", "mes", "cdpp", "kepmag", "outcome", "category"}
)

// starFilter selects browser rows: every set field must match; Text matches a substring of the id, the
// category or the population.
type starFilter struct {
	Text, Category, Population, Outcome, MES string
}

// mesBin names the MES bin of a star's planet (grader.MESBinName), "none" when it has no planet.
func mesBin(mes float64) string { return grader.MESBinName(mes) }

// filterStars returns the stars matching f, in their order.
func filterStars(all []StarMeta, f starFilter) []StarMeta {
	text := strings.ToLower(strings.TrimSpace(f.Text))
	var out []StarMeta
	for _, s := range all {
		if f.Category != "" && s.Category != f.Category {
			continue
		}
		if f.Population != "" && s.Population != f.Population {
			continue
		}
		if f.Outcome != "" {
			o := s.Outcome
			if o == "" {
				o = "not run"
			}
			if o != f.Outcome {
				continue
			}
		}
		if f.MES != "" && mesBin(s.MES) != f.MES {
			continue
		}
		if text != "" && !strings.Contains(strings.ToLower(s.ID+" "+s.Category+" "+s.Population), text) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// outcomeRank orders outcomes from worst to best for sorting: the stars that need attention first.
var outcomeRank = map[string]int{"false": 0, "missed": 1, "half": 2, "hit": 3, "quiet": 4, "ignored": 5, "": 6}

// sortStars sorts list in place by the key named by (one of sortChoices), ties broken by id; reverse flips
// the order.
func sortStars(list []StarMeta, by string, reverse bool) {
	less := func(a, b StarMeta) bool {
		switch by {
		case "mes":
			if a.MES != b.MES {
				return a.MES < b.MES
			}
		case "cdpp":
			if a.CDPP6 != b.CDPP6 {
				return a.CDPP6 < b.CDPP6
			}
		case "kepmag":
			if a.Kepmag != b.Kepmag {
				return a.Kepmag < b.Kepmag
			}
		case "outcome":
			if ra, rb := outcomeRank[a.Outcome], outcomeRank[b.Outcome]; ra != rb {
				return ra < rb
			}
		case "category":
			if a.Category != b.Category {
				return a.Category < b.Category
			}
		}
		return a.ID < b.ID
	}
	sort.SliceStable(list, func(i, j int) bool {
		if reverse {
			return less(list[j], list[i])
		}
		return less(list[i], list[j])
	})
}

// cycle returns the choice after cur in choices (wrapping around).
func cycle(choices []string, cur string) string {
	for i, c := range choices {
		if c == cur {
			return choices[(i+1)%len(choices)]
		}
	}
	return choices[0]
}

// browser is the star browser: a table of the dev stars with filters, sorting and search.
type browser struct {
	ctx       *ProgramContext
	all       []StarMeta
	shown     []StarMeta
	filter    starFilter
	sortBy    string
	reverse   bool
	table     table.Model
	search    textinput.Model
	searching bool
	err       error
	loaded    bool
	width     int
	msg       string // why a key did nothing, until the next key
}

func newBrowser(ctx *ProgramContext) browser {
	t := table.New(table.WithFocused(true))
	t.SetStyles(ctx.Styles.Table())
	si := textinput.New()
	si.Prompt = "/"
	si.Placeholder = "id, category or population"
	return browser{ctx: ctx, table: t, search: si, sortBy: "id"}
}

// starsLoadedMsg carries the browser's rows.
type starsLoadedMsg struct {
	stars []StarMeta
	err   error
}

func loadStarsCmd(ctx *ProgramContext) tea.Cmd {
	return func() tea.Msg {
		s, err := ctx.Backend.Stars(ctx.Ctx)
		return starsLoadedMsg{s, err}
	}
}

// openStarMsg asks the root to open the star view on ids[index].
type openStarMsg struct {
	ids   []string
	index int
}

func (b *browser) setSize(w, h int) {
	b.width = w
	b.table.SetRows(nil) // the rows may have more cells than the new columns
	b.table.SetWidth(w)
	b.table.SetHeight(max(h-3, 3)) // the status line, the search line and the table's header
	b.table.SetColumns(browserColumns(w))
	b.refresh()
}

// browserColumn is a column of the star table: its title, width and cell of a star.
type browserColumn struct {
	title string
	width int
	cell  func(s StarMeta) string
}

// browserColumnList are the star table's columns in their order; browserDropOrder is the order narrow
// terminals drop them in, so that no number is cut.
var (
	browserColumnList = []browserColumn{
		{"star", 10, func(s StarMeta) string { return s.ID }},
		{"category", 9, func(s StarMeta) string { return s.Category }},
		{"population", 11, func(s StarMeta) string { return shortPopulation(s.Population) }},
		{"MES", 5, func(s StarMeta) string { return formatNum(s.MES, 1, true) }},
		{"CDPP6h", 6, func(s StarMeta) string { return formatNum(s.CDPP6, 0, true) }},
		{"Kp", 5, func(s StarMeta) string { return formatNum(s.Kepmag, 1, true) }},
		{"last run", 8, func(s StarMeta) string {
			if s.Outcome == "" {
				return "–"
			}
			return s.Outcome
		}},
	}
	browserDropOrder = []string{"population", "Kp", "CDPP6h", "category"}
)

// browserColumnsFor chooses the table's columns for width w: all of them when they fit (the id and the
// population sharing what is left), else without the first of browserDropOrder, and so on.
func browserColumnsFor(w int) []browserColumn {
	cols := append([]browserColumn{}, browserColumnList...)
	used := func() int {
		n := 0
		for _, c := range cols {
			n += c.width + 2 // the table pads each cell by one on each side
		}
		return n
	}
	for _, drop := range browserDropOrder {
		if used() <= w {
			break
		}
		cols = slices.DeleteFunc(cols, func(c browserColumn) bool { return c.title == drop })
	}
	if extra := w - used(); extra > 0 {
		for i := range cols {
			if cols[i].title == "star" || cols[i].title == "population" {
				cols[i].width += extra / 3
			}
		}
	}
	return cols
}

// browserColumns are the bubbles table's columns of browserColumnsFor(w).
func browserColumns(w int) []table.Column {
	var out []table.Column
	for _, c := range browserColumnsFor(w) {
		out = append(out, table.Column{Title: c.title, Width: c.width})
	}
	return out
}

func (b *browser) refresh() {
	sel := b.selected()
	b.shown = filterStars(b.all, b.filter)
	sortStars(b.shown, b.sortBy, b.reverse)
	rows := make([]table.Row, len(b.shown))
	cursor := 0
	cols := browserColumnsFor(b.width)
	for i, s := range b.shown {
		for _, c := range cols {
			rows[i] = append(rows[i], c.cell(s))
		}
		if s.ID == sel {
			cursor = i
		}
	}
	b.table.SetRows(rows)
	b.table.SetCursor(cursor)
}

func (b browser) update(msg tea.Msg) (browser, tea.Cmd) {
	km := b.ctx.Keys
	switch msg := msg.(type) {
	case starsLoadedMsg:
		b.loaded, b.err = true, msg.err
		if msg.err == nil {
			b.all = msg.stars
			b.refresh()
		}
		return b, nil
	case tea.KeyMsg:
		if b.searching {
			switch msg.String() {
			case "enter", "esc":
				b.searching = false
				b.search.Blur()
				if msg.String() == "esc" {
					b.search.SetValue("")
				}
				b.filter.Text = b.search.Value()
				b.refresh()
				return b, nil
			}
			var cmd tea.Cmd
			b.search, cmd = b.search.Update(msg)
			b.filter.Text = b.search.Value()
			b.refresh()
			return b, cmd
		}
		b.msg = ""
		switch {
		case key.Matches(msg, km.Search):
			b.searching = true
			return b, b.search.Focus()
		case key.Matches(msg, km.Category):
			b.filter.Category = cycle(categoryChoices, b.filter.Category)
		case key.Matches(msg, km.Population):
			b.filter.Population = cycle(populationChoices, b.filter.Population)
		case key.Matches(msg, km.Outcome):
			b.filter.Outcome = cycle(outcomeChoices, b.filter.Outcome)
		case key.Matches(msg, km.MES):
			b.filter.MES = cycle(mesChoices, b.filter.MES)
		case key.Matches(msg, km.Sort):
			b.sortBy = cycle(sortChoices, b.sortBy)
		case key.Matches(msg, km.Reverse):
			b.reverse = !b.reverse
		case key.Matches(msg, km.Back):
			b.filter = starFilter{}
			b.search.SetValue("")
		case key.Matches(msg, km.RV):
			return b, func() tea.Msg { return showMsg{to: stateRVBrowser, enter: true} }
		case key.Matches(msg, km.Agents):
			return b, func() tea.Msg { return showMsg{to: stateAgents, enter: true} }
		case key.Matches(msg, km.Open):
			if len(b.shown) == 0 {
				b.msg = "no star to open: no star matches the filters (esc clears them)"
				if len(b.all) == 0 {
					b.msg = "no star to open: the list is empty"
				}
				return b, nil
			}
			ids := make([]string, len(b.shown))
			for i, s := range b.shown {
				ids[i] = s.ID
			}
			i := b.table.Cursor()
			return b, func() tea.Msg { return openStarMsg{ids: ids, index: i} }
		default:
			var cmd tea.Cmd
			b.table, cmd = b.table.Update(msg)
			return b, cmd
		}
		b.refresh()
	}
	return b, nil
}

// selected returns the id under the cursor, "" when the table is empty.
func (b browser) selected() string {
	if c := b.table.Cursor(); c >= 0 && c < len(b.shown) {
		return b.shown[c].ID
	}
	return ""
}

// status is the browser's status line: the count of stars shown, the filters, the sort and the search text,
// the least used filters dropped first on a narrow terminal (fitStatus); or why a key did nothing.
func (b browser) status() string {
	st := b.ctx.Styles
	if b.msg != "" {
		return st.Accent.Render(b.msg)
	}
	show := func(r int, name, v string) statusField {
		if v == "" {
			v = "all"
		}
		return val(r, st.Dim.Render(name+" ")+v) // a filter's value means nothing without its name
	}
	dir := "↑"
	if b.reverse {
		dir = "↓"
	}
	return fitStatus(b.width, val(0, st.Title.Render(fmt.Sprintf("%d/%d stars", len(b.shown), len(b.all)))),
		show(2, "category", b.filter.Category), show(3, "population", b.filter.Population), show(1, "MES", b.filter.MES),
		show(2, "last run", b.filter.Outcome), show(3, "sort", b.sortBy+dir), val(1, st.Dim.Render(b.filter.Text)))
}

func (b browser) view() string {
	if !b.loaded {
		return b.ctx.Styles.Dim.Render("loading the dev stars…")
	}
	if b.err != nil {
		return b.ctx.Styles.Error.Render("cannot list the stars: " + termtext.Text(b.err.Error()))
	}
	searchLine := ""
	if b.searching || b.search.Value() != "" {
		searchLine = b.search.View()
	}
	return b.status() + "\n" + searchLine + "\n" + b.table.View()
}

func (b browser) Keys() help.KeyMap {
	km := b.ctx.Keys
	return screenKeys{
		short: []key.Binding{km.RV, km.Open, km.Search, km.Category, km.Population, km.MES, km.Outcome, km.Sort},
		full: [][]key.Binding{
			{km.Up, km.Down, km.Open, km.Back},
			{km.Search, km.Category, km.Population, km.MES},
			{km.Outcome, km.Sort, km.Reverse, km.RV, km.Agents},
		},
		km: km,
	}
}

// The browser as a screen: its title line above the status line and the table; while a search is typed
// every key is text.

func (b *browser) Update(msg tea.Msg) tea.Cmd { return step(b, browser.update, msg) }

func (b *browser) View() string {
	st := b.ctx.Styles
	return st.Title.Render(" TransitBench") + st.Dim.Render(" · dev stars") + "\n" + b.view()
}

func (b *browser) SetSize(w, h int) { b.setSize(w, h-1) }
func (b *browser) Enter() tea.Cmd   { return nil }
func (b *browser) Capturing() bool  { return b.searching }
func (b *browser) RunKeys() bool    { return true }
