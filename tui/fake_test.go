package tui

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"transitbench/data"
	"transitbench/engine/lc"
	"transitbench/grader"
	"transitbench/workspace"
)

// fakeBackend serves a few synthetic stars: a planet host, an untouched star and an eclipsing binary.
type fakeBackend struct {
	mu         sync.Mutex
	stars      []StarMeta
	answers    map[string]data.Answer
	results    map[string]grader.StarResult
	gradedOn   []string
	devCalls   int
	loadCalls  []string
	prefetched []string
	// block, when set, makes Dev wait for the context to end after the first event.
	block bool
	// agents are the agent sessions AgentSessions lists; agentsErr, when set, is its error.
	agents    []AgentSession
	agentsErr error
	// gradeErr, when set, is what Grade fails with (a frozen solution's build output, say).
	gradeErr error
	// exportDir is where Export writes; "" refuses exports, as a backend without a workspace would.
	exportDir string
}

const (
	fakePeriod   = 5.3   // days
	fakeT0       = 102.1 // BKJD
	fakeDuration = 0.15  // days
	fakeDepth    = 0.004
)

func newFakeBackend() *fakeBackend {
	planet := &data.Planet{PeriodDays: fakePeriod, T0Days: fakeT0, DurationDays: fakeDuration, Depth: fakeDepth, MES: 25, NTransits: 11}
	f := &fakeBackend{
		stars: []StarMeta{
			{ID: "dev-0000", Category: "injected", Population: "random", Scored: true, MES: 25, Kepmag: 12.1, CDPP6: 80},
			{ID: "dev-0001", Category: "untouched", Population: "false_alarm", Scored: true, Kepmag: 14.5, CDPP6: 210},
			{ID: "dev-0002", Category: "eb", Scored: true, Kepmag: 13.0, CDPP6: 120},
		},
		answers: map[string]data.Answer{
			"dev-0000": {ID: "dev-0000", Category: "injected", Population: "random", Scored: true, Planet: planet},
			"dev-0001": {ID: "dev-0001", Category: "untouched", Population: "false_alarm", Scored: true,
				FalseAlarm: &data.FalseAlarm{Kind: "spot_dips", PeriodDays: 7.7, T0Days: 103}},
			"dev-0002": {ID: "dev-0002", Category: "eb", Scored: true, EB: &data.EB{PeriodDays: 3.1, T0Days: 101, PrimaryDepth: 0.02,
				PrimaryDurationDays: 0.2, Counted: true}},
		},
		results: map[string]grader.StarResult{},
	}
	return f
}

// syntheticCurve is 60 days of Kepler-cadence flux with a box transit at (fakePeriod, fakeT0) of fakeDepth
// when planet is set, white-ish deterministic noise of 200 ppm and a flagged cadence every 150.
func syntheticCurve(planet bool) *lc.LightCurve {
	c := &lc.LightCurve{}
	for i := 0; ; i++ {
		t := 100 + float64(i)*lc.CadenceDays
		if t > 160 {
			break
		}
		f := 1 + 2e-4*math.Sin(float64(i)*12.9898)*math.Cos(float64(i)*4.1414) + 5e-4*math.Sin(t/4)
		if planet {
			ph := math.Mod(t-fakeT0+100*fakePeriod+fakePeriod/2, fakePeriod) - fakePeriod/2
			if math.Abs(ph) < fakeDuration/2 {
				f -= fakeDepth
			}
		}
		var q int32
		if i%150 == 0 {
			q = lc.QDesaturation
		}
		c.Time, c.Flux, c.FluxErr, c.Quality = append(c.Time, t), append(c.Flux, f), append(c.FluxErr, 2e-4), append(c.Quality, q)
	}
	return c
}

var (
	analysedOnce sync.Once
	analysed     map[bool]*StarData
)

