package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/png" // image.DecodeConfig of the figures
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/grader/store"
	"transitbench/internal/termtext"
)

// session is one MCP session's account: its id in the results store and its calls so far. The spend that
// counts against the budget is the agent's, over all its sessions, read from the store (spendCheck).
type session struct {
	id      string
	started time.Time

	mu    sync.Mutex
	turns int // the session's tool calls so far, this one included (their sequence numbers)
}

// callKey carries a tool call's record through the context, so a handler can mark it refused.
type callKey struct{}

// call is what the middleware records of one tool call; a handler that refuses it sets refused.
type call struct {
	sess    *session
	seq     int
	refused bool
}

// Errors of the server's tools; each message says what to do.
var (
	ErrOverBudget = errors.New("budget")
	errHidden     = errors.New("hidden")
	errNotFound   = errors.New("not_found")
	errBadInput   = errors.New("bad_input")
	errRefused    = errors.New("refused")
)

// codedError is a tool error whose message starts with its code (hidden, not_found, bad_input, budget), as
// the command line's error object names them (and refused).
type codedError struct {
	code error
	msg  string
}

func (e *codedError) Error() string { return e.code.Error() + ": " + e.msg }
func (e *codedError) Unwrap() error { return e.code }

func hiddenError(msg string) error { return &codedError{errHidden, msg} }
func notFound(msg string) error    { return &codedError{errNotFound, msg} }
func badInput(format string, args ...any) error {
	return &codedError{errBadInput, fmt.Sprintf(format, args...)}
}

// session returns the account of ss, recording a new session in the store on its first call.
func (s *Server) session(ctx context.Context, ss *mcp.ServerSession) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.sessions[ss]; ok {
		return a, nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	a := &session{id: hex.EncodeToString(b[:]), started: now()}
	client := ""
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			client = clip(p.ClientInfo.Name+" "+p.ClientInfo.Version, maxClientBytes)
		}
	}
	if err := s.st.StartAgentSession(ctx, store.AgentSession{ID: a.id, Agent: s.agent, Client: client, Preset: s.preset.Name,
		BudgetTurns: s.preset.Turns, BudgetTokens: s.preset.Tokens, BudgetHours: s.preset.Hours, Started: a.started}); err != nil {
		return nil, err
	}
	s.sessions[ss] = a
	if ss != nil {
		go func() { // forget the account when the client leaves; the store keeps the session
			ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
		}()
	}
	return a, nil
}

// account is the receiving middleware that counts, times and records every tool call of a session: its turn,
// its time, its estimated tokens and whether it answered, failed or was refused.
func (s *Server) account(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		sess, err := s.session(ctx, ss)
		if err != nil {
			return nil, fmt.Errorf("recording the session: %w", err)
		}
		params, _ := req.GetParams().(*mcp.CallToolParamsRaw)
		tool, in := "", 0
		if params != nil {
			tool, in = clip(params.Name, maxToolBytes), len(params.Arguments)
		}
		sess.mu.Lock()
		sess.turns++
		c := &call{sess: sess, seq: sess.turns}
		sess.mu.Unlock()
		start := now()
		res, err := next(context.WithValue(ctx, callKey{}, c), method, req)
		safeContent(res)
		tokens := estimateTokens(in, res)
		status := store.CallOK
		if r, ok := res.(*mcp.CallToolResult); err != nil || ok && r.IsError {
			status = store.CallError
		}
		if c.refused {
			status = store.CallRefused
		}
		rec := store.AgentCall{Session: sess.id, Seq: c.seq, Tool: tool, Started: start,
			Millis: now().Sub(start).Milliseconds(), Tokens: tokens, Status: status}
		if status != store.CallOK {
			rec.Error = clip(callError(res, err), maxCallTextBytes)
			if params != nil {
				rec.Args = clip(string(params.Arguments), maxCallTextBytes)
			}
		}
		if rerr := s.st.RecordAgentCall(context.WithoutCancel(ctx), rec); rerr != nil {
			s.logf("recording call %d of session %s: %v", c.seq, sess.id, rerr)
		}
		return res, err
	}
}

