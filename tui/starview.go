package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

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

// starview shows one star: light curve, periodogram, candidates and the folded transit.
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
}

func newStarview(ctx *ProgramContext) starview { return starview{ctx: ctx} }

// starLoadedMsg carries a loaded star.
type starLoadedMsg struct {
	id      string
	data    *StarData
	err     error
	elapsed time.Duration
}

// foldedMsg carries the folded panel's data for a target.
type foldedMsg struct {
	id     string
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

func foldCmd(d *StarData, target foldTarget) tea.Cmd {
	e, ok := resolveTarget(d, target)
	if !ok {
		return nil
	}
	return func() tea.Msg { return foldedMsg{id: d.Meta.ID, target: target, fold: foldStar(d, e)} }
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
	return s, loadStarCmd(s.ctx, s.loadingID)
}

func (s *starview) SetSize(w, h int) { s.width, s.height = w, h }

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
	if _, ok := quicklook.Truth(d.Answer); ok {
		out = append(out, foldTarget{Kind: targetTruth})
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
	return s, foldCmd(s.data, t)
}

func (s starview) update(msg tea.Msg) (starview, tea.Cmd) {
	km := s.ctx.Keys
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
		var fold tea.Cmd
		s, fold = s.setTarget(defaultTarget(s.data))
		return s, tea.Batch(fold, s.prefetchNext())
	case foldedMsg:
		if s.data != nil && msg.id == s.data.Meta.ID && msg.target == s.target {
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
		s.data.Next = append([]quicklook.Planet{}, msg.planets...) // not nil: searched
		return s.setTarget(foldTarget{Kind: targetNext})
	case openStarMsg:
		return s.open(msg.ids, msg.index)
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, km.Back):
			return s, show(stateBrowser)
		case key.Matches(msg, km.PrevStar):
			if s.index > 0 {
				s.index--
				return s.load()
			}
		case key.Matches(msg, km.NextStar):
			if s.index < len(s.ids)-1 {
				s.index++
				return s.load()
			}
		case key.Matches(msg, km.Panel):
			s.focus = (s.focus + 1) % panelCount
		case key.Matches(msg, km.Detrended):
			s.raw = !s.raw
		case key.Matches(msg, km.Row):
			return s.setTarget(foldTarget{Kind: targetRow, Index: int(msg.String()[0] - '1')})
		case key.Matches(msg, km.Truth):
			return s.setTarget(foldTarget{Kind: targetTruth})
		case key.Matches(msg, km.Peak):
			next := 0
			if s.target.Kind == targetPeak && s.data != nil && len(s.data.Peaks) > 0 {
				next = (s.target.Index + 1) % len(s.data.Peaks)
			}
			return s.setTarget(foldTarget{Kind: targetPeak, Index: next})
		case key.Matches(msg, km.NextPlanet):
			if s.data == nil || s.searching != "" {
				return s, nil
			}
			if s.data.Next != nil {
				return s.setTarget(foldTarget{Kind: targetNext})
			}
			s.searching = s.data.Meta.ID
			return s, nextPlanetCmd(s.data)
		case key.Matches(msg, km.OddEven):
			s.mode = toggleMode(s.mode, foldOddEven)
		case key.Matches(msg, km.Secondary):
			s.mode = toggleMode(s.mode, foldSecondary)
		case key.Matches(msg, km.Up), key.Matches(msg, km.Down):
			if s.data == nil {
				return s, nil
			}
			step := 1
			if key.Matches(msg, km.Up) {
				step = -1
			}
			return s.setTarget(stepTarget(candidateTargets(s.data), s.target, step))
		}
	}
	return s, nil
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

// layout splits the star view's area (below the header, above the help bar) into its four panels:
// the light curve and candidates side by side on top, the periodogram and folded curve below.
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

func (s starview) View() string {
	st := s.ctx.Styles
	w, h := s.width, s.height
	header := s.header()
	bodyH := h - 1
	lcW, candW, topH, pgW, foldW, botH := layout(w, bodyH)
	if s.data == nil {
		msg := st.Dim.Render(fmt.Sprintf("loading %s: light curve, detrending, BLS search…", s.currentID()))
		if s.loadErr != nil {
			msg = st.Error.Render(fmt.Sprintf("cannot load %s: %v", s.currentID(), s.loadErr))
		}
		return header + "\n" + fitLines(msg, w, bodyH)
	}
	top := lipgloss.JoinHorizontal(lipgloss.Top,
		s.lightCurvePanel(lcW, topH), s.candidatesPanel(candW, topH))
	bottom := lipgloss.JoinHorizontal(lipgloss.Top,
		s.periodogramPanel(pgW, botH), s.foldedPanel(foldW, botH))
	return header + "\n" + top + "\n" + bottom
}

