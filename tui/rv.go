package tui

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/chart"
	"transitbench/workspace/rvtrack"
)

// rvMsg marks the messages of the RV screens, which the root routes to them whatever is showing.
type rvMsg interface{ rvScreen() }

// rvTasksLoadedMsg carries the RV browser's rows.
type rvTasksLoadedMsg struct {
	tasks []RVTaskMeta
	err   error
}

// openRVTaskMsg asks the root to open the RV task view on a task; start starts the task's clock (the
// contestant confirmed it in the browser).
type openRVTaskMsg struct {
	id    string
	start bool
}

// rvClockMsg is the task view's clock ticking: the header counts down to the task's deadline.
type rvClockMsg struct {
	id  string
	now time.Time
}

// rvTaskLoadedMsg carries a loaded RV task.
type rvTaskLoadedMsg struct {
	id   string
	task *RVTask
	err  error
}

// rvAnalysedMsg carries the analysis of generation gen of the planet table.
type rvAnalysedMsg struct {
	gen int
	a   *rvAnalysis
}

// rvFittedMsg ends an automatic fit.
type rvFittedMsg struct {
	id     string
	search bool
	fit    *RVFit
	err    error
}

// rvSubmittedMsg ends a submission.
type rvSubmittedMsg struct {
	id  string
	fb  rvgate.Feedback
	err error
}

func (rvTasksLoadedMsg) rvScreen() {}
func (openRVTaskMsg) rvScreen()    {}
func (rvTaskLoadedMsg) rvScreen()  {}
func (rvAnalysedMsg) rvScreen()    {}
func (rvFittedMsg) rvScreen()      {}
func (rvSubmittedMsg) rvScreen()   {}
func (rvClockMsg) rvScreen()       {}

func loadRVTasksCmd(ctx *ProgramContext) tea.Cmd {
	return func() tea.Msg {
		t, err := ctx.Backend.RVTasks(ctx.Ctx)
		return rvTasksLoadedMsg{t, err}
	}
}

// routeRV passes an RV message to its screen.
func (m Model) routeRV(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case rvTasksLoadedMsg:
		m.rvBrowser, cmd = m.rvBrowser.update(msg)
	case openRVTaskMsg:
		m.state = stateRVTask
		m.rvTask, cmd = m.rvTask.open(msg.id, msg.start)
	case rvSubmittedMsg, rvTaskLoadedMsg:
		m.rvTask, cmd = m.rvTask.update(msg)
		// The browser's state, submissions-left and passed columns change when a task starts or is submitted.
		cmd = tea.Batch(cmd, loadRVTasksCmd(m.ctx))
	default:
		m.rvTask, cmd = m.rvTask.update(msg)
	}
	return m, cmd
}

// rvAnalysis is what the task view draws for one state of the planet table (rvtrack.Analysis).
type rvAnalysis = rvtrack.Analysis

// Planet table cells.
const (
	colP = iota
	colK
	colE
	colOmega
	colM0
	nCols
)

var cellNames = [nCols]string{"P_days", "K_ms", "e", "omega_rad", "M0_rad"}

// cellValue returns a planet's value in column col.
func cellValue(p rv.Planet, col int) float64 {
	return [nCols]float64{p.PeriodDays, p.KMS, p.E, p.OmegaRad, p.M0Rad}[col]
}

// setCell parses text into column col of p, checking the value's range (P > 0, K > 0, 0 ≤ e < 1; angles
// wrapped to [0, 2π)).
func setCell(p rv.Planet, col int, text string) (rv.Planet, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return p, fmt.Errorf("%s: %q is not a number", cellNames[col], text)
	}
	switch col {
	case colP:
		if v <= 0 {
			return p, fmt.Errorf("P_days must be positive")
		}
		p.PeriodDays = v
	case colK:
		if v <= 0 {
			return p, fmt.Errorf("K_ms must be positive")
		}
		p.KMS = v
	case colE:
		if v < 0 || v >= 1 {
			return p, fmt.Errorf("e must lie in [0, 1)")
		}
		p.E = v
	case colOmega:
		p.OmegaRad = wrapAngle(v)
	case colM0:
		p.M0Rad = wrapAngle(v)
	}
	return p, nil
}

