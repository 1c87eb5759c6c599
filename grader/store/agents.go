package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Statuses of an agent's tool call.
const (
	CallOK      = "ok"      // the tool answered
	CallError   = "error"   // the tool reported an error (bad input, not found, hidden…)
	CallRefused = "refused" // a grading or submitting tool refused the call: the session was past its budget
)

// AgentSession is one session of an agent on the MCP server (`transitbench mcp`): its client, its budget (the
// workspace preset's turns, tokens and hours, SPEC A8) and, as AgentSessions reads it, its spend so far: the
// tool calls (turns), their estimated tokens, the seconds the tools took, the wall time since it started and
// how many calls were refused.
type AgentSession struct {
	ID string `json:"id"`
	// Agent is whose budget the session spends: "workspace:" and the workspace's path, or the id the operator
	// named ('mcp --agent-id'); "" for sessions recorded before budgets outlived sessions.
	Agent        string    `json:"agent,omitempty"`
	Client       string    `json:"client,omitempty"`
	Preset       string    `json:"preset,omitempty"`
	BudgetTurns  int       `json:"budget_turns"`
	BudgetTokens int       `json:"budget_tokens"`
	BudgetHours  float64   `json:"budget_hours"`
	Started      time.Time `json:"started"`
	// The spend, summed over the session's calls (filled by AgentSessions).
	Turns       int       `json:"turns"`
	Tokens      int       `json:"tokens"`
	ToolSeconds float64   `json:"tool_seconds"`
	Refused     int       `json:"refused"`
	Errors      int       `json:"errors"`
	Last        time.Time `json:"last,omitzero"`
}

// AgentCall is one tool call of an agent session: Seq numbers the session's calls from 1; Tokens is the
// server's estimate of what the call cost the agent (arguments and result).
type AgentCall struct {
	Session string    `json:"session"`
	Seq     int       `json:"seq"`
	Tool    string    `json:"tool"`
	Started time.Time `json:"started"`
	Millis  int64     `json:"millis"`
	Tokens  int       `json:"tokens"`
	Status  string    `json:"status"`
	// Args and Error are a failed or refused call's arguments (JSON, as the client sent them) and the error it
	// answered; empty for a call that answered.
	Args  string `json:"args,omitempty"`
	Error string `json:"error,omitempty"`
}