// analysed returns the analysis of the synthetic curve with and without a planet (computed once).
func analysedCurve(t testing.TB, planet bool) StarData {
	analysedOnce.Do(func() {
		analysed = map[bool]*StarData{}
		for _, p := range []bool{true, false} {
			d, err := AnalyseStar(syntheticCurve(p), &data.Star{RadiusRsun: 1, MassMsun: 1}, 2)
			if err != nil {
				panic(err)
			}
			analysed[p] = d
		}
	})
	return *analysed[planet]
}

func (f *fakeBackend) Stars(ctx context.Context) ([]StarMeta, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]StarMeta{}, f.stars...)
	for i := range out {
		if r, ok := f.results[out[i].ID]; ok {
			out[i].Outcome = r.Outcome()
		}
	}
	return out, nil
}

func (f *fakeBackend) Prefetch(ctx context.Context, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prefetched = append(f.prefetched, id)
}

func (f *fakeBackend) LoadStar(ctx context.Context, id string) (*StarData, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loadCalls = append(f.loadCalls, id)
	for _, m := range f.stars {
		if m.ID != id {
			continue
		}
		d := analysedCurve(nil, id == "dev-0000")
		d.Meta = m
		a := f.answers[id]
		d.Answer = &a
		if r, ok := f.results[id]; ok {
			d.Result = &r
			d.Meta.Outcome = r.Outcome()
		}
		return &d, nil
	}
	return nil, fmt.Errorf("no star %s", id)
}

// validTimes are the synthetic curve's valid cadence times.
func validTimes() []float64 {
	c := syntheticCurve(false)
	var out []float64
	for i, t := range c.Time {
		if c.Quality[i]&lc.DefaultQualityMask == 0 {
			out = append(out, t)
		}
	}
	return out
}

// rowsFor is what the fake solution reports: the true planet and a false candidate on the planet host, a false
// candidate on the untouched star, nothing on the EB.
func rowsFor(id string) []grader.Row {
	switch id {
	case "dev-0000":
		return []grader.Row{{PeriodDays: fakePeriod, T0Days: fakeT0, Score: 20}, {PeriodDays: 2.2, T0Days: 100.5, Score: 9}}
	case "dev-0001":
		return []grader.Row{{PeriodDays: 7.7, T0Days: 103, Score: 8}}
	}
	return nil
}

func (f *fakeBackend) run(ctx context.Context, set string, events chan<- RunEvent) (grader.Summary, error) {
	vt := validTimes()
	var results []grader.StarResult
	// As the workspace's runs do: the solution is built before the first star runs.
	select {
	case events <- RunEvent{Set: set, Total: len(f.stars), Phase: workspace.PhaseBuild}:
	case <-ctx.Done():
		return grader.Summary{}, ctx.Err()
	}
	for i, m := range f.stars {
		r := grader.MatchStar(f.answers[m.ID], vt, rowsFor(m.ID))
		results = append(results, r)
		select {
		case events <- RunEvent{Set: set, Done: i + 1, Total: len(f.stars), Star: &r, Exit: "ok", Summary: grader.Summarize(results)}:
		case <-ctx.Done():
			return grader.Summarize(results), ctx.Err()
		}
		if f.block {
			<-ctx.Done()
			return grader.Summarize(results), ctx.Err()
		}
		f.mu.Lock()
		f.results[m.ID] = r
		f.mu.Unlock()
	}
	return grader.Summarize(results), nil
}

func (f *fakeBackend) Dev(ctx context.Context, events chan<- RunEvent) (*grader.Summary, error) {
	f.mu.Lock()
	f.devCalls++
	f.mu.Unlock()
	s, err := f.run(ctx, "dev", events)
	return &s, err
}

func (f *fakeBackend) GradeInfo(ctx context.Context) (GradeInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return GradeInfo{Hash: "0123456789abcdef0123", GradedOn: append([]string{}, f.gradedOn...)}, nil
}

