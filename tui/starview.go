package tui

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"transitbench/data"
	"transitbench/workspace/chart"
	"transitbench/workspace/quicklook"
)

// Panels of the star view, in tab order.
const (
	panelLightCurve = iota
	panelCandidates
	panelPeriodogram
	panelFolded
	panelCount
)

// Panel titles, also checked by the end-to-end test.
const (
	titleLightCurve  = "Light curve"
	titlePeriodogram = "Periodogram"
	titleFolded      = "Folded"
	titleCandidates  = "Candidates"
)

// foldMode is what the folded panel shows.
type foldMode int

const (
	foldPrimary foldMode = iota
	foldOddEven
	foldSecondary
)

// starview shows one star: light curve, periodogram, candidates and the folded transit, with a status line
// under them saying what the view shows (the detrending window, the time range) or why a key did nothing.
type starview struct {
	ctx       *ProgramContext
	ids       []string
	index     int
	data      *StarData
	loadErr   error
	focus     int
	raw       bool // show the raw flux instead of the detrended flux
	target    foldTarget
	mode      foldMode
	fold      *folded
	width     int
	height    int
	loadingID string
	// searching is the id of the star whose search after masking is running ("": none).
	searching string
	// gen counts the analyses shown, so that a fold of an analysis replaced since (another detrending) is
	// not shown.
	gen int
	// msg is the status line's message (why a key did nothing, where an export went) until the next key;
	// msgErr shows it as an error.
	msg    string
	msgErr bool
	// zoom is the light curve's time range shown (BKJD days), the zero range for all of it.
	zoom [2]float64
	// autoWindow is the loaded star's own detrending window; detrending is the window being computed (0:
	// none).
	autoWindow, detrending float64
	// typing is set while an ephemeris is typed into input (f); inputErr says what is wrong with it.
	typing   bool
	input    textinput.Model
	inputErr string
}

func newStarview(ctx *ProgramContext) starview {
	in := textinput.New()
	in.Prompt = "fold at P t0 [T14]: "
	in.Placeholder = "5.3 102.1 3   (d, BKJD, h)"
	in.CharLimit = 80
	in.Cursor.SetMode(cursor.CursorStatic) // a blinking cursor would redraw the whole star view twice a second
	return starview{ctx: ctx, input: in}
}

// starLoadedMsg carries a loaded star.
type starLoadedMsg struct {
	id      string
	data    *StarData
	err     error
	elapsed time.Duration
}

// foldedMsg carries the folded panel's data for a target of analysis gen.
type foldedMsg struct {
	id     string
	gen    int
	target foldTarget
	fold   *folded
}

func loadStarCmd(ctx *ProgramContext, id string) tea.Cmd {
	return func() tea.Msg {
		start := time.Now()
		d, err := ctx.Backend.LoadStar(ctx.Ctx, id)
		return starLoadedMsg{id: id, data: d, err: err, elapsed: time.Since(start)}
	}
}

// nextPlanetMsg carries the planets quicklook.Planets found on a star: the strongest signal masked, then the next.
type nextPlanetMsg struct {
	id      string
	planets []quicklook.Planet
	err     error
}

// nextPlanetCmd masks the strongest signal of d and searches again (quicklook.Planets for two planets).
func nextPlanetCmd(d *StarData) tea.Cmd {
	a, id := d.analysis(), d.Meta.ID
	return func() tea.Msg {
		planets, err := quicklook.Planets(a, 2, 0)
		return nextPlanetMsg{id: id, planets: planets, err: err}
	}
}

// detrendedMsg carries a star analysed again with another detrending window (redetrend).
type detrendedMsg struct {
	id     string
	window float64
	data   *StarData
	err    error
}

// detrendCmd analyses d again with a detrending window of window days.
func detrendCmd(d *StarData, window float64) tea.Cmd {
	return func() tea.Msg {
		nd, err := redetrend(d, window, runtime.GOMAXPROCS(0))
		return detrendedMsg{id: d.Meta.ID, window: window, data: nd, err: err}
	}
}

// exportedMsg says where the star view's export went.
type exportedMsg struct {
	id    string
	paths []string
	err   error
}

// exportCmd writes the fold shown (its curves in mode) and the periodogram of star id as CSV into the
// workspace's exports folder: <id>-fold.csv and <id>-periodogram.csv.
func exportCmd(ctx *ProgramContext, id string, f *folded, mode foldMode, periods, power []float64) tea.Cmd {
	names, curves := []string{"transit"}, []quicklook.Curve{f.All}
	switch mode {
	case foldOddEven:
		names, curves = []string{"odd", "even"}, []quicklook.Curve{f.Odd, f.Even}
	case foldSecondary:
		names, curves = []string{"secondary"}, []quicklook.Curve{f.Secondary}
	}
	return func() tea.Msg {
		fold, err := ctx.Backend.Export(ctx.Ctx, id+"-fold.csv", func(w io.Writer) error {
			return quicklook.WriteFoldCSV(w, names, curves)
		})
		if err != nil {
			return exportedMsg{id: id, err: err}
		}
		pg, err := ctx.Backend.Export(ctx.Ctx, id+"-periodogram.csv", func(w io.Writer) error {
			return quicklook.WritePeriodogramCSV(w, periods, power)
		})
		return exportedMsg{id: id, paths: []string{fold, pg}, err: err}
	}
}

// prefetchedMsg ends a prefetch; nothing needs it.
type prefetchedMsg struct{}