// StartAgentSession records a new agent session; its ID must be new.
func (s *Store) StartAgentSession(ctx context.Context, a AgentSession) error {
	if a.ID == "" {
		return errors.New("store: an agent session needs an id")
	}
	if a.Started.IsZero() {
		a.Started = time.Now()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO agent_sessions (id, agent, client, preset, budget_turns, budget_tokens,
		budget_hours, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.Agent, a.Client, a.Preset, a.BudgetTurns, a.BudgetTokens,
		a.BudgetHours, formatTime(a.Started))
	if err != nil {
		return fmt.Errorf("store: recording agent session %s: %w", a.ID, err)
	}
	return nil
}

// RecordAgentCall records one tool call of a session started with StartAgentSession.
func (s *Store) RecordAgentCall(ctx context.Context, c AgentCall) error {
	switch c.Status {
	case CallOK, CallError, CallRefused:
	default:
		return fmt.Errorf("store: agent call status %q is not one of ok, error, refused", c.Status)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO agent_calls (session_id, seq, tool, started, millis, tokens, status,
		args, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.Session, c.Seq, c.Tool, formatTime(c.Started), c.Millis,
		c.Tokens, c.Status, c.Args, c.Error)
	if err != nil {
		return fmt.Errorf("store: recording call %d of agent session %s: %w", c.Seq, c.Session, err)
	}
	return nil
}

// AgentSessions lists the agent sessions, newest first, with their spend summed over their calls.
func (s *Store) AgentSessions(ctx context.Context) ([]AgentSession, error) {
	return queryAll(ctx, s.db, func(sc scanner) (AgentSession, error) {
		var a AgentSession
		var started, last sql.NullString
		var millis int64
		err := sc.Scan(&a.ID, &a.Agent, &a.Client, &a.Preset, &a.BudgetTurns, &a.BudgetTokens, &a.BudgetHours, &started,
			&a.Turns, &a.Tokens, &millis, &a.Refused, &a.Errors, &last)
		a.Started, a.Last, a.ToolSeconds = parseTime(started), parseTime(last), float64(millis)/1000
		return a, err
	}, `SELECT a.id, a.agent, a.client, a.preset, a.budget_turns, a.budget_tokens,
		a.budget_hours, a.started, COUNT(c.seq), COALESCE(SUM(c.tokens), 0), COALESCE(SUM(c.millis), 0),
		COALESCE(SUM(c.status = 'refused'), 0), COALESCE(SUM(c.status = 'error'), 0), MAX(c.started)
		FROM agent_sessions a LEFT JOIN agent_calls c ON c.session_id = a.id
		GROUP BY a.id ORDER BY a.started DESC, a.id`)
}

// AgentCalls lists the calls of session id in order.
func (s *Store) AgentCalls(ctx context.Context, id string) ([]AgentCall, error) {
	return queryAll(ctx, s.db, func(sc scanner) (AgentCall, error) {
		var c AgentCall
		var started sql.NullString
		err := sc.Scan(&c.Session, &c.Seq, &c.Tool, &started, &c.Millis, &c.Tokens, &c.Status, &c.Args, &c.Error)
		c.Started = parseTime(started)
		return c, err
	}, `SELECT session_id, seq, tool, started, millis, tokens, status, args, error
		FROM agent_calls WHERE session_id = ? ORDER BY seq`, id)
}

// AgentTotal is an agent's spend over all its sessions (AgentTotals, AgentSpend): the budget of its latest
// session, the number of sessions, and the tool calls (turns), estimated tokens, tool seconds, refusals and
// errors summed over them; First is when its first session started, Last its latest call. An agent's budget
// holds across sessions: the agent server refuses grading and submitting once any of the three is spent.
type AgentTotal struct {
	Agent        string    `json:"agent"`
	Preset       string    `json:"preset,omitempty"`
	BudgetTurns  int       `json:"budget_turns"`
	BudgetTokens int       `json:"budget_tokens"`
	BudgetHours  float64   `json:"budget_hours"`
	Sessions     int       `json:"sessions"`
	Turns        int       `json:"turns"`
	Tokens       int       `json:"tokens"`
	ToolSeconds  float64   `json:"tool_seconds"`
	Refused      int       `json:"refused"`
	Errors       int       `json:"errors"`
	First        time.Time `json:"first"`
	Last         time.Time `json:"last,omitzero"`
}

// Hours is the agent's wall time: from its first session's start to its latest call (0 without calls).
func (a AgentTotal) Hours() float64 {
	if a.Last.IsZero() {
		return 0
	}
	return a.Last.Sub(a.First).Hours()
}

// agentTotalsQuery sums the calls of each agent's sessions; the budget is that of the agent's latest session.
const agentTotalsQuery = `WITH spend AS (
		SELECT a.agent, COUNT(DISTINCT a.id) AS sessions, COUNT(c.seq) AS turns, COALESCE(SUM(c.tokens), 0) AS tokens,
			COALESCE(SUM(c.millis), 0) AS millis, COALESCE(SUM(c.status = 'refused'), 0) AS refused,
			COALESCE(SUM(c.status = 'error'), 0) AS errors, MIN(a.started) AS first, MAX(c.started) AS last
		FROM agent_sessions a LEFT JOIN agent_calls c ON c.session_id = a.id
		%s GROUP BY a.agent
	)
	SELECT s.agent, l.preset, l.budget_turns, l.budget_tokens, l.budget_hours, s.sessions, s.turns, s.tokens,
		s.millis, s.refused, s.errors, s.first, s.last
	FROM spend s JOIN agent_sessions l ON l.id = (SELECT id FROM agent_sessions WHERE agent = s.agent
		ORDER BY started DESC, id DESC LIMIT 1)
	ORDER BY s.last DESC, s.first DESC, s.agent`

func scanAgentTotal(sc scanner) (AgentTotal, error) {
	var a AgentTotal
	var first, last sql.NullString
	var millis int64
	err := sc.Scan(&a.Agent, &a.Preset, &a.BudgetTurns, &a.BudgetTokens, &a.BudgetHours, &a.Sessions, &a.Turns,
		&a.Tokens, &millis, &a.Refused, &a.Errors, &first, &last)
	a.First, a.Last, a.ToolSeconds = parseTime(first), parseTime(last), float64(millis)/1000
	return a, err
}

// AgentTotals lists every agent's spend over its sessions, the latest active first.
func (s *Store) AgentTotals(ctx context.Context) ([]AgentTotal, error) {
	out, err := queryAll(ctx, s.db, scanAgentTotal, fmt.Sprintf(agentTotalsQuery, ""))
	if err != nil {
		return nil, fmt.Errorf("store: agent totals: %w", err)
	}
	return out, nil
}

// AgentSpend returns agent's spend over all its sessions so far; an agent with no session yet has spent
// nothing (Sessions 0).
func (s *Store) AgentSpend(ctx context.Context, agent string) (AgentTotal, error) {
	if agent == "" {
		return AgentTotal{}, errors.New("store: an agent's spend needs the agent")
	}
	out, err := queryAll(ctx, s.db, scanAgentTotal, fmt.Sprintf(agentTotalsQuery, "WHERE a.agent = ?"), agent)
	if err != nil {
		return AgentTotal{}, fmt.Errorf("store: spend of agent %s: %w", agent, err)
	}
	if len(out) == 0 {
		return AgentTotal{Agent: agent}, nil
	}
	return out[0], nil
}
