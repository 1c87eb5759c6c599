package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data/sets"
	"transitbench/grader"
	"transitbench/grader/store"
	"transitbench/workspace"
)

// RunDevIn selects the dev stars to run.
type RunDevIn struct {
	Limit int      `json:"limit,omitempty" jsonschema:"run only the first N dev stars (0: all)"`
	Stars []string `json:"stars,omitempty" jsonschema:"run only these dev stars"`
	Fresh bool     `json:"fresh,omitempty" jsonschema:"start a new run instead of resuming an interrupted one"`
}

// runDevDoc describes the run_dev tool to the client.
const runDevDoc = "Run the workspace's solution/ on the dev stars in the sandbox, exactly as grading will (progress " +
	"notifications per star when the call carries a progress token); returns the summary: S, C, F, EB share, " +
	"breakdowns, exit reasons. An interrupted run resumes."

func (s *Server) runDev(ctx context.Context, req *mcp.CallToolRequest, in RunDevIn) (*mcp.CallToolResult, *workspace.Report, error) {
	if in.Limit < 0 {
		return nil, nil, badInput("limit %d: give a number of stars, or 0 for all", in.Limit)
	}
	for _, id := range in.Stars {
		if workspace.IsHiddenStar(id) {
			return nil, nil, hiddenError(id + " is a star of a hidden set: only dev stars run here")
		}
	}
	opt := s.opts.Run
	opt.Limit, opt.Stars, opt.Fresh = in.Limit, in.Stars, in.Fresh
	events, wait := s.progress(ctx, req, "dev")
	rep, err := s.ws.Dev(ctx, opt, events)
	wait()
	if err != nil {
		if rep != nil {
			err = fmt.Errorf("%w (%d finished stars kept in run %d; run_dev again resumes it)", err, rep.StarsRun, rep.RunID)
		}
		return nil, nil, err
	}
	return nil, rep, nil
}

// progress returns the channel a run reports its finished stars on and a wait that closes it and returns
// once every event is handled. Each event becomes a progress notification to the client when the call has a
// progress token: "done/total" and, on a public set, the star and its outcome.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, what string) (chan workspace.Event, func()) {
	events := make(chan workspace.Event)
	done := make(chan struct{})
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	go func() {
		defer close(done)
		for ev := range events {
			if token == nil || req.Session == nil {
				continue
			}
			msg := fmt.Sprintf("%s: %d of %d stars on %s", what, ev.Done, ev.Total, ev.Set)
			if ev.Star != nil && !sets.IsHidden(ev.Set) {
				msg += fmt.Sprintf(" (%s: %s, %s)", ev.Star.StarID, ev.Star.Outcome(), ev.Exit)
			}
			p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(ev.Done), Total: float64(ev.Total), Message: msg}
			if err := req.Session.NotifyProgress(ctx, p); err != nil {
				s.logf("progress notification: %v", err)
			}
		}
	}()
	return events, func() {
		close(events)
		<-done
	}
}

// StarOutcomeIn names a dev star and, optionally, a run.
type StarOutcomeIn struct {
	Star string `json:"star" jsonschema:"dev star id"`
	Run  int64  `json:"run,omitempty" jsonschema:"run id (default: the latest run that has the star)"`
}

// StarOutcomeOut is the star's stored outcome (store.Outcome, as 'transitbench star --json' prints it) with the
// grader's match of its rows.
type StarOutcomeOut struct {
	RunID      int64             `json:"run_id"`
	StarID     string            `json:"star_id"`
	Status     string            `json:"status"`
	Credit     float64           `json:"credit"`
	False      int               `json:"false"`
	RuntimeMS  int64             `json:"runtime_ms"`
	ExitReason string            `json:"exit_reason,omitempty"`
	StderrTail string            `json:"stderr_tail,omitempty"`
	Isolation  string            `json:"isolation,omitempty"`
	Rows       any               `json:"rows,omitempty" jsonschema:"the rows the solution printed, as the grader parsed them"`
	Matches    any               `json:"matches,omitempty" jsonschema:"how each row matched"`
	Updated    time.Time         `json:"updated"`
	Result     grader.StarResult `json:"result"`
}

// starOutcomeDoc describes the star_outcome tool to the client.
const starOutcomeDoc = "One dev star's outcome in a run of this workspace (default: its latest run that has it): the " +
	"rows the solution printed and how each matched, runtime, exit reason, end of stderr."