// prefetchNext warms the backend for the star after the one shown.
func (s starview) prefetchNext() tea.Cmd {
	if s.index+1 >= len(s.ids) {
		return nil
	}
	id, ctx := s.ids[s.index+1], s.ctx
	return func() tea.Msg {
		ctx.Backend.Prefetch(ctx.Ctx, id)
		return prefetchedMsg{}
	}
}

func foldCmd(d *StarData, gen int, target foldTarget) tea.Cmd {
	e, ok := resolveTarget(d, target)
	if !ok {
		return nil
	}
	return func() tea.Msg { return foldedMsg{id: d.Meta.ID, gen: gen, target: target, fold: foldStar(d, e)} }
}

// open shows ids[index] and starts loading it.
func (s starview) open(ids []string, index int) (starview, tea.Cmd) {
	s.ids, s.index = ids, index
	return s.load()
}

func (s starview) load() (starview, tea.Cmd) {
	if s.index < 0 || s.index >= len(s.ids) {
		return s, nil
	}
	s.loadingID = s.ids[s.index]
	s.data, s.fold, s.loadErr = nil, nil, nil
	s.zoom, s.detrending = [2]float64{}, 0
	return s, loadStarCmd(s.ctx, s.loadingID)
}

func (s *starview) SetSize(w, h int) {
	s.width, s.height = w, h
	s.input.Width = max(w-lipgloss.Width(s.input.Prompt)-2, 10)
}

// currentID is the id of the star shown or being loaded.
func (s starview) currentID() string {
	if s.index >= 0 && s.index < len(s.ids) {
		return s.ids[s.index]
	}
	return ""
}

// defaultTarget folds at the solution's first row when there is one, else at the truth, else at the
// strongest peak.
func defaultTarget(d *StarData) foldTarget {
	if d.Result != nil && len(d.Result.Rows) > 0 {
		return foldTarget{Kind: targetRow}
	}
	if _, ok := quicklook.Truth(d.Answer); ok {
		return foldTarget{Kind: targetTruth}
	}
	return foldTarget{Kind: targetPeak}
}

// candidateTargets lists the fold targets in the order the candidates panel shows them.
func candidateTargets(d *StarData) []foldTarget {
	var out []foldTarget
	if d.Result != nil {
		for i := range d.Result.Rows {
			out = append(out, foldTarget{Kind: targetRow, Index: i})
		}
	}
	for _, k := range []targetKind{targetTruth, targetFalseAlarm, targetTyped} {
		if _, ok := resolveTarget(d, foldTarget{Kind: k}); ok {
			out = append(out, foldTarget{Kind: k})
		}
	}
	for i := range d.Peaks {
		out = append(out, foldTarget{Kind: targetPeak, Index: i})
	}
	return out
}

func (s starview) setTarget(t foldTarget) (starview, tea.Cmd) {
	if s.data == nil {
		return s, nil
	}
	if _, ok := resolveTarget(s.data, t); !ok {
		return s, nil
	}
	s.target = t
	return s, foldCmd(s.data, s.gen, t)
}

// say puts a message on the status line until the next key.
func (s *starview) say(err bool, format string, a ...any) {
	s.msg, s.msgErr = fmt.Sprintf(format, a...), err
}

func (s starview) update(msg tea.Msg) (starview, tea.Cmd) {
	switch msg := msg.(type) {
	case starLoadedMsg:
		if msg.id != s.loadingID {
			return s, nil // a star the user has already left
		}
		s.loadingID = ""
		s.data, s.loadErr = msg.data, msg.err
		if s.data == nil {
			return s, nil
		}
		s.gen++
		s.autoWindow = s.data.WindowDays
		var fold tea.Cmd
		s, fold = s.setTarget(defaultTarget(s.data))
		return s, tea.Batch(fold, s.prefetchNext())
	case foldedMsg:
		if s.data != nil && msg.id == s.data.Meta.ID && msg.gen == s.gen && msg.target == s.target {
			s.fold = msg.fold
		}
		return s, nil
	case nextPlanetMsg:
		if msg.id == s.searching {
			s.searching = ""
		}
		if s.data == nil || msg.id != s.data.Meta.ID {
			return s, nil
		}
		if msg.err != nil {
			s.say(true, "the search after masking failed: %v", msg.err)
			return s, nil
		}
		s.data.Next = append([]quicklook.Planet{}, msg.planets...) // not nil: searched
		if _, ok := resolveTarget(s.data, foldTarget{Kind: targetNext}); !ok {
			s.say(false, "no further planet: nothing at MES %.1f or more after masking the strongest signal", quicklook.DefaultMinMES)
			return s, nil
		}
		return s.setTarget(foldTarget{Kind: targetNext})
	case detrendedMsg:
		return s.detrended(msg)
	case exportedMsg:
		if msg.err != nil {
			s.say(true, "export failed: %v", msg.err)
		} else if len(msg.paths) == 2 {
			s.say(false, "wrote %s and %s in %s", filepath.Base(msg.paths[0]), filepath.Base(msg.paths[1]), filepath.Dir(msg.paths[0]))
		}
		return s, nil
	case openStarMsg:
		return s.open(msg.ids, msg.index)
	case tea.KeyMsg:
		if s.typing {
			return s.typeKey(msg)
		}
		s.msg = ""
		return s.key(msg)
	}
	return s, nil
}

// detrended shows the star analysed again with another window, folded again at the same target.
func (s starview) detrended(msg detrendedMsg) (starview, tea.Cmd) {
	if s.data == nil || msg.id != s.data.Meta.ID || msg.window != s.detrending {
		return s, nil
	}
	s.detrending = 0
	if msg.err != nil || msg.data == nil {
		s.say(true, "detrending with a %g d window failed: %v", msg.window, msg.err)
		return s, nil
	}
	s.data, s.fold = msg.data, nil
	s.gen++
	if _, ok := resolveTarget(s.data, s.target); !ok {
		return s.setTarget(defaultTarget(s.data))
	}
	return s.setTarget(s.target)
}