// header is the star view's title line. Parts are ordered by importance, since a narrow terminal cuts the
// end: the star, its kind and the last run's outcome, its place in the list, then Kp and CDPP.
func (s starview) header() string {
	st := s.ctx.Styles
	id := s.currentID()
	parts := []string{st.Title.Render("TransitBench") + st.Dim.Render(" · dev · ") + st.Header.Render("star "+id)}
	var tail []string
	if d := s.data; d != nil {
		m := d.Meta
		kind := m.Category
		if m.Population != "" {
			kind += ", " + shortPopulation(m.Population)
		}
		if !m.Scored {
			kind += ", not scored"
		}
		parts = append(parts, st.Dim.Render("("+kind+")"))
		if m.Outcome != "" {
			parts = append(parts, "last run: "+st.OutcomeStyle(m.Outcome).Render(strings.ToUpper(m.Outcome)))
		} else {
			parts = append(parts, st.Dim.Render("not run yet"))
		}
		tail = []string{fmt.Sprintf("Kp %s", formatNum(m.Kepmag, 1, true)), fmt.Sprintf("CDPP6h %s ppm", formatNum(m.CDPP6, 0, true))}
	}
	parts = append(parts, st.Dim.Render(fmt.Sprintf("[%d/%d]", s.index+1, len(s.ids))))
	parts = append(parts, tail...)
	return fit(" "+strings.Join(parts, "  "), s.width)
}

func (s starview) lightCurvePanel(w, h int) string {
	st := s.ctx.Styles
	d := s.data
	flux, yr := d.Flat, d.FlatRange
	sub := st.Dim.Render("raw ") + st.Accent.Render("▸detrended")
	if s.raw {
		flux, yr = d.Raw, d.RawRange
		sub = st.Accent.Render("▸raw ") + st.Dim.Render("detrended")
	}
	sub += st.Dim.Render(" ── flagged ") + st.Paint(chart.InkFlag, "▪")
	c := chart.LightCurveIn(w-2, h-2, d.Time, flux, d.Flagged, yr[0], yr[1])
	if e, ok := resolveTarget(d, s.target); ok {
		// Transits closer than two columns apart would merge into a solid row of markers: say so instead.
		marks := transitMarks(e, c.X.Lo, c.X.Hi)
		if len(marks) > 0 && len(marks) <= (w-8)/2 {
			sub += st.Dim.Render(" ── "+e.Label+" ") + st.Paint(chart.InkCurrent, "▾")
			c.Marks = append(c.Marks, marks...)
		} else if len(marks) > 0 {
			sub += st.Dim.Render(fmt.Sprintf(" ── %s: %d transits", e.Label, len(marks)))
		}
	}
	return Panel(st, titleLightCurve, sub, c.Lines(st.Paint), w, h, s.focus == panelLightCurve)
}

// transitMarks marks the mid-transit times of e inside [lo, hi] (at most 400 of them).
func transitMarks(e ephemeris, lo, hi float64) []chart.Mark {
	var out []chart.Mark
	for _, tc := range quicklook.TransitTimes(e, lo, hi, 400) {
		out = append(out, chart.Mark{X: tc, Text: "▾", Ink: chart.InkCurrent})
	}
	return out
}

func (s starview) periodogramPanel(w, h int) string {
	st := s.ctx.Styles
	d := s.data
	var peaks []chart.PeakMark
	for i, pk := range d.Peaks {
		peaks = append(peaks, chart.PeakMark{PeriodDays: pk.PeriodDays, Label: fmt.Sprint(i + 1),
			Current: s.target.Kind == targetPeak && s.target.Index == i})
	}
	sub := st.Dim.Render("BLS snr ── peaks ") + st.Paint(chart.InkPeak, "▾")
	if e, ok := resolveTarget(d, foldTarget{Kind: targetNext}); ok {
		i := nextPlanet(d)
		peaks = append(peaks, chart.PeakMark{PeriodDays: e.PeriodDays, Label: "n", Current: s.target.Kind == targetNext})
		sub += st.Dim.Render(fmt.Sprintf(" ── next after masking %d: %.4f d, MES %.1f", i, e.PeriodDays, d.Next[i].Measurement.Features.MES))
	} else if s.searching == d.Meta.ID {
		sub += st.Dim.Render(" ── masking and searching…")
	} else if d.Next != nil {
		sub += st.Dim.Render(fmt.Sprintf(" ── nothing at MES %.1f or more after masking", quicklook.DefaultMinMES))
	}
	lines := chart.Periodogram(w-2, h-2, d.Periods, d.Power, peaks, st.Paint)
	return Panel(st, titlePeriodogram, sub, lines, w, h, s.focus == panelPeriodogram)
}

