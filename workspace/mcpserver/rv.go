package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data/stargazer"
	"transitbench/engine/rv"
	"transitbench/grader/rvgate"
	"transitbench/workspace/figure"
	"transitbench/workspace/rvtrack"
)

// TaskIn names an RV task.
type TaskIn struct {
	Task string `json:"task" jsonschema:"task id, e.g. seed1108_diff2 or real_007 (rv_list gives them)"`
}

// RVTaskRow is one task of rv_list.
type RVTaskRow struct {
	Task        string           `json:"task"`
	Tier        string           `json:"tier"`
	NObs        int              `json:"n_obs"`
	Instruments int              `json:"n_instruments"`
	SpanDays    float64          `json:"span_days"`
	Budget      stargazer.Budget `json:"budget"`
	Used        int              `json:"submissions_used"`
	Passed      bool             `json:"task_passed"`
	// The task passed within budget under the strict and the calibrated gates (SPEC B3).
	PassedStrict     bool `json:"task_passed_strict"`
	PassedCalibrated bool `json:"task_passed_calibrated"`
	// State is where the task stands now: not_started, running (seconds_left on its clock), expired, passed or
	// out_of_submissions, with the submissions left.
	State rvtrack.TaskState `json:"state"`
}

// RVListIn filters rv_list by tier.
type RVListIn struct {
	Tier string `json:"tier,omitempty" jsonschema:"only this tier: easy, medium, hard or real"`
}

// RVListOut lists the tasks.
type RVListOut struct {
	Tasks []RVTaskRow `json:"tasks"`
}

// rvListDoc describes the rv_list tool to the client.
const rvListDoc = "List the RV tasks with their tier, number of observations and instruments, span and budget " +
	"(submissions, seconds, tokens), how many submissions each has used, whether it is passed under the " +
	"original, the strict and the calibrated gates (task_passed, task_passed_strict, task_passed_calibrated), and " +
	"its state (not_started, running with seconds_left, expired, passed, out_of_submissions). Listing starts no clock."

func (s *Server) rvList(_ context.Context, _ *mcp.CallToolRequest, in RVListIn) (*mcp.CallToolResult, RVListOut, error) {
	switch in.Tier {
	case "", "easy", "medium", "hard", "real":
	default:
		return nil, RVListOut{}, badInput("tier %q: use easy, medium, hard or real", in.Tier)
	}
	tasks, err := s.rvTasks()
	if err != nil {
		return nil, RVListOut{}, err
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(s.home))
	if err != nil {
		return nil, RVListOut{}, err
	}
	out := RVListOut{Tasks: []RVTaskRow{}}
	for _, t := range tasks {
		if in.Tier != "" && t.Tier() != in.Tier {
			continue
		}
		d := t.Data()
		passed, strict, cal := l.PassedGates(t.TaskID)
		out.Tasks = append(out.Tasks, RVTaskRow{t.TaskID, t.Tier(), d.Len(), len(d.Instruments), d.Span(), t.Budget(),
			l.Used(t.TaskID), passed, strict, cal, l.State(t)})
	}
	return nil, out, nil
}

// task finds a task by id.
func (s *Server) task(id string) (*stargazer.Task, error) {
	if id == "" {
		return nil, badInput("give a task id (rv_list gives them)")
	}
	tasks, err := s.rvTasks()
	if err != nil {
		return nil, err
	}
	t, err := stargazer.Find(tasks, id)
	if err != nil {
		return nil, notFound(err.Error())
	}
	return t, nil
}

// requireStarted is what a tool that shows t's data does first: it refuses a task whose clock has not started
// (rvtrack.Ledger.Show), saying to call rv_start. It changes nothing.
func (s *Server) requireStarted(t *stargazer.Task) error {
	if t.Imported {
		return nil
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(s.home))
	if err != nil {
		return err
	}
	if _, err := l.Show(t.TaskID); err != nil {
		return &codedError{errRefused, fmt.Sprintf("task %s is not started: call rv_start to see its data and start its %d s clock",
			t.TaskID, t.Budget().Seconds)}
	}
	return nil
}

// RVShowOut is what rv_show and rv_start answer: the task's contestant view (its series only once started) and
// its state.
type RVShowOut struct {
	stargazer.View
	State rvtrack.TaskState `json:"state"`
}

// rvShowDoc describes the rv_show tool to the client.
const rvShowDoc = "What a contestant may see of an RV task (never the truth): its tier, budget, star mass, t_ref, " +
	"number of points and instruments, and its state. The velocities, errors and instruments (times_days, rvs_ms, " +
	"sigmas_ms, instruments) are given only once the task has started: rv_show starts nothing; rv_start does."

func (s *Server) rvShow(_ context.Context, _ *mcp.CallToolRequest, in TaskIn) (*mcp.CallToolResult, RVShowOut, error) {
	t, err := s.task(in.Task)
	if err != nil {
		return nil, RVShowOut{}, err
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(s.home))
	if err != nil {
		return nil, RVShowOut{}, err
	}
	return nil, showOut(t, l.State(t)), nil
}