func (s *Server) starOutcome(ctx context.Context, _ *mcp.CallToolRequest, in StarOutcomeIn) (*mcp.CallToolResult, StarOutcomeOut, error) {
	if in.Star == "" || in.Run < 0 {
		return nil, StarOutcomeOut{}, badInput("give a dev star id, and a run id from 'transitbench runs' or none")
	}
	if workspace.IsHiddenStar(in.Star) {
		return nil, StarOutcomeOut{}, hiddenError(in.Star + " is a star of a hidden set; gradings report those as aggregates only")
	}
	run := in.Run
	if run != 0 {
		r, err := s.st.Run(ctx, run)
		if err != nil {
			return nil, StarOutcomeOut{}, notFound(fmt.Sprintf("run %d: %v", run, err))
		}
		if r.Hidden {
			return nil, StarOutcomeOut{}, hiddenError(fmt.Sprintf("run %d is on the hidden set %s; its aggregates are all it shows", run, r.Set))
		}
		if r.Workspace != s.ws.Root {
			return nil, StarOutcomeOut{}, notFound(fmt.Sprintf("run %d is not a run of this workspace; its runs are the ones run_dev and grade make", run))
		}
	} else {
		runs, err := s.st.Runs(ctx, store.RunFilter{Workspace: s.ws.Root})
		if err != nil {
			return nil, StarOutcomeOut{}, err
		}
		for _, r := range runs {
			if _, err := s.st.Outcome(ctx, r.ID, in.Star); err == nil && !r.Hidden {
				run = r.ID
				break
			}
		}
		if run == 0 {
			return nil, StarOutcomeOut{}, notFound(fmt.Sprintf("no run of this workspace has star %s: call run_dev first, or check the id", in.Star))
		}
	}
	o, err := s.st.Outcome(ctx, run, in.Star)
	if err != nil {
		return nil, StarOutcomeOut{}, notFound(fmt.Sprintf("star %s in run %d: %v", in.Star, run, err))
	}
	sr, _ := workspace.StarResultOf(o)
	out := StarOutcomeOut{RunID: o.RunID, StarID: o.StarID, Status: o.Status, Credit: o.Credit, False: o.False,
		RuntimeMS: o.RuntimeMS, ExitReason: o.ExitReason, StderrTail: o.StderrTail, Isolation: o.Isolation,
		Updated: o.Updated, Result: sr}
	for _, raw := range []struct {
		b   json.RawMessage
		dst *any
	}{{o.Rows, &out.Rows}, {o.Matches, &out.Matches}} {
		if len(raw.b) > 0 {
			if err := json.Unmarshal(raw.b, raw.dst); err != nil {
				return nil, StarOutcomeOut{}, fmt.Errorf("star %s in run %d: stored rows: %w", in.Star, run, err)
			}
		}
	}
	return nil, out, nil
}

// FailingIn selects the failing stars to list.
type FailingIn struct {
	Set   string `json:"set,omitempty" jsonschema:"a public set (default: the workspace's dev set)"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many stars (default 20)"`
}

// FailingOut lists the failing stars, worst first.
type FailingOut struct {
	Set   string              `json:"set"`
	Stars []store.FailingStar `json:"stars"`
}

// failingDoc describes the failing tool to the client.
const failingDoc = "The dev stars the solution fails most often over this workspace's runs (missed planets and false " +
	"candidates)."

func (s *Server) failing(ctx context.Context, _ *mcp.CallToolRequest, in FailingIn) (*mcp.CallToolResult, FailingOut, error) {
	if in.Set == "" {
		in.Set = s.devSetName()
	}
	if in.Limit == 0 {
		in.Limit = 20
	}
	if in.Limit < 0 {
		return nil, FailingOut{}, badInput("limit %d: give a positive number of stars", in.Limit)
	}
	if sets.IsHidden(in.Set) {
		return nil, FailingOut{}, hiddenError("set " + in.Set + " is hidden, and its runs keep no per-star outcomes; list the failing stars of dev")
	}
	stars, err := s.st.FailingStarsIn(ctx, s.ws.Root, in.Set, in.Limit)
	if err != nil {
		return nil, FailingOut{}, err
	}
	if stars == nil {
		stars = []store.FailingStar{}
	}
	return nil, FailingOut{Set: in.Set, Stars: stars}, nil
}

// GradeIn confirms a grading.
type GradeIn struct {
	Confirm bool `json:"confirm,omitempty" jsonschema:"must be true: grading freezes solution/ and spends a grading"`
	Again   bool `json:"again,omitempty" jsonschema:"grade a frozen solution that was graded before (recorded as a re-grade)"`
}

// gradeDoc describes the grade tool to the client.
const gradeDoc = "Freeze solution/ and grade it once on the hidden sets A (the score) and B (the replication), and " +
	"on dev; A and B report S alone. Needs confirm: true. A frozen solution is graded once (again: true grades it again, recorded as a " +
	"re-grade); every grading is numbered. Refused past the session's budget."

func (s *Server) grade(ctx context.Context, req *mcp.CallToolRequest, in GradeIn) (*mcp.CallToolResult, *workspace.ContestantGradeReport, error) {
	if !in.Confirm {
		return nil, nil, badInput("grade needs confirm: true: it freezes solution/ and grades it once on the hidden sets")
	}
	if err := s.spendCheck(ctx, "grade"); err != nil {
		return nil, nil, err
	}
	opt := s.opts.Run
	opt.Again = in.Again
	events, wait := s.progress(ctx, req, "grade")
	rep, err := s.ws.Grade(ctx, opt, events)
	wait()
	if errors.Is(err, workspace.ErrAlreadyGraded) {
		return nil, nil, &codedError{errRefused, strings.TrimPrefix(err.Error(), "workspace: ") +
			": change solution/ first, or pass again: true to grade it again (recorded as a re-grade)"}
	}
	if err != nil {
		return nil, nil, err
	}
	return nil, rep.Contestant(), nil
}
