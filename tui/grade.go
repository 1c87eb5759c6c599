package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"transitbench/grader"
	"transitbench/internal/termtext"
	"transitbench/workspace"
)

// LadderRow is one reference pipeline of the baseline ladder: S on A and on B.
type LadderRow struct {
	Name string
	A, B float64
}

// ReferenceLadder is SPEC A7's baseline ladder, TransitBench's scores on real Kepler data, which the simulated
// sets are calibrated to reproduce.
var ReferenceLadder = []LadderRow{
	{"reference_detector", 0.805, 0.805},
	{"learned_vetter", 0.696, 0.673},
	{"starter", 0.046, 0.076},
	{"empty", 0, 0},
	{"naive_v0", -0.159, -0.155},
}

// gradeStep is where the grade screen is.
type gradeStep int

const (
	gradeLoading gradeStep = iota
	gradeConfirm
	gradeRunning
	gradeDone
)

// grade is the grade screen: the frozen hash, a once-only confirmation, progress over A and B, and the
// result beside the baseline ladder.
type grade struct {
	ctx      *ProgramContext
	step     gradeStep
	info     GradeInfo
	infoErr  error
	cancel   context.CancelFunc
	progress map[string][2]int // set → done, total
	bars     map[string]progress.Model
	result   *GradeResult
	err      error
	again    bool
	width    int
	height   int
	msg      string // why a key did nothing, until the next key
	phase    map[string]string
}

// gradeSets are the sets a grading runs, in order.
var gradeSets = []string{"A", "B", "dev"}

func newGrade(ctx *ProgramContext) grade {
	g := grade{ctx: ctx, progress: map[string][2]int{}, bars: map[string]progress.Model{}, phase: map[string]string{}}
	for _, s := range gradeSets {
		g.bars[s] = newBar(ctx.Styles)
	}
	return g
}

func (g *grade) SetSize(w, h int) {
	g.width, g.height = w, h
	for s, b := range g.bars {
		b.Width = max(min(w-30, 60), 10)
		g.bars[s] = b
	}
}

// gradeInfoMsg carries what grading would freeze.
type gradeInfoMsg struct {
	info GradeInfo
	err  error
}

// enter (re)opens the screen: it asks the backend for the hash unless a grading is running or done.
func (g grade) enter() (grade, tea.Cmd) {
	if g.step == gradeRunning {
		return g, nil
	}
	g.step, g.result, g.err, g.infoErr = gradeLoading, nil, nil, nil
	ctx := g.ctx
	return g, func() tea.Msg {
		info, err := ctx.Backend.GradeInfo(ctx.Ctx)
		return gradeInfoMsg{info, err}
	}
}

// alreadyGraded reports whether the hash was graded on a hidden set (and the grading is not one to resume).
func (g grade) alreadyGraded() bool {
	if g.info.Resumes {
		return false
	}
	for _, s := range g.info.GradedOn {
		if s == "A" || s == "B" {
			return true
		}
	}
	return false
}

func (g grade) update(msg tea.Msg) (grade, tea.Cmd) {
	km := g.ctx.Keys
	switch msg := msg.(type) {
	case gradeInfoMsg:
		g.info, g.infoErr = msg.info, msg.err
		g.step = gradeConfirm
		return g, nil
	case runEventMsg:
		e := msg.event
		g.progress[e.Set] = [2]int{e.Done, e.Total}
		g.phase[e.Set] = e.Phase
		return g, waitNext(msg.ch)
	case runDoneMsg:
		g.step = gradeDone
		stopRun(g.cancel)
		g.result, g.err = msg.grade, msg.err
		return g, nil
	case tea.KeyMsg:
		g.msg = ""
		if g.step != gradeRunning && key.Matches(msg, km.Back) {
			return g, back(false)
		}
		return g.key(msg)
	}
	return g, nil
}

// key handles y, A and esc, saying why one does nothing.
func (g grade) key(msg tea.KeyMsg) (grade, tea.Cmd) {
	km := g.ctx.Keys
	switch g.step {
	case gradeConfirm:
		if !key.Matches(msg, km.Confirm, km.Again) {
			return g, nil
		}
		switch {
		case g.infoErr != nil:
			g.msg = "nothing to grade: the solution could not be hashed (see above)"
		case g.info.Degraded != "":
			g.msg = "grading is refused here: the sandbox cannot isolate fully (see above)"
		case key.Matches(msg, km.Confirm) && !g.alreadyGraded():
			return g.start(false)
		case key.Matches(msg, km.Again) && g.alreadyGraded():
			return g.start(true)
		case key.Matches(msg, km.Confirm):
			g.msg = "this hash was graded already: A grades it again"
		default:
			g.msg = "A grades again a hash graded before; this one was not: y grades it"
		}
	case gradeRunning:
		if key.Matches(msg, km.Cancel) {
			stopRun(g.cancel)
		}
	case gradeDone:
		if key.Matches(msg, km.Confirm, km.Again) {
			g.msg = "the grading is over: esc goes back, g opens grading again"
		}
	case gradeLoading:
		if key.Matches(msg, km.Confirm, km.Again) {
			g.msg = "still hashing the solution…"
		}
	}
	return g, nil
}

