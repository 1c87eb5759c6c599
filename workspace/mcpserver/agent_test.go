package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"transitbench/data"
	"transitbench/workspace"
	"transitbench/workspace/rvtrack"
)

// TestPrompts lists the prompts and gets each: every one names the tools it walks through, and every tool it
// names is one the server offers; the RV prompt takes a task and refuses one that does not exist.
func TestPrompts(t *testing.T) {
	f := newFixture(t, "survey")
	ctx := context.Background()
	list, err := f.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if want := []string{PromptTransit, PromptRV, PromptFailing}; !slices.Equal(names, want) {
		t.Fatalf("prompts %v, want %v", names, want)
	}
	get := func(name string, args map[string]string) string {
		t.Helper()
		res, err := f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.Messages) != 1 {
			t.Fatalf("%s: %d messages", name, len(res.Messages))
		}
		return res.Messages[0].Content.(*mcp.TextContent).Text
	}
	for name, want := range map[string][]string{
		PromptTransit: {"transitbench://task/TASK.md", "list_stars", "solution_write", "run_dev", "failing", "score_rows", "grade"},
		PromptFailing: {"failing", "star_outcome", "star_info", "fold", "vet", "solution_read"},
	} {
		text := get(name, nil)
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("prompt %s does not name %s", name, w)
			}
		}
		checkToolNames(t, name, text)
	}
	text := get(PromptRV, map[string]string{"task": rvTask})
	for _, w := range []string{rvTask, "rv_show", "rv_fit", "rv_submit", "dry_run"} {
		if !strings.Contains(text, w) {
			t.Errorf("prompt %s does not name %s", PromptRV, w)
		}
	}
	checkToolNames(t, PromptRV, text)
	if _, err := f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: PromptRV, Arguments: map[string]string{"task": "no_such_task"}}); err == nil {
		t.Error("fit_rv_task of a task that does not exist gave a prompt")
	}
}

// checkToolNames fails when text names a tool-like word (list_, rv_, solution_, star_ or score_ and more) that
// is not one of the server's tools.
func checkToolNames(t *testing.T, prompt, text string) {
	t.Helper()
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z') }) {
		for _, prefix := range []string{"list_", "rv_", "solution_", "star_", "score_", "plot_", "run_"} {
			if strings.HasPrefix(w, prefix) && !slices.Contains(allTools, w) && w != "star_id" { // star_id: the rows' column
				t.Errorf("prompt %s names %s, which is no tool", prompt, w)
			}
		}
	}
}

// TestResourceTemplates lists the two templates and reads a dev star (its truth, as star_info gives it) and an
// RV task (its row, without starting its clock); hidden stars, unknown stars and unknown tasks are not read.
func TestResourceTemplates(t *testing.T) {
	f := newFixture(t, "survey")
	ctx := context.Background()
	tl, err := f.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, tm := range tl.ResourceTemplates {
		uris = append(uris, tm.URITemplate)
	}
	slices.Sort(uris)
	if want := []string{URIRVPrefix + "{id}", URIStarPrefix + "{id}"}; !slices.Equal(uris, want) {
		t.Fatalf("templates %v, want %v", uris, want)
	}
	id, truth := injectedStar(t, f)
	r, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URIStarPrefix + id})
	if err != nil || len(r.Contents) != 1 {
		t.Fatalf("reading %s: %v", id, err)
	}
	var info StarInfoOut
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &info); err != nil {
		t.Fatal(err)
	}
	if info.ID != id || info.Truth == nil || info.Truth.Planet == nil || info.Truth.Planet.PeriodDays != truth.PeriodDays {
		t.Errorf("the resource of %s: %+v", id, info)
	}
	for _, uri := range []string{URIStarPrefix + "A-0000", URIStarPrefix + "B-0003", URIStarPrefix + "dev-9999",
		URIStarPrefix + "dev-0000/x", URIRVPrefix + "no_such_task"} {
		if r, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s was read: %.200s", uri, r.Contents[0].Text)
		} else if strings.Contains(uri, "/A-") && !strings.Contains(err.Error(), "hidden") {
			t.Errorf("%s: %v, want a hidden-star refusal", uri, err)
		}
	}
	r, err = f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URIRVPrefix + rvTask})
	if err != nil {
		t.Fatal(err)
	}
	var task RVTaskResource
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &task); err != nil || task.Task != rvTask || task.Tier != "easy" ||
		task.NObs == 0 || strings.Contains(r.Contents[0].Text, "rvs_ms") {
		t.Errorf("the resource of %s: %v %s", rvTask, err, r.Contents[0].Text)
	}
	l, err := rvtrack.OpenLedger(rvtrack.LedgerPath(f.home))
	if err != nil {
		t.Fatal(err)
	}
	if _, started := l.StartTime(rvTask); started {
		t.Error("reading an RV task's resource started its clock")
	}
}

