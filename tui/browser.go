package tui

import (
	"fmt"
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
	b.table.SetWidth(w)
	b.table.SetHeight(max(h-3, 3)) // the status line, the search line and the table's header
	b.table.SetColumns(browserColumns(w))
	b.refresh()
}

// browserColumns sizes the table's columns for width w: id, category, population, MES, CDPP, Kp, last outcome.
func browserColumns(w int) []table.Column {
	cols := []table.Column{
		{Title: "star", Width: 10}, {Title: "category", Width: 9}, {Title: "population", Width: 11},
		{Title: "MES", Width: 5}, {Title: "CDPP6h", Width: 6}, {Title: "Kp", Width: 5}, {Title: "last run", Width: 8},
	}
	used := 0
	for _, c := range cols {
		used += c.Width + 2 // the table pads each cell by one on each side
	}
	if extra := w - used; extra > 0 {
		cols[0].Width += extra / 3
		cols[2].Width += extra / 3
	}
	return cols
}

func (b *browser) refresh() {
	sel := ""
	if r := b.table.SelectedRow(); len(r) > 0 {
		sel = r[0]
	}
	b.shown = filterStars(b.all, b.filter)
	sortStars(b.shown, b.sortBy, b.reverse)
	rows := make([]table.Row, len(b.shown))
	cursor := 0
	for i, s := range b.shown {
		out := s.Outcome
		if out == "" {
			out = "–"
		}
		rows[i] = table.Row{s.ID, s.Category, shortPopulation(s.Population), formatNum(s.MES, 1, true),
			formatNum(s.CDPP6, 0, true), formatNum(s.Kepmag, 1, true), out}
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

func (b browser) status() string {
	st := b.ctx.Styles
	show := func(name, v string) string {
		if v == "" {
			v = "all"
		}
		return st.Dim.Render(name+" ") + v
	}
	dir := "↑"
	if b.reverse {
		dir = "↓"
	}
	return fmt.Sprintf("%s  %s  %s  %s  %s  %s  %s",
		st.Title.Render(fmt.Sprintf("%d/%d stars", len(b.shown), len(b.all))),
		show("category", b.filter.Category), show("population", b.filter.Population), show("MES", b.filter.MES),
		show("last run", b.filter.Outcome), show("sort", b.sortBy+dir), st.Dim.Render(b.filter.Text))
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