// typeKey handles a key while an ephemeris is typed: enter folds at it (or says what is wrong with it), esc
// gives up, anything else edits it.
func (s starview) typeKey(msg tea.KeyMsg) (starview, tea.Cmd) {
	switch msg.Type {
	case tea.KeyEnter:
		e, err := parseEphemeris(s.input.Value())
		if err != nil {
			s.inputErr = err.Error()
			return s, nil
		}
		s.typing, s.inputErr = false, ""
		s.input.Blur()
		s.data.Typed = &e
		return s.setTarget(foldTarget{Kind: targetTyped})
	case tea.KeyEsc:
		s.typing, s.inputErr = false, ""
		s.input.Blur()
		return s, nil
	}
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	s.inputErr = ""
	return s, cmd
}

// key handles a key of the star view, saying on the status line why a key did nothing.
func (s starview) key(msg tea.KeyMsg) (starview, tea.Cmd) {
	km := s.ctx.Keys
	switch {
	case key.Matches(msg, km.Back):
		return s, show(stateBrowser)
	case key.Matches(msg, km.PrevStar):
		if s.index > 0 {
			s.index--
			return s.load()
		}
		s.say(false, "this is the first star of the list")
		return s, nil
	case key.Matches(msg, km.NextStar):
		if s.index < len(s.ids)-1 {
			s.index++
			return s.load()
		}
		s.say(false, "this is the last star of the list")
		return s, nil
	case key.Matches(msg, km.Panel):
		s.focus = (s.focus + 1) % panelCount
		return s, nil
	case key.Matches(msg, km.OddEven):
		s.mode = toggleMode(s.mode, foldOddEven)
		return s, nil
	case key.Matches(msg, km.Secondary):
		s.mode = toggleMode(s.mode, foldSecondary)
		return s, nil
	case key.Matches(msg, km.Detrended):
		s.raw = !s.raw
		return s, nil
	}
	if s.data == nil {
		if s.loadErr == nil && s.loadingID != "" && keyOfStarView(km, msg) {
			s.say(false, "still loading %s", s.loadingID)
		}
		return s, nil
	}
	d := s.data
	switch {
	case key.Matches(msg, km.Row):
		n := int(msg.String()[0] - '0')
		switch {
		case d.Result == nil:
			s.say(false, "no row %d: the solution has not run on this star yet (d runs it on the dev stars)", n)
		case n > len(d.Result.Rows):
			s.say(false, "no row %d: the last run counted %d rows on this star", n, len(d.Result.Rows))
		default:
			return s.setTarget(foldTarget{Kind: targetRow, Index: n - 1})
		}
	case key.Matches(msg, km.Truth):
		if _, ok := quicklook.Truth(d.Answer); ok {
			return s.setTarget(foldTarget{Kind: targetTruth})
		}
		s.say(false, "%s", noTruth(d.Answer))
	case key.Matches(msg, km.Peak):
		if len(d.Peaks) == 0 {
			s.say(false, "the BLS search found no peak on this star")
			return s, nil
		}
		next := 0
		if s.target.Kind == targetPeak {
			next = (s.target.Index + 1) % len(d.Peaks)
		}
		return s.setTarget(foldTarget{Kind: targetPeak, Index: next})
	case key.Matches(msg, km.NextPlanet):
		switch {
		case s.searching != "":
			s.say(false, "already masking the strongest signal and searching again…")
		case d.Next != nil && nextPlanet(d) < 0:
			s.say(false, "no further planet: nothing at MES %.1f or more after masking the strongest signal", quicklook.DefaultMinMES)
		case d.Next != nil:
			return s.setTarget(foldTarget{Kind: targetNext})
		default:
			s.searching = d.Meta.ID
			return s, nextPlanetCmd(d)
		}
	case key.Matches(msg, km.Up), key.Matches(msg, km.Down):
		step := 1
		if key.Matches(msg, km.Up) {
			step = -1
		}
		list := candidateTargets(d)
		t := stepTarget(list, s.target, step)
		if t == s.target {
			s.say(false, "no candidate %s this one", map[bool]string{true: "above", false: "below"}[step < 0])
			return s, nil
		}
		return s.setTarget(t)
	case key.Matches(msg, km.FoldAt):
		s.typing, s.inputErr = true, ""
		if e, ok := resolveTarget(d, s.target); ok {
			s.input.SetValue(fmt.Sprintf("%.5f %.4f %.2f", e.PeriodDays, e.T0Days, e.DurationDays*24))
			s.input.CursorEnd()
		}
		return s, s.input.Focus()
	case key.Matches(msg, km.ZoomIn, km.ZoomOut, km.PanLeft, km.PanRight):
		z := zoomIn
		switch {
		case key.Matches(msg, km.ZoomOut):
			z = zoomOut
		case key.Matches(msg, km.PanLeft):
			z = panLeft
		case key.Matches(msg, km.PanRight):
			z = panRight
		}
		r, ok, why := zoomTime(timeExtent(d), s.zoom, z)
		if !ok {
			s.say(false, "%s", why)
		}
		s.zoom = r
	case key.Matches(msg, km.Narrower, km.Wider):
		if s.detrending != 0 {
			s.say(false, "already detrending with a %g d window…", s.detrending)
			return s, nil
		}
		dir := 1
		if key.Matches(msg, km.Narrower) {
			dir = -1
		}
		w, ok, why := stepWindow(d.WindowDays, dir)
		if !ok {
			s.say(false, "%s", why)
			return s, nil
		}
		s.detrending = w
		return s, detrendCmd(d, w)
	case key.Matches(msg, km.Export):
		e, ok := resolveTarget(d, s.target)
		if s.fold == nil || !ok || s.fold.Eph != e {
			s.say(false, "nothing to export yet: the fold is being computed")
			return s, nil
		}
		return s, exportCmd(s.ctx, d.Meta.ID, s.fold, s.mode, d.Periods, d.Power)
	}
	return s, nil
}