// The longest client name (with its version) and tool name a session records: they are the client's to choose,
// kept as written (the views that show them escape control characters, termtext) but not without bound.
const (
	maxClientBytes = 256
	maxToolBytes   = 128
	// maxCallTextBytes bounds the arguments and the error text a failed call records.
	maxCallTextBytes = 2048
)

// callError is the error a tool call answered: the protocol error, else the text of an error result.
func callError(res mcp.Result, err error) string {
	if err != nil {
		return err.Error()
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return ""
	}
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// clip returns s as valid UTF-8 (U+FFFD for invalid bytes) of at most n bytes, cut at a rune boundary.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// safeContent makes a tool result's text content safe for a client to show on a terminal: a JSON text (the
// structured content's copy) through termtext.JSON, which escapes the control characters encoding/json leaves
// raw and keeps its strings' values, any other text (an error, which may quote a solution's build output or
// an argument) through termtext.Text. The structured content keeps its strings as they are, as the command
// line's --json does.
func safeContent(res mcp.Result) {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			if json.Valid([]byte(t.Text)) {
				t.Text = string(termtext.JSON([]byte(t.Text)))
			} else {
				t.Text = termtext.Text(t.Text)
			}
		}
	}
}

// estimateTokens is the server's estimate of a call's cost to the agent: a token per 4 bytes of the arguments
// and of the result's text, and (w·h)/750 tokens per image of w×h pixels (the usual vision-model rate).
func estimateTokens(argBytes int, res mcp.Result) int {
	n := argBytes
	imgTokens := 0
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
		for _, c := range r.Content {
			switch v := c.(type) {
			case *mcp.TextContent:
				n += len(v.Text)
			case *mcp.ImageContent:
				if cfg, _, err := image.DecodeConfig(bytes.NewReader(v.Data)); err == nil {
					imgTokens += cfg.Width * cfg.Height / 750
				}
			}
		}
	}
	return (n+3)/4 + imgTokens
}

// spendCheck refuses a grading or submitting call once the agent's budget is spent: more turns than the
// preset's (this call counted), more estimated tokens, or more hours since the agent's first session started,
// summed over every session of the agent (its workspace's, or the id the operator named) recorded in the
// store, so that a new session does not bring a new budget. The refusal is marked on the call, so the store
// records it as refused.
func (s *Server) spendCheck(ctx context.Context, what string) error {
	c, _ := ctx.Value(callKey{}).(*call)
	if c == nil {
		return nil
	}
	spent, err := s.st.AgentSpend(ctx, s.agent)
	if err != nil {
		return err
	}
	turns, tokens := spent.Turns+1, spent.Tokens // the calls recorded so far, and this one
	hours := 0.0
	if !spent.First.IsZero() {
		hours = now().Sub(spent.First).Hours()
	}
	p := s.preset
	var over string
	switch {
	case turns > p.Turns:
		over = fmt.Sprintf("this is turn %d of a %d-turn budget", turns, p.Turns)
	case tokens > p.Tokens:
		over = fmt.Sprintf("about %d tokens spent of %d", tokens, p.Tokens)
	case hours > p.Hours:
		over = fmt.Sprintf("%.2f hours spent of %g", hours, p.Hours)
	default:
		return nil
	}
	c.refused = true
	return &codedError{ErrOverBudget, fmt.Sprintf("%s is past the %s preset's budget (%s, counted over all its %d sessions): "+
		"%s is refused; the other tools still answer", s.agentName(), p.Name, over, max(spent.Sessions, 1), what)}
}

// agentName is whose budget is spent, for messages: "workspace PATH" or "agent NAME".
func (s *Server) agentName() string {
	if s.opts.Agent == "" {
		return "workspace " + s.ws.Root
	}
	return "agent " + s.opts.Agent
}
