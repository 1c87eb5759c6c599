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
	ID           string    `json:"id"`
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
	_, err := s.db.ExecContext(ctx, `INSERT INTO agent_sessions (id, client, preset, budget_turns, budget_tokens,
		budget_hours, started) VALUES (?, ?, ?, ?, ?, ?, ?)`, a.ID, a.Client, a.Preset, a.BudgetTurns, a.BudgetTokens,
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
		err := sc.Scan(&a.ID, &a.Client, &a.Preset, &a.BudgetTurns, &a.BudgetTokens, &a.BudgetHours, &started,
			&a.Turns, &a.Tokens, &millis, &a.Refused, &a.Errors, &last)
		a.Started, a.Last, a.ToolSeconds = parseTime(started), parseTime(last), float64(millis)/1000
		return a, err
	}, `SELECT a.id, a.client, a.preset, a.budget_turns, a.budget_tokens,
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