// keyOfStarView reports whether msg is one of the star view's keys that need a loaded star.
func keyOfStarView(km *KeyMap, msg tea.KeyMsg) bool {
	return key.Matches(msg, km.Row, km.Truth, km.Peak, km.NextPlanet, km.Up, km.Down, km.FoldAt, km.ZoomIn, km.ZoomOut,
		km.PanLeft, km.PanRight, km.Narrower, km.Wider, km.Export)
}

// noTruth says why a star has no truth to fold at.
func noTruth(a *data.Answer) string {
	switch {
	case a == nil:
		return "no truth to fold at: this star is not labelled"
	case a.FalseAlarm != nil && a.FalseAlarm.PeriodDays > 0:
		return fmt.Sprintf("no truth to fold at: a %s star has no planet (its false alarm is in the candidates)", a.Category)
	}
	return fmt.Sprintf("no truth to fold at: a %s star has no planet or eclipse", a.Category)
}

// timeExtent is the time range of d's valid cadences (BKJD days).
func timeExtent(d *StarData) [2]float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, t := range d.Time {
		if !d.Flagged[i] {
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	if !(hi > lo) {
		return [2]float64{}
	}
	return [2]float64{lo, hi}
}

func toggleMode(cur, m foldMode) foldMode {
	if cur == m {
		return foldPrimary
	}
	return m
}

// stepTarget returns the target step places after cur in list (clamped to the list's ends).
func stepTarget(list []foldTarget, cur foldTarget, step int) foldTarget {
	if len(list) == 0 {
		return cur
	}
	i := 0
	for j, t := range list {
		if t == cur {
			i = j
		}
	}
	return list[min(max(i+step, 0), len(list)-1)]
}

// starLayout is how the star view uses its area.
type starLayout int

const (
	layoutGrid     starLayout = iota // the four panels, two by two
	layoutSingle                     // the focused panel alone (tab shows the next)
	layoutTooSmall                   // no panel is useful: the view asks for a larger terminal
)

// The star view's sizes: a panel is useful from minPanelW×minPanelH cells (a periodogram of four rows, a fold
// with its information line); four of them fit from gridMinW×2·minPanelH. A terminal smaller than
// minStarW×minStarH (the header, a panel, the status line and the help bar) shows no panel.
const (
	minPanelW = 40
	minPanelH = 9
	gridMinW  = 72
	minStarW  = minPanelW
	minStarH  = minPanelH + 3
)

// layoutFor chooses the star view's layout for a body (between the header and the status line) of w×bodyH
// cells.
func layoutFor(w, bodyH int) starLayout {
	switch {
	case w < minPanelW || bodyH < minPanelH:
		return layoutTooSmall
	case w < gridMinW || bodyH < 2*minPanelH:
		return layoutSingle
	}
	return layoutGrid
}

// layout splits the star view's body into its four panels: the light curve and candidates side by side on
// top, the periodogram and folded curve below.
func layout(w, h int) (lcW, candW, topH, pgW, foldW, botH int) {
	topH = h / 2
	botH = h - topH
	candW = max(w*38/100, 30)
	if candW > w/2 {
		candW = w / 2
	}
	lcW = w - candW
	pgW = w / 2
	foldW = w - pgW
	return
}

// enlargeText is what the star view shows on a terminal too small for any panel.
func enlargeText() string {
	return fmt.Sprintf("enlarge the terminal (need %d×%d)", minStarW, minStarH)
}

func (s starview) View() string {
	st := s.ctx.Styles
	w, h := s.width, s.height
	bodyH := h - 2
	mode := layoutFor(w, bodyH)
	if mode == layoutTooSmall {
		return st.Error.Render(strings.Replace(enlargeText(), " (", "\n(", 1))
	}
	header := s.header()
	if s.data == nil {
		msg := st.Dim.Render(fmt.Sprintf("loading %s: light curve, detrending, BLS search…", s.currentID()))
		if s.loadErr != nil {
			msg = st.Error.Render(fmt.Sprintf("cannot load %s: %v", s.currentID(), s.loadErr))
		}
		return header + "\n" + fitLines(msg, w, bodyH) + "\n" + s.statusLine(mode)
	}
	var body string
	if mode == layoutSingle {
		body = s.panel(s.focus, w, bodyH)
	} else {
		lcW, candW, topH, pgW, foldW, botH := layout(w, bodyH)
		top := lipgloss.JoinHorizontal(lipgloss.Top, s.panel(panelLightCurve, lcW, topH), s.panel(panelCandidates, candW, topH))
		bottom := lipgloss.JoinHorizontal(lipgloss.Top, s.panel(panelPeriodogram, pgW, botH), s.panel(panelFolded, foldW, botH))
		body = top + "\n" + bottom
	}
	return header + "\n" + body + "\n" + s.statusLine(mode)
}

// panel draws panel p in w×h cells.
func (s starview) panel(p, w, h int) string {
	switch p {
	case panelLightCurve:
		return s.lightCurvePanel(w, h)
	case panelCandidates:
		return s.candidatesPanel(w, h)
	case panelPeriodogram:
		return s.periodogramPanel(w, h)
	}
	return s.foldedPanel(w, h)
}

// panelTitles are the panels' titles in tab order.
var panelTitles = [panelCount]string{titleLightCurve, titleCandidates, titlePeriodogram, titleFolded}

// header is the star view's title line: the star, its kind and the last run's outcome, its place in the list,
// Kp, CDPP and the star's parameters, the least important dropped first on a narrow terminal (fitStatus).
func (s starview) header() string {
	st := s.ctx.Styles
	fields := []statusField{
		val(3, st.Title.Render("TransitBench")+st.Dim.Render(" · dev")),
		val(0, st.Header.Render("star "+s.currentID())),
	}
	if d := s.data; d != nil {
		m := d.Meta
		kind := m.Category
		if m.Population != "" {
			kind += ", " + shortPopulation(m.Population)
		}
		if !m.Scored {
			kind += ", not scored"
		}
		fields = append(fields, val(2, st.Dim.Render("("+kind+")")))
		if m.Outcome != "" {
			fields = append(fields, field(1, st.Dim.Render("last run:"), st.OutcomeStyle(m.Outcome).Render(strings.ToUpper(m.Outcome))))
		} else {
			fields = append(fields, val(1, st.Dim.Render("not run yet")))
		}
	}
	fields = append(fields, val(4, st.Dim.Render(fmt.Sprintf("[%d/%d]", s.index+1, len(s.ids)))))
	if d := s.data; d != nil {
		m := d.Meta
		fields = append(fields, val(5, "Kp "+formatNum(m.Kepmag, 1, true)), val(5, "CDPP6h "+formatNum(m.CDPP6, 0, true)+" ppm"))
		if p := d.Star; p != nil {
			if p.RadiusRsun > 0 {
				fields = append(fields, val(6, fmt.Sprintf("R %.2f R☉", p.RadiusRsun)))
			}
			if p.MassMsun > 0 {
				fields = append(fields, val(6, fmt.Sprintf("M %.2f M☉", p.MassMsun)))
			}
			if p.Teff > 0 {
				fields = append(fields, val(7, fmt.Sprintf("Teff %.0f K", p.Teff)))
			}
		}
	}
	return " " + fitStatus(s.width-1, fields...)
}

// statusLine is the line under the panels: the ephemeris being typed, a message until the next key, or what
// the view shows (the panel in a single-panel layout, the detrending window, the light curve's time range).
func (s starview) statusLine(mode starLayout) string {
	st := s.ctx.Styles
	w := s.width
	switch {
	case s.typing:
		line := s.input.View()
		if s.inputErr != "" {
			line = st.Error.Render(s.inputErr)
		}
		return fit(line, w)
	case s.msg != "":
		style := st.Accent
		if s.msgErr {
			style = st.Error
		}
		return fit(" "+style.Render(s.msg), w)
	}
	var fields []statusField
	if mode == layoutSingle {
		fields = append(fields, field(0, st.Dim.Render("panel"), fmt.Sprintf("%d/%d %s", s.focus+1, panelCount, panelTitles[s.focus])+st.Dim.Render(" (tab)")))
	}
	if d := s.data; d != nil {
		win := fmt.Sprintf("%.3g d", d.WindowDays) // the star's own window has many digits: 1.69 d
		if d.WindowDays == s.autoWindow {
			win += st.Dim.Render(" (the star's)")
		}
		if s.detrending != 0 {
			win = fmt.Sprintf("%.3g d → %.3g d…", d.WindowDays, s.detrending)
		}
		fields = append(fields, field(1, st.Dim.Render("detrend window"), win))
		r := s.zoom
		all := r == [2]float64{}
		if all {
			r = timeExtent(d)
		}
		tr := fmt.Sprintf("BKJD %.1f–%.1f d", r[0], r[1])
		if all {
			tr += st.Dim.Render(" (all)")
		}
		fields = append(fields, field(2, st.Dim.Render("time"), tr))
		if e, ok := resolveTarget(d, s.target); ok {
			fields = append(fields, field(3, st.Dim.Render("fold at "+e.Label),
				fmt.Sprintf("P %.5f d  t0 %.4f BKJD", e.PeriodDays, e.T0Days)))
		}
	}
	return " " + fitStatus(w-1, fields...)
}

// subtitle fits fields into the top border of a panel of width w titled title.
func subtitle(w int, title string, fields ...statusField) string {
	return fitStatus(w-lipgloss.Width(title)-9, fields...)
}

func (s starview) lightCurvePanel(w, h int) string {
	st := s.ctx.Styles
	d := s.data
	flux, yr := d.Flat, d.FlatRange
	which := st.Dim.Render("raw ") + st.Accent.Render("▸detrended")
	if s.raw {
		flux, yr = d.Raw, d.RawRange
		which = st.Accent.Render("▸raw ") + st.Dim.Render("detrended")
	}
	i, j := timeSlice(d.Time, s.zoom)
	c := chart.LightCurveIn(w-2, h-2, d.Time[i:j], flux[i:j], d.Flagged[i:j], yr[0], yr[1])
	c.XUnit = "BKJD d"
	fields := []statusField{val(0, which), val(3, st.Dim.Render("flux relative to 1"))}
	if s.zoom != [2]float64{} {
		fields = append(fields, val(1, fmt.Sprintf("BKJD %.1f–%.1f d", s.zoom[0], s.zoom[1])))
	}
	fields = append(fields, val(4, st.Dim.Render("flagged ")+st.Paint(chart.InkFlag, "▪")))
	if e, ok := resolveTarget(d, s.target); ok {
		// Transits closer than two columns apart would merge into a solid row of markers: say so instead.
		marks := transitMarks(e, c.X.Lo, c.X.Hi)
		if len(marks) > 0 && len(marks) <= (w-8)/2 {
			fields = append(fields, val(2, st.Dim.Render(e.Label+" ")+st.Paint(chart.InkCurrent, "▾")))
			c.Marks = append(c.Marks, marks...)
		} else if len(marks) > 0 {
			fields = append(fields, val(2, st.Dim.Render(fmt.Sprintf("%s: %d transits", e.Label, len(marks)))))
		}
	}
	return Panel(st, titleLightCurve, subtitle(w, titleLightCurve, fields...), c.Lines(st.Paint), w, h, s.focus == panelLightCurve)
}

// transitMarks marks the mid-transit times of e inside [lo, hi] (at most 400 of them).
func transitMarks(e ephemeris, lo, hi float64) []chart.Mark {
	var out []chart.Mark
	for _, tc := range quicklook.TransitTimes(e, lo, hi, 400) {
		out = append(out, chart.Mark{X: tc, Text: "▾", Ink: chart.InkCurrent})
	}
	return out
}

// periodogramMarks marks on the periodogram the BLS peaks (1…), the solution's rows (r1…), the truth (T) and
// the false alarm (F) of a dev star, the typed ephemeris (*) and the planet found after masking (n), marks at
// one period merged (mergeMarks); the fold target's mark is the current one.
func periodogramMarks(d *StarData, target foldTarget) []chart.PeakMark {
	var marks []chart.PeakMark
	add := func(t foldTarget, label string) {
		if e, ok := resolveTarget(d, t); ok {
			marks = append(marks, chart.PeakMark{PeriodDays: e.PeriodDays, Label: label, Current: t == target})
		}
	}
	for i := range d.Peaks {
		add(foldTarget{Kind: targetPeak, Index: i}, fmt.Sprint(i+1))
	}
	if d.Result != nil {
		for i := range d.Result.Rows {
			add(foldTarget{Kind: targetRow, Index: i}, fmt.Sprintf("r%d", i+1))
		}
	}
	add(foldTarget{Kind: targetTruth}, "T")
	add(foldTarget{Kind: targetFalseAlarm}, "F")
	add(foldTarget{Kind: targetTyped}, "*")
	add(foldTarget{Kind: targetNext}, "n")
	// A mark drawn later covers an earlier one it runs into: the least important go first, the fold target's
	// last.
	marks = mergeMarks(marks, samePeriod)
	slices.Reverse(marks)
	slices.SortStableFunc(marks, func(a, b chart.PeakMark) int {
		switch {
		case a.Current == b.Current:
			return 0
		case a.Current:
			return 1
		}
		return -1
	})
	return marks
}

// samePeriod is how close two periods are (relative) for their marks to share one: a periodogram column
// of an 80-column terminal spans about 1 % of a 0.5–20 d axis.
const samePeriod = 0.005

// mergeMarks joins marks whose periods lie within a relative tol of the first of them into one, labelled
// with their labels joined by "/" ("1/r1/T": the strongest peak, row 1 and the truth agree), current when
// one of them is; a mark drawn over another would hide it.
func mergeMarks(marks []chart.PeakMark, tol float64) []chart.PeakMark {
	var out []chart.PeakMark
	for _, m := range marks {
		i := slices.IndexFunc(out, func(o chart.PeakMark) bool { return math.Abs(m.PeriodDays/o.PeriodDays-1) <= tol })
		if i < 0 {
			out = append(out, m)
			continue
		}
		out[i].Label += "/" + m.Label
		out[i].Current = out[i].Current || m.Current
	}
	return out
}

func (s starview) periodogramPanel(w, h int) string {
	st := s.ctx.Styles
	d := s.data
	fields := []statusField{val(0, st.Dim.Render("BLS SNR vs period d")),
		val(2, st.Paint(chart.InkPeak, "▾")+st.Dim.Render("1… peaks, r rows, T truth, F false alarm, * typed"))}
	if e, ok := resolveTarget(d, foldTarget{Kind: targetNext}); ok {
		i := nextPlanet(d)
		fields = append(fields, val(1, st.Dim.Render(fmt.Sprintf("n: next after masking %d: %.4f d, MES %.1f", i, e.PeriodDays, d.Next[i].Measurement.Features.MES))))
	} else if s.searching == d.Meta.ID {
		fields = append(fields, val(1, st.Dim.Render("masking and searching…")))
	} else if d.Next != nil {
		fields = append(fields, val(1, st.Dim.Render(fmt.Sprintf("nothing at MES %.1f or more after masking", quicklook.DefaultMinMES))))
	}
	lines := chart.Periodogram(w-2, h-2, d.Periods, d.Power, periodogramMarks(d, s.target), st.Paint)
	return Panel(st, titlePeriodogram, subtitle(w, titlePeriodogram, fields...), lines, w, h, s.focus == panelPeriodogram)
}

func (s starview) candidatesPanel(w, h int) string {
	st := s.ctx.Styles
	lines := candidateLines(st, s.data, s.target, w-2 < 43)
	return Panel(st, titleCandidates, st.Dim.Render("rows ── truth ── peaks"), lines, w, h, s.focus == panelCandidates)
}

// candidateLines lists the solution's counted rows with their match status, the truth (with the false alarm
// planted on the star, "F.A.", and its kind), the ephemeris typed in and the BLS peaks, the fold target marked ▸ (the truth with
// its T14 in hours). compact drops t0, the row scores and the peak depths, for narrow panels.
func candidateLines(st *Styles, d *StarData, target foldTarget, compact bool) []string {
	var lines []string
	mark := func(t foldTarget) string {
		if t == target {
			return st.Selected.Render("▸")
		}
		return " "
	}
	if d.Result == nil {
		lines = append(lines, st.Dim.Render(" no run yet (d: dev run)"))
	} else {
		if compact {
			lines = append(lines, st.Dim.Render(fmt.Sprintf("  # %9s  %s", "period d", "status")))
		} else {
			lines = append(lines, st.Dim.Render(fmt.Sprintf("  # %9s %9s %7s  %s", "period d", "t0 BKJD", "score", "status")))
		}
		if len(d.Result.Rows) == 0 {
			lines = append(lines, st.Dim.Render("   no rows"))
		}
		for i, r := range d.Result.Rows {
			stx := st.OutcomeStyle(statusOutcome(r.Status)).Render(statusText(r.Status))
			if compact {
				lines = append(lines, fmt.Sprintf("%s%2d %9.4f  %s", mark(foldTarget{targetRow, i}), r.Rank, r.PeriodDays, stx))
			} else {
				lines = append(lines, fmt.Sprintf("%s%2d %9.4f %9.2f %7.1f  %s", mark(foldTarget{targetRow, i}), r.Rank,
					r.PeriodDays, r.T0Days, r.Score, stx))
			}
		}
		if d.Result.RowsGiven > len(d.Result.Rows) {
			lines = append(lines, st.Dim.Render(fmt.Sprintf("   %d more rows not counted", d.Result.RowsGiven-len(d.Result.Rows))))
		}
	}
	if e, ok := quicklook.Truth(d.Answer); ok {
		p, t0, dur := e.PeriodDays, e.T0Days, e.DurationDays
		extra := ""
		if d.Answer.Planet != nil {
			extra = fmt.Sprintf(" MES %.1f", d.Answer.Planet.MES)
		} else if d.Answer.EB != nil {
			extra = " EB"
			if !d.Answer.EB.Counted {
				extra += " (not counted)"
			}
		}
		if compact {
			lines = append(lines, fmt.Sprintf("%struth %9.4f %s", mark(foldTarget{Kind: targetTruth}), p, strings.TrimSpace(extra)))
		} else {
			lines = append(lines, fmt.Sprintf("%struth %9.4f %9.2f %4.1fh%s", mark(foldTarget{Kind: targetTruth}), p, t0, dur*24, extra))
		}
	} else if d.Answer != nil {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("  truth: %s, nothing to find", d.Answer.Category)))
	}
	if d.Answer != nil && d.Answer.FalseAlarm != nil {
		fa := d.Answer.FalseAlarm
		kind := strings.ReplaceAll(fa.Kind, "_", " ")
		if e, ok := falseAlarm(d.Answer); ok {
			if compact {
				lines = append(lines, fmt.Sprintf("%sF.A.  %9.4f %s", mark(foldTarget{Kind: targetFalseAlarm}), e.PeriodDays, kind))
			} else {
				lines = append(lines, fmt.Sprintf("%sF.A.  %9.4f %9.2f %s", mark(foldTarget{Kind: targetFalseAlarm}),
					e.PeriodDays, e.T0Days, kind))
			}
		} else {
			lines = append(lines, st.Dim.Render(fmt.Sprintf("  false alarm: %s (no period)", kind)))
		}
	}
	if e, ok := resolveTarget(d, foldTarget{Kind: targetTyped}); ok {
		if compact {
			lines = append(lines, fmt.Sprintf("%styped %9.4f", mark(foldTarget{Kind: targetTyped}), e.PeriodDays))
		} else {
			lines = append(lines, fmt.Sprintf("%styped %9.4f %9.2f %4.1fh", mark(foldTarget{Kind: targetTyped}), e.PeriodDays, e.T0Days, e.DurationDays*24))
		}
	}
	for i, pk := range d.Peaks {
		name := st.Paint(chart.InkPeak, fmt.Sprintf("p%d", i+1))
		if compact {
			lines = append(lines, fmt.Sprintf("%s%s  %9.4f snr %5.1f", mark(foldTarget{targetPeak, i}), name, pk.PeriodDays, pk.SNR))
		} else {
			lines = append(lines, fmt.Sprintf("%s%s  %9.4f %9.2f snr %5.1f %s", mark(foldTarget{targetPeak, i}), name,
				pk.PeriodDays, pk.T0Days, pk.SNR, formatPPM(pk.Depth)))
		}
	}
	return lines
}