// rvStartDoc describes the rv_start tool to the client.
const rvStartDoc = "Start an RV task: its clock against the tier's time budget (easy 600 s, medium 900 s, hard and " +
	"real 1500 s) starts now unless it started before, and the answer is the task's data as rv_show gives a started " +
	"task. rv_fit, rv_plot and rv_submit's dry run need a started task."

func (s *Server) rvStart(_ context.Context, _ *mcp.CallToolRequest, in TaskIn) (*mcp.CallToolResult, RVShowOut, error) {
	t, err := s.task(in.Task)
	if err != nil {
		return nil, RVShowOut{}, err
	}
	var state rvtrack.TaskState
	err = rvtrack.WithLedger(rvtrack.LedgerPath(s.home), func(l *rvtrack.Ledger) error {
		if !t.Imported {
			if _, err := l.Start(t.TaskID); err != nil {
				return err
			}
		}
		state = l.State(t)
		return nil
	})
	if err != nil {
		return nil, RVShowOut{}, err
	}
	return nil, showOut(t, state), nil
}

// showOut is t's view in state: its series only when it has started (or is imported).
func showOut(t *stargazer.Task, state rvtrack.TaskState) RVShowOut {
	v := t.View()
	if state.State == rvtrack.StateNotStarted {
		v = v.Meta()
	}
	return RVShowOut{View: v, State: state}
}

// PlanetsIn is a task and a planetary configuration in the submission format: planets and jitter_ms, or
// submission, the object rv_fit answers with, as it is.
type PlanetsIn struct {
	TaskIn
	Planets    []rvgate.SubmittedPlanet `json:"planets,omitempty" jsonschema:"planets: P_days, K_ms or m_sin_i_mjup, e, omega_rad, and l_rad or M0_rad (mean anomaly at t_ref) or t_peri_days"`
	JitterMS   float64                  `json:"jitter_ms,omitempty" jsonschema:"extra white noise in m/s added to every error"`
	Submission *rvgate.Submission       `json:"submission,omitempty" jsonschema:"instead of planets and jitter_ms: the submission object rv_fit answers with, as it is"`
}

// resolve opens in's task, checks the submission as 'rv submit' does (rvgate.ParseSubmission) and resolves it on
// the task.
func (s *Server) resolve(in PlanetsIn) (*stargazer.Task, []rv.Planet, *rvgate.Submission, error) {
	t, err := s.task(in.Task)
	if err != nil {
		return nil, nil, nil, err
	}
	if in.Submission != nil {
		if len(in.Planets) > 0 || in.JitterMS != 0 {
			return nil, nil, nil, badInput("give either submission (rv_fit's, as it is) or planets and jitter_ms, not both")
		}
		in.Planets, in.JitterMS = in.Submission.Planets, in.Submission.JitterMS
	}
	raw, err := json.Marshal(rvgate.Submission{Planets: in.Planets, JitterMS: in.JitterMS})
	if err != nil {
		return nil, nil, nil, err
	}
	if len(in.Planets) == 0 {
		raw = []byte(fmt.Sprintf(`{"planets": [], "jitter_ms": %g}`, in.JitterMS))
	}
	sub, err := rvgate.ParseSubmission(raw)
	if err != nil {
		return nil, nil, nil, badInput("%v", err)
	}
	planets, err := sub.Resolve(t.Config.Star.MStarSun, t.Observations.TimesDays[0])
	if err != nil {
		return nil, nil, nil, badInput("%v", err)
	}
	return t, planets, sub, nil
}

// RVFitOut is rv_fit's answer: the fitted planets in the submission format (rv_submit takes them as they are),
// whether the search kept a stellar-rotation noise model, and the dry-run metrics.
type RVFitOut struct {
	Task       string              `json:"task"`
	Submission rvgate.Submission   `json:"submission"`
	GP         bool                `json:"gp"`
	Metrics    rvgate.ModelMetrics `json:"metrics"`
}

// rvFitDoc describes the rv_fit tool to the client.
const rvFitDoc = "Fit Keplerian planets to an RV task: refine the given planets by least squares with a fitted " +
	"jitter, or run the automatic periodogram search when none are given. Returns the planets in the submission format " +
	"and the dry-run metrics; the answer's submission is what rv_submit takes as it is. Needs a started task (rv_start)."

func (s *Server) rvFit(_ context.Context, _ *mcp.CallToolRequest, in PlanetsIn) (*mcp.CallToolResult, RVFitOut, error) {
	t, init, _, err := s.resolve(in)
	if err != nil {
		return nil, RVFitOut{}, err
	}
	if err := s.requireStarted(t); err != nil {
		return nil, RVFitOut{}, err
	}
	d := t.Data()
	fit, err := rvtrack.FitData(d, init)
	if err != nil {
		return nil, RVFitOut{}, err
	}
	out := RVFitOut{Task: t.TaskID, Submission: *rvgate.FromPlanets(fit.Planets, fit.JitterMS), GP: fit.GP,
		Metrics: rvgate.Metrics(d, fit.Planets, fit.JitterMS, t.MedianSigma())}
	if out.Submission.Planets == nil {
		out.Submission.Planets = []rvgate.SubmittedPlanet{}
	}
	return nil, out, nil
}