// TestSolutionFiles lists, reads and writes solution/ through the tools, and checks each refusal: paths that
// leave solution/ (.., absolute, a symbolic link to the workspace's answers or to a frozen copy of the
// solution), oversized and binary content. The files refused stay as they were.
func TestSolutionFiles(t *testing.T) {
	f := newFixture(t, "survey")
	var list SolutionListOut
	callOK(t, f.cs, "solution_list", map[string]any{}, &list)
	if len(list.Entries) == 0 || list.Entries[0].Path != "solution.py" {
		t.Fatalf("solution_list of the Python starter: %+v", list)
	}
	var file SolutionFileOut
	callOK(t, f.cs, "solution_read", map[string]any{"path": "solution.py"}, &file)
	starter, _ := os.ReadFile(filepath.Join(f.ws.SolutionDir(), "solution.py"))
	if file.Content != string(starter) || file.Bytes != len(starter) {
		t.Errorf("solution_read gave %d bytes, the file has %d", file.Bytes, len(starter))
	}

	script := "#!/bin/sh\necho period_days,t0_days,score\n"
	var wrote SolutionWriteOut
	callOK(t, f.cs, "solution_write", map[string]any{"path": "run", "content": script, "executable": true}, &wrote)
	fi, err := os.Stat(filepath.Join(f.ws.SolutionDir(), "run"))
	if err != nil || fi.Mode()&0o111 == 0 || !wrote.Created || wrote.Bytes != len(script) {
		t.Fatalf("solution_write run: %+v, %v", wrote, err)
	}
	callOK(t, f.cs, "solution_write", map[string]any{"path": "lib/deep/util.py", "content": "X = 1\n"}, &wrote)
	callOK(t, f.cs, "solution_write", map[string]any{"path": "lib/deep/util.py", "content": "X = 2\n"}, &wrote)
	if b, _ := os.ReadFile(filepath.Join(f.ws.SolutionDir(), "lib", "deep", "util.py")); string(b) != "X = 2\n" || wrote.Created {
		t.Errorf("a rewritten file holds %q (created %v)", b, wrote.Created)
	}
	callOK(t, f.cs, "solution_list", map[string]any{}, &list)
	var paths []string
	for _, e := range list.Entries {
		paths = append(paths, e.Path)
	}
	if want := []string{"lib", "lib/deep", "lib/deep/util.py", "run", "solution.py"}; !slices.Equal(paths, want) {
		t.Errorf("solution_list: %v, want %v", paths, want)
	}

	// A frozen copy of the solution, and links from solution/ to it and to the workspace's dev answers.
	hash, _, err := f.ws.Freeze(context.Background(), f.home, f.srv.st)
	if err != nil {
		t.Fatal(err)
	}
	frozen := workspace.FrozenDir(f.home, hash)
	os.Symlink(frozen, filepath.Join(f.ws.SolutionDir(), "frozen"))
	os.Symlink(f.ws.DevDir(), filepath.Join(f.ws.SolutionDir(), "devdata"))
	os.Symlink("../TASK.md", filepath.Join(f.ws.SolutionDir(), "task.md"))
	os.WriteFile(filepath.Join(f.ws.SolutionDir(), "model.bin"), []byte{0xff, 0xfe, 0}, 0o644)
	frozenRun, _ := os.ReadFile(filepath.Join(frozen, "run"))
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"solution_read", map[string]any{"path": "../TASK.md"}, "leaves solution/"},
		{"solution_read", map[string]any{"path": "lib/../../TASK.md"}, "leaves solution/"},
		{"solution_read", map[string]any{"path": "/etc/passwd"}, "absolute"},
		{"solution_read", map[string]any{"path": "task.md"}, "symbolic link"},
		{"solution_read", map[string]any{"path": "devdata/answers.json"}, "symbolic link"},
		{"solution_read", map[string]any{"path": "frozen/run"}, "symbolic link"},
		{"solution_read", map[string]any{"path": "missing.py"}, "does not exist"},
		{"solution_read", map[string]any{"path": "lib"}, "not a regular file"},
		{"solution_list", map[string]any{"dir": "devdata"}, "symbolic link"},
		{"solution_list", map[string]any{"dir": ".."}, "leaves solution/"},
		{"solution_write", map[string]any{"path": "frozen/run", "content": "#!/bin/sh\necho tampered\n"}, "symbolic link"},
		{"solution_write", map[string]any{"path": "../TASK.md", "content": "x"}, "leaves solution/"},
		{"solution_write", map[string]any{"path": "devdata/answers.json", "content": "{}"}, "symbolic link"},
		{"solution_write", map[string]any{"path": "/tmp/x", "content": "x"}, "absolute"},
		{"solution_write", map[string]any{"path": "big.txt", "content": strings.Repeat("x", MaxFileBytes+1)}, "at most"},
		{"solution_read", map[string]any{"path": "model.bin"}, "UTF-8"},
	} {
		if msg := callErr(t, f.cs, c.tool, c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %q, want it to say %q", c.tool, c.args["path"], msg, c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(frozen, "run")); string(b) != string(frozenRun) || len(b) == 0 {
		t.Errorf("the frozen copy's run changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(f.ws.SolutionDir(), "big.txt")); err == nil {
		t.Error("an oversized write left a file")
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws.Root, "TASK.md")); !strings.HasPrefix(string(b), "# TransitBench") {
		t.Error("TASK.md changed")
	}
}