func (s starview) foldedPanel(w, h int) string {
	st := s.ctx.Styles
	e, ok := resolveTarget(s.data, s.target)
	label := "–"
	if ok {
		label = e.Label
	}
	modes := []string{"transit", "odd/even", "secondary"}
	for i := range modes {
		if foldMode(i) == s.mode {
			modes[i] = st.Accent.Render("▸" + modes[i])
		} else {
			modes[i] = st.Dim.Render(modes[i])
		}
	}
	sub := subtitle(w, titleFolded, val(0, st.Dim.Render("at ")+st.Selected.Render(label)), val(1, strings.Join(modes, " ")))
	f := s.fold
	if f == nil || f.Eph != e {
		return Panel(st, titleFolded, sub, []string{st.Dim.Render(" folding…")}, w, h, s.focus == panelFolded)
	}
	lines := foldedLines(st, f, s.mode, w-2, h-2)
	return Panel(st, titleFolded, sub, lines, w, h, s.focus == panelFolded)
}

// foldUnits is the folded charts' unit label, at the end of their x axis: hours from mid-transit, flux in ppm.
const foldUnits = "h · y ppm"

// foldedLines renders the folded panel's body: a chart and an information line whose least important fields
// give way on a narrow panel (fitStatus), so that the depth and the MES are always whole.
func foldedLines(st *Styles, f *folded, mode foldMode, w, h int) []string {
	v := f.Vet
	chartH := h - 1
	var lines []string
	var info []statusField
	rf := f.Refined
	switch mode {
	case foldPrimary:
		c := chart.Folded(w, chartH, f.All.X, f.All.Y, f.All.BX, f.All.BY, f.All.BE, f.HalfHours)
		c.XUnit = foldUnits
		lines = c.Lines(st.Paint)
		info = []statusField{
			field(2, "P", fmt.Sprintf("%.4f d", f.Eph.PeriodDays)), field(3, "T14", fmt.Sprintf("%.1f h", 24*rf.DurationDays)),
			field(0, "depth", fmt.Sprintf("%.0f±%.0f ppm", v.Depth*1e6, v.DepthErr*1e6)), val(0, fmt.Sprintf("MES %.1f", v.MES)),
			val(4, fmt.Sprintf("N %d", v.NTransits)), val(5, fmt.Sprintf("sec MES %.1f", rf.SecondaryMES)),
			val(5, fmt.Sprintf("odd/even %.1fσ", rf.OddEvenSigma)),
		}
	case foldOddEven:
		left := chart.Folded(w/2, chartH, f.Odd.X, f.Odd.Y, f.Odd.BX, f.Odd.BY, f.Odd.BE, f.HalfHours)
		right := chart.Folded(w-w/2, chartH, f.Even.X, f.Even.Y, f.Even.BX, f.Even.BY, f.Even.BE, f.HalfHours)
		right.XUnit = foldUnits
		// One y range for both, so the depths compare by eye.
		lo, hi := math.Min(left.Y.Lo, right.Y.Lo), math.Max(left.Y.Hi, right.Y.Hi)
		left.Y.Lo, left.Y.Hi, right.Y.Lo, right.Y.Hi = lo, hi, lo, hi
		l, r := left.Lines(st.Paint), right.Lines(st.Paint)
		for i := range l {
			lines = append(lines, fit(l[i], w/2)+r[i])
		}
		info = []statusField{
			field(0, "odd", fmt.Sprintf("%.0f ppm", rf.OddDepth*1e6)), val(3, "(left)"), field(0, "even", fmt.Sprintf("%.0f ppm", rf.EvenDepth*1e6)),
			field(1, "ratio", fmt.Sprintf("%.3f±%.3f, %.1fσ", rf.OddEvenRatio, rf.OddEvenRatioErr, rf.OddEvenSigma)),
			field(2, "· box", fmt.Sprintf("%.1fσ", v.OddEvenSigma)),
		}
	case foldSecondary:
		c := chart.Folded(w, chartH, f.Secondary.X, f.Secondary.Y, f.Secondary.BX, f.Secondary.BY, f.Secondary.BE, f.HalfHours)
		c.XUnit = foldUnits
		lines = c.Lines(st.Paint)
		info = []statusField{
			field(1, "secondary at phase", fmt.Sprintf("%.2f:", rf.SecondaryPhase)),
			val(0, fmt.Sprintf("%.0f±%.0f ppm", rf.SecondaryDepth*1e6, rf.SecondaryDepthErr*1e6)),
			val(0, fmt.Sprintf("MES %.1f", rf.SecondaryMES)), field(2, "· box", fmt.Sprintf("MES %.1f", v.SecondaryMES)),
		}
	}
	return append(lines, st.Dim.Render(fitStatus(w, info...)))
}