func (s starview) candidatesPanel(w, h int) string {
	st := s.ctx.Styles
	lines := candidateLines(st, s.data, s.target, w-2 < 43)
	return Panel(st, titleCandidates, st.Dim.Render("rows ── truth ── peaks"), lines, w, h, s.focus == panelCandidates)
}

// candidateLines lists the solution's counted rows with their match status, the truth and the BLS peaks, the
// fold target marked ▸ (the truth with its T14 in hours). compact drops t0, the row scores and the peak depths,
// for narrow panels.
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
			lines = append(lines, st.Dim.Render(fmt.Sprintf("  # %9s %9s %7s  %s", "period d", "t0", "score", "status")))
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
	sub := st.Dim.Render("at ") + st.Selected.Render(label) + st.Dim.Render(" ── ") + strings.Join(modes, " ")
	f := s.fold
	if f == nil || f.Eph != e {
		return Panel(st, titleFolded, sub, []string{st.Dim.Render(" folding…")}, w, h, s.focus == panelFolded)
	}
	lines := foldedLines(st, f, s.mode, w-2, h-2)
	return Panel(st, titleFolded, sub, lines, w, h, s.focus == panelFolded)
}

// foldedLines renders the folded panel's body: a chart and an information line.
func foldedLines(st *Styles, f *folded, mode foldMode, w, h int) []string {
	v := f.Vet
	chartH := h - 1
	var lines []string
	var info string
	switch mode {
	case foldPrimary:
		lines = chart.Folded(w, chartH, f.All.X, f.All.Y, f.All.BX, f.All.BY, f.All.BE, f.HalfHours).Lines(st.Paint)
		info = fmt.Sprintf("P %.4f d  T14 %.1f h  depth %.0f±%.0f ppm  MES %.1f  N %d  sec MES %.1f  odd/even %.1fσ",
			f.Eph.PeriodDays, 24*f.Refined.DurationDays, v.Depth*1e6, v.DepthErr*1e6, v.MES, v.NTransits,
			f.Refined.SecondaryMES, f.Refined.OddEvenSigma)
	case foldOddEven:
		left := chart.Folded(w/2, chartH, f.Odd.X, f.Odd.Y, f.Odd.BX, f.Odd.BY, f.Odd.BE, f.HalfHours)
		right := chart.Folded(w-w/2, chartH, f.Even.X, f.Even.Y, f.Even.BX, f.Even.BY, f.Even.BE, f.HalfHours)
		// One y range for both, so the depths compare by eye.
		lo, hi := math.Min(left.Y.Lo, right.Y.Lo), math.Max(left.Y.Hi, right.Y.Hi)
		left.Y.Lo, left.Y.Hi, right.Y.Lo, right.Y.Hi = lo, hi, lo, hi
		l, r := left.Lines(st.Paint), right.Lines(st.Paint)
		for i := range l {
			lines = append(lines, fit(l[i], w/2)+r[i])
		}
		rf := f.Refined
		info = fmt.Sprintf("odd %.0f ppm (left)  even %.0f ppm  ratio %.3f±%.3f, %.1fσ  · box %.1fσ", rf.OddDepth*1e6, rf.EvenDepth*1e6,
			rf.OddEvenRatio, rf.OddEvenRatioErr, rf.OddEvenSigma, v.OddEvenSigma)
	case foldSecondary:
		lines = chart.Folded(w, chartH, f.Secondary.X, f.Secondary.Y, f.Secondary.BX, f.Secondary.BY, f.Secondary.BE, f.HalfHours).Lines(st.Paint)
		rf := f.Refined
		info = fmt.Sprintf("secondary at phase %.2f: %.0f±%.0f ppm  MES %.1f  · box MES %.1f",
			rf.SecondaryPhase, rf.SecondaryDepth*1e6, rf.SecondaryDepthErr*1e6, rf.SecondaryMES, v.SecondaryMES)
	}
	return append(lines, st.Dim.Render(info))
}

func (s starview) Keys() help.KeyMap {
	km := s.ctx.Keys
	return screenKeys{
		short: []key.Binding{km.PrevStar, km.NextStar, km.Panel, km.Detrended, km.Row, km.Truth,
			km.Peak, km.NextPlanet, km.OddEven, km.Secondary, km.Back},
		full: [][]key.Binding{
			{km.PrevStar, km.NextStar, km.Up, km.Down},
			{km.Panel, km.Detrended, km.Back},
			{km.Row, km.Truth, km.Peak, km.NextPlanet},
			{km.OddEven, km.Secondary},
		},
		km: km,
	}
}

// The star view as a screen: openStarMsg opens it on a star, esc returns to the browser.

func (s *starview) Update(msg tea.Msg) tea.Cmd { return step(s, starview.update, msg) }

func (s *starview) Enter() tea.Cmd  { return nil }
func (s *starview) Capturing() bool { return false }
func (s *starview) RunKeys() bool   { return true }