func (g grade) start(again bool) (grade, tea.Cmd) {
	ctx, cancel := context.WithCancel(g.ctx.Ctx)
	g.step, g.cancel, g.again = gradeRunning, cancel, again
	g.progress, g.phase = map[string][2]int{}, map[string]string{}
	b := g.ctx.Backend
	return g, startRun(ctx, func(ctx context.Context, events chan<- RunEvent) runDoneMsg {
		r, err := b.Grade(ctx, again, events)
		return runDoneMsg{grade: r, err: err}
	})
}

// running reports whether a grading is in progress (the root keeps routing its messages here).
func (g grade) running() bool { return g.step == gradeRunning }

func (g grade) View() string {
	st := g.ctx.Styles
	var b strings.Builder
	b.WriteString(fitStatus(g.width, val(0, st.Title.Render("Grade")),
		val(1, st.Dim.Render("· freeze the solution, run it once on the hidden sets A (the score) and B (replication)"))) + "\n")
	b.WriteString(st.Accent.Render(g.msg) + "\n")
	switch g.step {
	case gradeLoading:
		b.WriteString(st.Dim.Render("hashing the solution…"))
		return b.String()
	case gradeConfirm:
		if g.infoErr != nil {
			b.WriteString(st.Error.Render("cannot grade: " + g.infoErr.Error()))
			return b.String()
		}
		fmt.Fprintf(&b, "%s\n\n", g.hashLine(g.info.Hash))
		if g.info.Degraded != "" {
			b.WriteString(st.Error.Render("The sandbox cannot isolate fully here ("+g.info.Degraded+"), so the hidden sets are not run.") + "\n")
			b.WriteString("Quit and start 'transitbench tui --allow-degraded' to grade anyway (the isolation level is recorded).\n\n")
			b.WriteString(g.ladder(nil, g.height-lineCount(b.String())))
			return b.String()
		}
		switch {
		case g.info.Resumes:
			fmt.Fprintf(&b, "Grading #%d of this workspace was interrupted: its finished stars are kept.\n", g.info.Grading)
			b.WriteString("Press " + st.Accent.Render("y") + " to resume it, esc to go back.\n")
		case g.alreadyGraded():
			fmt.Fprintf(&b, "%s\n%s\n", st.Error.Render("this hash was already graded on "+strings.Join(g.info.GradedOn, ", ")+"."),
				"A hash is graded once. Press "+st.Accent.Render("A")+" to grade it again (recorded as a re-grade, "+
					fmt.Sprintf("grading #%d of this workspace), esc to go back.", g.info.Grading))
		default:
			if g.info.Grading > 0 {
				fmt.Fprintf(&b, "This will be grading #%d of this workspace.\n", g.info.Grading)
			}
			b.WriteString("Grading runs once per frozen hash and cannot be undone.\n")
			b.WriteString("Press " + st.Accent.Render("y") + " to grade, esc to go back.\n")
		}
		b.WriteString("\n" + g.ladder(nil, g.height-lineCount(b.String())-1))
	case gradeRunning, gradeDone:
		fmt.Fprintf(&b, "%s%s\n\n", g.hashLine(shortHash(g.info.Hash)), map[bool]string{true: st.Dim.Render("  (re-grade)")}[g.again])
		for _, s := range gradeSets {
			p := g.progress[s]
			frac := 0.0
			if p[1] > 0 {
				frac = float64(p[0]) / float64(p[1])
			}
			if g.phase[s] == workspace.PhaseBuild && g.step == gradeRunning {
				fmt.Fprintf(&b, "%-4s %s\n", s, st.Dim.Render("building the solution…"))
				continue
			}
			fmt.Fprintf(&b, "%-4s %s  %d/%d\n", s, g.bars[s].ViewAs(frac), p[0], p[1])
		}
		b.WriteString("\n")
		switch {
		case g.step == gradeRunning:
			b.WriteString(st.Dim.Render("running · esc cancels") + "\n")
		case g.err != nil && errors.Is(g.err, context.Canceled):
			b.WriteString(st.Error.Render("cancelled: the finished stars are kept; grade again to resume") + "\n")
		case g.err != nil:
			b.WriteString(st.Error.Render("grading failed: "+termtext.Text(g.err.Error())) + "\n")
		}
		if g.result != nil {
			r := g.result
			if r.Grading > 0 {
				b.WriteString(st.Dim.Render(fmt.Sprintf("grading #%d of this workspace", r.Grading)) + "\n")
			}
			// The result beside the ladder when both fit, else above it.
			leftW := max(g.width-lipgloss.Width(g.ladder(r, 0))-4, 0)
			if leftW < 40 {
				leftW = g.width
			}
			score := func(set string, s grader.Summary) string {
				name := val(0, fmt.Sprintf("%-3s", set))
				if slices.Contains(r.Withheld, set) {
					return fitStatus(leftW, name, val(0, st.Dim.Render("score withheld until the set is complete")))
				}
				if set != "dev" { // a hidden set's grading shows S alone
					return fitStatus(leftW, name, val(0, fmt.Sprintf("S %.3f", s.S)), val(1, st.Dim.Render("(breakdowns kept for the maintainer)")))
				}
				return fitStatus(leftW, append([]statusField{name}, scoreFields(s)...)...)
			}
			left := fmt.Sprintf("%s\n%s\n%s\n%s", st.Header.Render("Result"), score("A", r.A), score("B", r.B), score("dev", r.Dev))
			if leftW == g.width {
				b.WriteString(left + "\n")
				room := g.height - lineCount(b.String())
				if room > len(ReferenceLadder)+2 { // a blank line between them when everything fits
					b.WriteString("\n")
					room--
				}
				b.WriteString(g.ladder(r, room))
			} else {
				b.WriteString(lipgloss.JoinHorizontal(lipgloss.Top, left, "    ", g.ladder(r, g.height-lineCount(b.String()))))
			}
		}
	}
	return b.String()
}