func wrapAngle(v float64) float64 {
	v = math.Mod(v, 2*math.Pi)
	if v < 0 {
		v += 2 * math.Pi
	}
	return v
}

// formatCell formats column col of p for the table.
func formatCell(p rv.Planet, col int) string {
	v := cellValue(p, col)
	switch col {
	case colP:
		return strconv.FormatFloat(v, 'f', periodDecimals(v), 64)
	case colK:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case colE:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func periodDecimals(p float64) int {
	switch {
	case p >= 1000:
		return 1
	case p >= 100:
		return 2
	}
	return 3
}

// sortPlanets orders planets by period, the order the table shows.
func sortPlanets(ps []rv.Planet) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].PeriodDays < ps[j].PeriodDays })
}

// The RV plots' inks: the canvas gives a cell shared by several layers the highest ink, so the data's colour
// (one per instrument) wins over the model curve's where they meet.
const (
	rvInkInst  chart.Ink = 16 // instrument i draws with rvInkInst + i
	rvInkModel chart.Ink = 15
)

// rvPaint colours the RV plots: one colour per instrument and the model curve, else the common inks.
func rvPaint(st *Styles) func(chart.Ink, string) string {
	return func(ink chart.Ink, s string) string {
		switch {
		case ink == rvInkModel:
			return st.Selected.Render(s)
		case ink >= rvInkInst && len(st.Instrument) > 0:
			return st.Instrument[int(ink-rvInkInst)%len(st.Instrument)].Render(s)
		case ink >= rvInkInst:
			return st.Paint(chart.InkData, s)
		}
		return st.Paint(ink, s)
	}
}

// rvCharts builds the task view's two plots, sharing the time axis (days since the first observation): the
// velocities less each instrument's offset with their error bars (√(σ² + jitter²)), one ink per instrument,
// under the model curve; and the residuals below.
func rvCharts(d *rv.Data, a *rvAnalysis, width, dataH, resH int) (data, res chart.Chart) {
	t0, t1 := chart.Extent(d.Times)
	xs := chart.Scale{Lo: 0, Hi: math.Max(t1-t0, 1e-9)}
	n := len(d.Instruments)
	xi := make([][]float64, n)
	yi := make([][]float64, n)
	ri := make([][]float64, n)
	ei := make([][]float64, n)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	rmax := 0.0
	for i, t := range d.Times {
		k := d.Inst[i]
		e := math.Sqrt(d.Sigmas[i]*d.Sigmas[i] + a.JitterMS*a.JitterMS)
		y := d.RVs[i] - a.Eval.Offsets[k]
		xi[k], yi[k], ri[k], ei[k] = append(xi[k], t-t0), append(yi[k], y), append(ri[k], a.Eval.Residuals[i]), append(ei[k], e)
		ylo, yhi = math.Min(ylo, y-e), math.Max(yhi, y+e)
		rmax = math.Max(rmax, math.Abs(a.Eval.Residuals[i])+e)
	}
	ct := make([]float64, len(a.CurveT))
	for i, t := range a.CurveT {
		ct[i] = t - t0
		ylo, yhi = math.Min(ylo, a.CurveV[i]), math.Max(yhi, a.CurveV[i])
	}
	if !(yhi > ylo) {
		ylo, yhi = -1, 1
	}
	if !(rmax > 0) {
		rmax = 1
	}
	data = chart.Chart{Width: width, Height: dataH, X: xs, Y: chart.Scale{Lo: ylo, Hi: yhi}, XUnit: "d"}
	res = chart.Chart{Width: width, Height: resH, X: xs, Y: chart.Scale{Lo: -rmax, Hi: rmax}, XUnit: "d"}
	// The residuals' zero line goes first, so the points draw over it.
	res.Layers = []chart.Layer{{X: []float64{0, xs.Hi}, Y: []float64{0, 0}, Style: chart.Connected, Ink: chart.InkData}}
	for k := 0; k < n; k++ {
		ink := rvInkInst + chart.Ink(k)
		data.Layers = append(data.Layers, chart.Layer{X: xi[k], Y: yi[k], Err: ei[k], Style: chart.ErrorBars, Ink: ink})
		res.Layers = append(res.Layers, chart.Layer{X: xi[k], Y: ri[k], Err: ei[k], Style: chart.ErrorBars, Ink: ink})
	}
	if len(a.Planets) > 0 {
		data.Layers = append(data.Layers, chart.Layer{X: ct, Y: a.CurveV, Style: chart.Connected, Ink: rvInkModel})
	}
	// Both charts get the data chart's label width, so that their time axes line up.
	n = max(dataH-1, 2)
	step := chart.NiceStep(ylo, yhi, n)
	data.YTicks = chart.Ticks(ylo, yhi, n)
	labelW := 1
	for _, v := range data.YTicks {
		labelW = max(labelW, len([]rune(chart.FormatTick(v, step))))
	}
	data.YFormat = func(v float64) string { return fmt.Sprintf("%*s", labelW, chart.FormatTick(v, step)) }
	res.YTicks = []float64{0}
	res.YFormat = func(float64) string { return fmt.Sprintf("%*s", labelW, "0") }
	return data, res
}