// TestScoreRows scores rows claiming every dev planet at its truth, plus one false row, with the grader's
// matcher: S = (planets − 1) / planets, C = 1, each planet star a hit, the false row's star false; the same
// rows as a file of solution/ score the same, and a hidden star's row is refused.
func TestScoreRows(t *testing.T) {
	f := newFixture(t, "survey")
	set, err := f.srv.set("")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	planets := 0
	var quiet string
	ids := f.ws.DevIDs(set)
	sort.Strings(ids)
	for _, id := range ids {
		a := set.Answers[id]
		switch {
		case a.Planet != nil && a.Scored:
			planets++
			lines = append(lines, fmt.Sprintf("%s,%.8f,%.8f,10", id, a.Planet.PeriodDays, a.Planet.T0Days))
		case a.Category == data.CategoryUntouched && quiet == "":
			quiet = id
			lines = append(lines, id+",1.2345678,170.5,1")
		}
	}
	if planets == 0 || quiet == "" {
		t.Fatalf("the test dev set has %d planets and untouched star %q", planets, quiet)
	}
	rows := "star_id,period_days,t0_days,score\n# truth and one false row\n" + strings.Join(lines, "\n") + "\nnot,a,row\n"
	var out ScoreRowsOut
	callOK(t, f.cs, "score_rows", map[string]any{"rows": rows}, &out)
	wantS := float64(planets-1) / float64(planets)
	if math.Abs(out.S-wantS) > 1e-12 || out.C != 1 || out.False != 1 || out.Planets != planets || len(out.Dropped) != 1 ||
		len(out.Stars) != len(ids) || out.StarsWithRows != planets+1 {
		t.Errorf("score_rows: S %.4f C %.3f false %d planets %d dropped %v stars %d, want S %.4f, C 1, 1 false, %d planets",
			out.S, out.C, out.False, out.Planets, out.Dropped, len(out.Stars), wantS, planets)
	}
	for _, st := range out.Stars {
		a := set.Answers[st.ID]
		switch {
		case a.Planet != nil && a.Scored && st.Outcome != "hit":
			t.Errorf("star %s with a planet claimed at its truth: %s", st.ID, st.Outcome)
		case st.ID == quiet && st.Outcome != "false":
			t.Errorf("star %s with a false row: %s", st.ID, st.Outcome)
		}
	}
	callOK(t, f.cs, "solution_write", map[string]any{"path": "rows.csv", "content": rows}, &SolutionWriteOut{})
	var fromFile ScoreRowsOut
	callOK(t, f.cs, "score_rows", map[string]any{"file": "rows.csv"}, &fromFile)
	if fromFile.S != out.S || fromFile.False != out.False {
		t.Errorf("the same rows from a file: S %.4f, false %d", fromFile.S, fromFile.False)
	}
	if msg := callErr(t, f.cs, "score_rows", map[string]any{"rows": "A-0001,3.5,170.1,1\n"}); !strings.Contains(msg, "hidden") {
		t.Errorf("a hidden star's row: %q", msg)
	}
	if msg := callErr(t, f.cs, "score_rows", map[string]any{"rows": "dev-9999,3.5,170.1,1\n"}); !strings.Contains(msg, "not_found") {
		t.Errorf("an unknown star's row: %q", msg)
	}
}