// RVPlotIn is a task, a trial configuration and the figure's width.
type RVPlotIn struct {
	PlanetsIn
	FigureIn
}

// RVPlotOut describes the figure: the periodogram's strongest peaks and the model's dry-run metrics.
type RVPlotOut struct {
	Task        string              `json:"task"`
	OfResiduals bool                `json:"periodogram_of_residuals"`
	PeakPeriods []float64           `json:"peak_periods_days"`
	PeakFAP     []float64           `json:"peak_fap"`
	Metrics     rvgate.ModelMetrics `json:"metrics"`
	Bytes       int                 `json:"png_bytes"`
}

// rvPlotDoc describes the rv_plot tool to the client.
const rvPlotDoc = "The RV task view as a PNG image: velocities by instrument with the model of the given planets, " +
	"residuals, and the GLS periodogram of the residuals (of the data without planets). Needs a started task (rv_start)."

func (s *Server) rvPlot(_ context.Context, _ *mcp.CallToolRequest, in RVPlotIn) (*mcp.CallToolResult, RVPlotOut, error) {
	w, err := in.width()
	if err != nil {
		return nil, RVPlotOut{}, err
	}
	t, planets, _, err := s.resolve(in.PlanetsIn)
	if err != nil {
		return nil, RVPlotOut{}, err
	}
	if err := s.requireStarted(t); err != nil { // the figure, its peaks and metrics show the task's data
		return nil, RVPlotOut{}, err
	}
	d := t.Data()
	a := rvtrack.Analyse(d, t.MedianSigma(), planets, in.JitterMS, len(planets) > 0)
	var buf bytes.Buffer
	if err := figure.WriteRV(&buf, &figure.RVTask{ID: t.TaskID, Data: d, Analysis: a}, w, figure.PNG); err != nil {
		return nil, RVPlotOut{}, err
	}
	out := RVPlotOut{Task: t.TaskID, OfResiduals: a.OfResiduals, PeakPeriods: []float64{}, PeakFAP: []float64{}, Metrics: a.Metrics, Bytes: buf.Len()}
	for i, p := range a.Peaks {
		out.PeakPeriods = append(out.PeakPeriods, p.PeriodDays)
		if i < len(a.FAP) {
			out.PeakFAP = append(out.PeakFAP, a.FAP[i])
		}
	}
	return imageResult(buf.Bytes(), fmt.Sprintf("%s with %d planet(s): rms %.2f m/s", t.TaskID, len(planets), a.Metrics.RMSMS)), out, nil
}

// RVSubmitIn is a submission: the planets, the jitter, a dry run or not, and the tokens the harness counts.
type RVSubmitIn struct {
	PlanetsIn
	DryRun     bool `json:"dry_run,omitempty" jsonschema:"report rms and ΔBIC/N only; spends no submission"`
	TokensUsed *int `json:"tokens_used,omitempty" jsonschema:"tokens spent on this task so far, as the harness counts them"`
}

// rvSubmitDoc describes the rv_submit tool to the client.
const rvSubmitDoc = "Grade planets on an RV task with the four-criterion gate, spending one of the tier's " +
	"submissions: planets and jitter_ms, or submission (the submission of rv_fit's answer, as it is). dry_run: true " +
	"spends nothing and reports only rms and ΔBIC/N. Feedback as 'transitbench rv submit': " +
	"pass or fail per criterion and under the strict and calibrated gates (passed_strict, passed_calibrated), " +
	"never the truth. Refused past the session's budget."

func (s *Server) rvSubmit(ctx context.Context, _ *mcp.CallToolRequest, in RVSubmitIn) (*mcp.CallToolResult, rvgate.Feedback, error) {
	if in.TokensUsed != nil && *in.TokensUsed < 0 {
		return nil, rvgate.Feedback{}, badInput("tokens_used must be 0 or more")
	}
	t, planets, sub, err := s.resolve(in.PlanetsIn)
	if err != nil {
		return nil, rvgate.Feedback{}, err
	}
	if in.DryRun {
		if err := s.requireStarted(t); err != nil {
			return nil, rvgate.Feedback{}, err
		}
	} else if err := s.spendCheck(ctx, "rv_submit"); err != nil {
		return nil, rvgate.Feedback{}, err
	}
	var fb rvgate.Feedback
	err = rvtrack.WithLedger(rvtrack.LedgerPath(s.home), func(l *rvtrack.Ledger) error {
		var err error
		if in.DryRun {
			fb, err = l.DryRun(t, planets, sub.JitterMS, in.TokensUsed)
		} else {
			fb, err = l.Submit(t, planets, sub.JitterMS, in.TokensUsed)
		}
		return err
	})
	if errors.Is(err, rvtrack.ErrBudgetSpent) {
		return nil, rvgate.Feedback{}, &codedError{ErrOverBudget, fmt.Sprintf("%v: task %s has used its %d submissions", err, t.TaskID, t.Budget().Submissions)}
	}
	if err != nil {
		return nil, rvgate.Feedback{}, err
	}
	return nil, fb, nil
}