// check is a pass/fail mark.
func check(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// metricsLine is the dry run's verdict: the RMS against its threshold and ΔBIC/N.
func metricsLine(m rvgate.ModelMetrics) string {
	return fmt.Sprintf("rms %.2f≤%.2f %s  ΔBIC/N %+.2f %s", m.RMSMS, m.MaxRMSMS, check(m.OKRMS),
		m.DeltaBICPerPoint, check(m.OKDeltaBIC))
}

// feedbackLine phrases a submission's feedback: the verdict per criterion, the fair criterion of real tasks
// when present, and the submissions left. It has nothing of the truth but what Feedback carries (pass or fail
// and the submission's own scalars).
func feedbackLine(fb rvgate.Feedback) string {
	b := func(p *bool) string {
		if p == nil {
			return "–"
		}
		return check(*p)
	}
	verdict := "not passed"
	if fb.Passed != nil && *fb.Passed {
		verdict = "PASSED"
	}
	s := fmt.Sprintf("submission %d: rms %s ΔBIC %s match %s count %s → %s · %d left", fb.Submission,
		check(fb.OKRMS), check(fb.OKDeltaBIC), b(fb.OKMatch), b(fb.OKCount), verdict, fb.SubmissionsLeft)
	if fb.OKRMSFair != nil && fb.PassedFair != nil { // real tasks: the RMS held to the published solution's own
		s += fmt.Sprintf(" · fair rms %s passed %s", check(*fb.OKRMSFair), check(*fb.PassedFair))
	}
	counts := fb.Passed != nil && *fb.Passed && fb.WithinBudget
	if !fb.WithinBudget {
		s += " · over the " + strings.Join(fb.OverBudget, " and ") + " budget: does not count"
	}
	if fb.TaskPassed && !counts {
		s += " · task passed before"
	}
	return s
}

// peakLines lists the periodogram's peaks with their FAP.
func peakLines(a *rvAnalysis) []string {
	var out []string
	for i, p := range a.Peaks {
		out = append(out, fmt.Sprintf("%d  P %s d  power %.2f  FAP %s", i+1,
			strconv.FormatFloat(p.PeriodDays, 'f', periodDecimals(p.PeriodDays), 64), p.Power, formatFAP(a.FAP[i])))
	}
	return out
}

func formatFAP(f float64) string {
	switch {
	case f < 1e-4:
		return fmt.Sprintf("%.0e", f)
	case f < 0.01:
		return fmt.Sprintf("%.4f", f)
	}
	return fmt.Sprintf("%.2f", f)
}
