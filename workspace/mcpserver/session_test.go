package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/grader/store"
)

// TestCallRecording checks what the server records of each tool call of a session (account): one record per call
// numbered from 1 in order, its tool, time and estimated tokens; for a call that answered, no arguments or error;
// for a failed one (an error result, an unknown tool), its arguments as the client sent them and the error it
// answered, starting with the error's code; long arguments clipped to maxCallTextBytes on a character boundary.
func TestCallRecording(t *testing.T) {
	f := newFixture(t, "survey")
	callOK(t, f.cs, "list_stars", map[string]any{"limit": 2}, &json.RawMessage{})
	callErr(t, f.cs, "star_info", map[string]any{"star": "dev-9999"})
	callErr(t, f.cs, "star_info", map[string]any{"star": "A-0000"})
	long := strings.Repeat("é", maxCallTextBytes) // two bytes each: clipped between characters
	callErr(t, f.cs, "solution_read", map[string]any{"path": "../" + long})
	if _, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{"x": 1}}); err == nil {
		t.Error("an unknown tool answered")
	}

	ctx := context.Background()
	sessions, err := f.srv.st.AgentSessions(ctx)
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions %+v (%v)", sessions, err)
	}
	calls, err := f.srv.st.AgentCalls(ctx, sessions[0].ID)
	if err != nil || len(calls) != 5 {
		t.Fatalf("%d calls recorded (%v), want 5: %+v", len(calls), err, calls)
	}
	want := []struct {
		tool, status, args, errPrefix string
	}{
		{"list_stars", store.CallOK, "", ""},
		{"star_info", store.CallError, `{"star":"dev-9999"}`, "not_found: "},
		{"star_info", store.CallError, `{"star":"A-0000"}`, "hidden: "},
		{"solution_read", store.CallError, "", "bad_input: "},
		{"no_such_tool", store.CallError, `{"x":1}`, ""},
	}
	for i, c := range calls {
		w := want[i]
		if c.Seq != i+1 || c.Tool != w.tool || c.Status != w.status || c.Tokens <= 0 || c.Millis < 0 || c.Started.IsZero() {
			t.Errorf("call %d: %+v, want #%d %s %s with its tokens and time", i+1, c, i+1, w.tool, w.status)
		}
		if i > 0 && c.Started.Before(calls[i-1].Started) {
			t.Errorf("call %d started before call %d", i+1, i)
		}
		if w.status == store.CallOK && (c.Args != "" || c.Error != "") {
			t.Errorf("call %d answered but recorded arguments %q and error %q", i+1, c.Args, c.Error)
		}
		if w.args != "" && c.Args != w.args {
			t.Errorf("call %d recorded the arguments %q, want %q", i+1, c.Args, w.args)
		}
		if w.status != store.CallOK && (c.Error == "" || !strings.HasPrefix(c.Error, w.errPrefix)) {
			t.Errorf("call %d recorded the error %q, want one starting %q", i+1, c.Error, w.errPrefix)
		}
	}
	if c := calls[3]; len(c.Args) > maxCallTextBytes || len(c.Args) < maxCallTextBytes-1 || !utf8.ValidString(c.Args) ||
		!strings.HasPrefix(c.Args, `{"path":"../éé`) || len(c.Error) > maxCallTextBytes {
		t.Errorf("long arguments recorded as %d bytes (valid UTF-8 %v), error %d bytes; want clipped to %d on a character",
			len(c.Args), utf8.ValidString(c.Args), len(c.Error), maxCallTextBytes)
	}
	if s := sessions[0]; s.Turns != 5 || s.Errors != 4 || s.Refused != 0 {
		t.Errorf("the session's spend: %+v, want 5 turns, 4 errors", s)
	}
}