func (f *fakeBackend) Grade(ctx context.Context, again bool, events chan<- RunEvent) (*GradeResult, error) {
	f.mu.Lock()
	if len(f.gradedOn) > 0 && !again {
		f.mu.Unlock()
		return nil, fmt.Errorf("already graded")
	}
	if f.gradeErr != nil {
		f.mu.Unlock()
		return nil, f.gradeErr
	}
	f.mu.Unlock()
	res := &GradeResult{Hash: "0123456789abcdef0123", Again: again}
	for _, p := range []struct {
		set string
		dst *grader.Summary
	}{{"A", &res.A}, {"B", &res.B}, {"dev", &res.Dev}} {
		s, err := f.run(ctx, p.set, events)
		if err != nil {
			return res, err
		}
		*p.dst = s
	}
	f.mu.Lock()
	f.gradedOn = append(f.gradedOn, "A", "B", "dev")
	f.mu.Unlock()
	return res, nil
}

func (f *fakeBackend) AgentSessions(ctx context.Context) ([]AgentSession, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]AgentSession{}, f.agents...), f.agentsErr
}

func (f *fakeBackend) Export(ctx context.Context, name string, write func(io.Writer) error) (string, error) {
	if f.exportDir == "" {
		return "", fmt.Errorf("no workspace to export into")
	}
	ws := &workspace.Workspace{Root: f.exportDir}
	return ws.WriteExport(name, write)
}

// driver feeds a model messages and runs the commands they return, synchronously, the way the bubbletea
// runtime would (without its timing): batches are run in order, tea.Quit is recorded.
type driver struct {
	t     testing.TB
	m     Model
	quit  bool
	steps int
	// onView, when set, sees the screen after every message.
	onView func(string)
}

func newDriver(t testing.TB, b Backend, w, h int) *driver {
	d := &driver{t: t, m: New(func(ctx context.Context, progress func(Progress)) (Backend, error) {
		progress(Progress{Step: "building the dev set", Done: 1, Total: 2})
		return b, nil
	}, nil)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(d.m.Init())
	return d
}

func (d *driver) send(msg tea.Msg) {
	m, cmd := d.m.Update(msg)
	d.m = m.(Model)
	if d.onView != nil {
		d.onView(d.m.View())
	}
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.steps++
	if d.steps > 10000 {
		d.t.Fatal("too many commands: a command loop that never ends")
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case tea.QuitMsg:
		d.quit = true
	default:
		if fmt.Sprintf("%T", msg) == "tea.sequenceMsg" {
			d.t.Fatal("sequence commands are not driven")
		}
		d.send(msg)
	}
}

// checkViewFits checks the view of d has exactly h lines, none wider than w cells; where names the screen.
func checkViewFits(t *testing.T, d *driver, w, h int, where string) {
	t.Helper()
	lines := strings.Split(d.m.View(), "\n")
	if len(lines) != h {
		t.Errorf("%d×%d %s: %d lines", w, h, where, len(lines))
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			t.Errorf("%d×%d %s: line %d is %d cells wide: %q", w, h, where, i, lw, l)
		}
	}
}

// checkViewHas reports each of wants that the view v lacks; what names the view in the message.
func checkViewHas(t *testing.T, what, v string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(v, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, v)
		}
	}
}

// driverOn starts a 120×40 driver on fb, presses k and fails the test unless the model is then in state want.
func driverOn(t *testing.T, fb *fakeBackend, k string, want state) *driver {
	t.Helper()
	d := newDriver(t, fb, 120, 40)
	d.key(k)
	if d.m.state != want {
		t.Fatalf("%s: state %v, want %v", k, d.m.state, want)
	}
	return d
}

// namedKeys are the key presses key sends by name.
var namedKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "left": tea.KeyLeft, "right": tea.KeyRight,
	"up": tea.KeyUp, "down": tea.KeyDown, "ctrl+c": tea.KeyCtrlC,
}

// key sends one key press: "enter", "esc", "tab", "left", "right", "up", "down", "ctrl+c" or runes.
func (d *driver) key(k string) {
	msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
	if t, ok := namedKeys[k]; ok {
		msg = tea.KeyMsg{Type: t}
	}
	d.send(msg)
}

func (d *driver) keys(ks ...string) {
	for _, k := range ks {
		d.key(k)
	}
}