func (s starview) Keys() help.KeyMap {
	km := s.ctx.Keys
	if s.typing {
		return typingKeys{}
	}
	return screenKeys{
		short: []key.Binding{km.PrevStar, km.NextStar, km.Panel, km.Detrended, km.Row, km.Truth,
			km.Peak, km.NextPlanet, km.FoldAt, km.OddEven, km.Secondary, km.Export, km.Back},
		full: [][]key.Binding{
			{km.PrevStar, km.NextStar, km.Up, km.Down},
			{km.Panel, km.Detrended, km.Back},
			{km.Row, km.Truth, km.Peak, km.NextPlanet, km.FoldAt},
			{km.OddEven, km.Secondary, km.Export},
			{km.ZoomIn, km.ZoomOut, km.PanLeft, km.PanRight, km.Narrower, km.Wider},
		},
		km: km,
	}
}

// typingKeys is the help while an ephemeris is typed: every key is text but enter and esc.
type typingKeys struct{}

var (
	typedEnter  = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "fold"))
	typedCancel = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))
)

func (typingKeys) ShortHelp() []key.Binding  { return []key.Binding{typedEnter, typedCancel} }
func (typingKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{typedEnter, typedCancel}} }

// The star view as a screen: openStarMsg opens it on a star, esc returns to the browser; while an ephemeris
// is typed every key is text.

func (s *starview) Update(msg tea.Msg) tea.Cmd { return step(s, starview.update, msg) }

func (s *starview) Enter() tea.Cmd  { return nil }
func (s *starview) Capturing() bool { return s.typing }
func (s *starview) RunKeys() bool   { return true }