// ladder renders the baseline ladder with the graded solution (when r is not nil) in its place by S on A, in
// at most room lines (room ≤ 0: no limit). Rows never lose a number: when they do not all fit, whole rows are
// dropped, those farthest from the solution's first, and a last line says how many and to enlarge the terminal.
func (g grade) ladder(r *GradeResult, room int) string {
	st := g.ctx.Styles
	rows := append([]LadderRow{}, ReferenceLadder...)
	if r != nil {
		rows = append(rows, LadderRow{"yours " + shortHash(r.Hash), r.A.S, r.B.S})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].A > rows[j].A })
	header := st.Header.Render("Baseline ladder") + st.Dim.Render(" (TransitBench, real Kepler: S on A / B)")
	lo, hi := 0, len(rows)
	if room > 0 && 1+len(rows) > room {
		if room < 3 {
			return st.Dim.Render(fmt.Sprintf("%d ladder rows: enlarge the terminal", len(rows)))
		}
		keep := room - 2 // the header and the note
		mine := slices.IndexFunc(rows, func(x LadderRow) bool { return strings.HasPrefix(x.Name, "yours") })
		lo = max(mine-(keep-1)/2, 0) // the rows around the solution's, or the top ones
		lo = min(lo, len(rows)-keep)
		hi = lo + keep
	}
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, row := range rows[lo:hi] {
		line := fmt.Sprintf("%-20s %+.3f  %+.3f", row.Name, row.A, row.B)
		if strings.HasPrefix(row.Name, "yours") {
			line = st.Selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	if dropped := len(rows) - (hi - lo); dropped > 0 {
		b.WriteString(st.Dim.Render(fmt.Sprintf("%d more rows: enlarge the terminal", dropped)) + "\n")
	}
	return b.String()
}

// lineCount is the number of lines s takes, counting a last line without a newline.
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// hashLine is "frozen hash" and hash, without the words when the line is narrow, the hash cut to 12 digits
// when narrower still.
func (g grade) hashLine(hash string) string {
	st := g.ctx.Styles
	if line := fitStatus(g.width, field(0, "frozen hash", st.Header.Render(hash))); line != "" {
		return line
	}
	return fitStatus(g.width, field(0, "frozen hash", st.Header.Render(shortHash(hash)+"…")))
}

// Keys offers only the keys that do something at the grading's step: y or A to confirm, esc to cancel a
// grading or to go back.
func (g grade) Keys() help.KeyMap {
	km := g.ctx.Keys
	confirm, again, cancel, back := km.Confirm, km.Again, km.Cancel, km.Back
	canStart := g.step == gradeConfirm && g.infoErr == nil && g.info.Degraded == ""
	confirm.SetEnabled(canStart && !g.alreadyGraded())
	again.SetEnabled(canStart && g.alreadyGraded())
	cancel.SetEnabled(g.step == gradeRunning)
	back.SetEnabled(g.step != gradeRunning)
	return screenKeys{short: []key.Binding{confirm, again, cancel, back},
		full: [][]key.Binding{{confirm, again}, {cancel, back}}, km: km}
}

// The grade screen as a screen: g enters it (asking for the hash), esc cancels a grading or goes back.

func (g *grade) Update(msg tea.Msg) tea.Cmd { return step(g, grade.update, msg) }

func (g *grade) Enter() tea.Cmd {
	var cmd tea.Cmd
	*g, cmd = g.enter()
	return cmd
}

func (g *grade) Capturing() bool { return false }
func (g *grade) RunKeys() bool   { return true }
