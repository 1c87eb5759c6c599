package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"transitbench/internal/testutil"
)

// jsonErrorCase runs one command with a bad input under --json.
type jsonErrorCase struct {
	cmd  string   // the command path it covers, e.g. "rv submit"
	args []string // without --json
	code string   // the error code expected
}

// TestJSONErrorContract runs every command with a bad input under --json and checks the contract: exactly one
// JSON document on stdout, {"error": {"code", "message"}} with the expected code and a message, the message
// on stderr too, and the exit status of the code. Every command of the tree must have a case.
func TestJSONErrorContract(t *testing.T) {
	newHome(t)
	t.Setenv("TRANSITBENCH_STARGAZER", "")
	tmp := t.TempDir()
	garbage := filepath.Join(tmp, "garbage.csv")
	if err := os.WriteFile(garbage, []byte("this is not a light curve\n\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	badJSON := filepath.Join(tmp, "planets.json")
	if err := os.WriteFile(badJSON, []byte(`{"planets": [{"P_days": -3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	task := "seed10_diff10"
	missing := filepath.Join(tmp, "missing")
	cases := []jsonErrorCase{
		{"transitbench", nil, codeUsage}, // the terminal UI has no JSON
		{"transitbench", []string{"no-such-command"}, codeUsage},
		{"version", []string{"version", "extra"}, codeUsage},
		{"init", []string{"init", filepath.Join(tmp, "ws"), "--preset", "huge"}, codeUsage},
		{"init", []string{"init", filepath.Join(tmp, "ws3"), "--set", "A"}, codeUsage},
		{"dev", []string{"dev", "--limit", "-5"}, codeUsage},
		{"grade", []string{"grade", "--workers", "-1"}, codeUsage},
		{"report", []string{"report", "--out", missing, "--serve", "127.0.0.1:0"}, codeUsage},
		{"report", []string{"report", "--out", filepath.Join(tmp, "site")}, codeNotFound},
		{"runs", []string{"runs", "--limit", "-5"}, codeUsage},
		{"runs", []string{"runs", "--kind", "nosuch"}, codeUsage},
		{"runs", []string{"runs", "--set", "nosuch"}, codeUsage},
		{"star", []string{"star", "dev-9999"}, codeNotFound},
		{"mini", []string{"mini"}, codeUsage},
		{"mini run", []string{"mini", "run", "--task", "mini-nothing-1"}, codeUsage},
		{"data", []string{"data"}, codeUsage},
		{"data build", []string{"data", "build", "--set", "nosuch"}, codeUsage},
		{"data build", []string{"data", "build", "--set", "dev", "--workers", "-2"}, codeUsage},
		{"data status", []string{"data", "status", "extra"}, codeUsage},
		{"data verify", []string{"data", "verify", "--set", "nosuch"}, codeNotFound},
		{"data summary", []string{"data", "summary", "--set", "nosuch"}, codeNotFound},
		{"data show", []string{"data", "show", "--set", "nosuch", "--star", "x"}, codeNotFound},
		{"data mini", []string{"data", "mini", "--task", "mini-nothing-1"}, codeUsage},
		{"data import", []string{"data", "import", "--fits", missing, "--labels", garbage, "--set", "real"}, codeNotFound},
		{"data import", []string{"data", "import", "--fits", tmp, "--labels", garbage, "--set", "real", "--category", "eb"}, codeUsage},
		{"score", []string{"score", "--rows", tmp, "--set", "dev"}, codeUsage}, // a directory, not a file
		{"score", []string{"score", "--rows", garbage, "--set", "nosuch"}, codeUsage},
		{"score", []string{"score", "--rows", garbage, "--set", "A"}, codeHidden},
		{"score", []string{"score", "--rows", missing, "--set", "dev"}, codeNotFound},
		{"failing", []string{"failing", "--set", "dev", "--limit", "-5"}, codeUsage},
		{"failing", []string{"failing", "--set", "nosuch"}, codeUsage},
		{"pipeline", []string{"pipeline", "nosuch", tmp}, codeUsage},
		{"pipeline", []string{"pipeline", "naive_v0", missing}, codeNotFound},
		{"baselines", []string{"baselines", "--sets", "nosuch", "--out", ""}, codeUsage},
		{"baselines", []string{"baselines", "--out", tmp}, codeUsage},
		{"baselines train-vetter", []string{"baselines", "train-vetter", "--stars", "0"}, codeUsage},
		{"baselines train-vetter", []string{"baselines", "train-vetter", "--pipeline", "nosuch"}, codeUsage},
		{"baselines figure", []string{"baselines", "figure", "--in", missing}, codeNotFound},
		{"baselines figure", []string{"baselines", "figure", "--in", garbage}, codeBadInput},
		{"baselines figure", []string{"baselines", "figure", "--in", filepath.Join("..", "..", "results", "baselines.json"), "--set", "nosuch"}, codeUsage},
		{"bls", []string{"bls", missing}, codeNotFound},
		{"bls", []string{"bls", garbage}, codeBadInput},
		{"bls", []string{"bls", garbage, "--mask", "3,1"}, codeUsage},
		{"fold", []string{"fold", missing, "--period", "3", "--t0", "1"}, codeNotFound},
		{"plot", []string{"plot", "--star", "dev-0000", "--out", "x.txt"}, codeUsage},
		{"plot", []string{"plot", "--star", "A-0000", "--set", "A", "--out", "x.png"}, codeHidden},
		{"vet", []string{"vet", missing, "--period", "3", "--t0", "1", "--duration", "0.1"}, codeNotFound},
		{"tui", []string{"tui"}, codeUsage},
		{"worker", []string{"worker", "--work", missing, "--task", "0"}, codeNotFound},
		{"freeze", []string{"freeze"}, codeUsage},
		{"grade", []string{"grade", "--frozen", missing}, codeNotFound},
		{"grade", []string{"grade", "--hash", "abc"}, codeUsage},
		{"dev", []string{"dev", "--backend", "pbs"}, codeUsage},
		{"rv", []string{"rv"}, codeUsage},
		{"rv list", []string{"rv", "list", "--tasks", missing}, codeNotFound},
		{"rv list", []string{"rv", "list", "--tier", "extreme", "--tasks", rvTasksDir}, codeUsage},
		{"rv show", []string{"rv", "show", "nosuch", "--tasks", rvTasksDir}, codeNotFound},
		{"rv start", []string{"rv", "start", "nosuch", "--tasks", rvTasksDir}, codeNotFound},
		{"rv fit", []string{"rv", "fit", task, "--tasks", rvTasksDir}, codeRefused},
		{"rv truthcheck", []string{"rv", "truthcheck", "--tier", "extreme", "--tasks", rvTasksDir}, codeUsage},
		{"rv submit", []string{"rv", "submit", task, "--planets", missing, "--tasks", rvTasksDir}, codeNotFound},
		{"rv submit", []string{"rv", "submit", task, "--planets", tmp, "--tasks", rvTasksDir}, codeUsage},
		{"rv submit", []string{"rv", "submit", task, "--planets", badJSON, "--tasks", rvTasksDir}, codeBadInput},
		{"rv generate", []string{"rv", "generate", "--seed", "3"}, codeUsage},
		{"rv baseline", []string{"rv", "baseline", "nosuch", "--tasks", rvTasksDir}, codeUsage},
		{"rv baseline", []string{"rv", "baseline", "classical", "--workers", "-1", "--tasks", rvTasksDir}, codeUsage},
		{"rv fit", []string{"rv", "fit", task, "--pipeline", "nosuch", "--tasks", rvTasksDir}, codeUsage},
		{"rv fit", []string{"rv", "fit", task, "--pipeline", "expert", "--tasks", rvTasksDir}, codeUsage},
		{"rv grade", []string{"rv", "grade", "--solution", missing, "--tasks", rvTasksDir}, codeNotFound},
		{"rv import", []string{"rv", "import", missing, "--tasks", rvTasksDir}, codeNotFound},
		{"rv import", []string{"rv", "import", garbage, "--tasks", rvTasksDir}, codeBadInput},
		{"rv import", []string{"rv", "import", garbage, "--name", "../x", "--tasks", rvTasksDir}, codeUsage},
		{"mcp", []string{"mcp", "--http", "0.0.0.0:8765"}, codeUsage},
		{"mcp", []string{"mcp", "--preset", "huge"}, codeUsage},
		{"mcp", []string{"mcp", "--agent-id", "two words"}, codeUsage},
		{"mcp", []string{"mcp", "--ladder", missing}, codeNotFound},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.cmd] = true
		t.Run(strings.Join(c.args, "_"), func(t *testing.T) {
			checkJSONError(t, append(append([]string{}, c.args...), "--json"), c.code)
		})
	}
	for _, path := range commandPaths(newRootCmd()) {
		if !covered[path] {
			t.Errorf("command %q has no case in TestJSONErrorContract: add one with a bad input", path)
		}
	}
}

// TestJSONErrorFailedRun checks a failure that is not bad usage: a results database that is not one makes
// 'runs' fail with code "failed" and exit status 1.
func TestJSONErrorFailedRun(t *testing.T) {
	home := newHome(t)
	if err := os.WriteFile(filepath.Join(home, "results.db"), bytes.Repeat([]byte("not a database "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	checkJSONError(t, []string{"runs", "--json"}, codeFailed)
}

// TestJSONFlagBeforeCommand: --json given before the command, or a flag that does not parse, still gives the
// error object.
func TestJSONFlagBeforeCommand(t *testing.T) {
	newHome(t)
	checkJSONError(t, []string{"--json", "runs", "--limit", "-1"}, codeUsage)
	checkJSONError(t, []string{"runs", "--limit", "many", "--json"}, codeUsage)
}

// TestPlainErrorHasNoStdout: without --json an error leaves stdout empty.
func TestPlainErrorHasNoStdout(t *testing.T) {
	newHome(t)
	var out, errb bytes.Buffer
	if code := runIO([]string{"runs", "--limit", "-1"}, &out, &errb); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if out.Len() != 0 {
		t.Errorf("stdout holds %q without --json", out.String())
	}
	if !strings.Contains(errb.String(), "--limit -1") {
		t.Errorf("stderr %q does not say what was wrong", errb.String())
	}
}

// checkJSONError runs args and checks the --json error contract with code want.
func checkJSONError(t *testing.T, args []string, want string) {
	t.Helper()
	var out, errb bytes.Buffer
	exit := runIO(args, &out, &errb)
	if exit != errorCodes[want] {
		t.Errorf("%q: exit %d, want %d (code %s); stderr: %s", args, exit, errorCodes[want], want, errb.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	var got jsonError
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%q: stdout is not the JSON error object: %v\n%s", args, err, out.String())
	}
	if dec.More() {
		t.Errorf("%q: stdout holds more than one JSON document:\n%s", args, out.String())
	}
	if got.Error.Code != want {
		t.Errorf("%q: code %q, want %q (message %q)", args, got.Error.Code, want, got.Error.Message)
	}
	if got.Error.Message == "" || !strings.Contains(errb.String(), got.Error.Message) {
		t.Errorf("%q: message %q is empty or not on stderr (%q)", args, got.Error.Message, errb.String())
	}
}

// commandPaths lists the paths of root's commands below it ("rv submit"), the root as "transitbench".
func commandPaths(root *cobra.Command) []string {
	paths := []string{"transitbench"}
	var walk func(c *cobra.Command, prefix string)
	walk = func(c *cobra.Command, prefix string) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			p := strings.TrimSpace(prefix + " " + sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	walk(root, "")
	return paths
}

func TestClassifyCodesHaveExitStatus(t *testing.T) {
	for code, exit := range errorCodes {
		if exit != 1 && exit != 2 {
			t.Errorf("code %s has exit status %d, want 1 or 2", code, exit)
		}
	}
	if c, e := classify(usageErrorf("x")); c != codeUsage || e != 2 {
		t.Errorf("usageErrorf: %s %d", c, e)
	}
}

// TestHelpUnderJSON: --help with --json prints the command's help as one JSON document, for every command.
func TestHelpUnderJSON(t *testing.T) {
	for _, path := range commandPaths(newRootCmd()) {
		args, want := strings.Fields(path), "transitbench "+path
		if path == "transitbench" {
			args, want = nil, path
		}
		var out, errb bytes.Buffer
		if code := runIO(append(args, "--help", "--json"), &out, &errb); code != 0 {
			t.Errorf("%s --help --json: exit %d: %s", path, code, errb.String())
			continue
		}
		var h commandHelp
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&h); err != nil || dec.More() {
			t.Errorf("%s --help --json is not one JSON document: %v", path, err)
			continue
		}
		if h.Command != want || h.Usage == "" {
			t.Errorf("%s --help --json: command %q, usage %q", path, h.Command, h.Usage)
		}
	}
}

// TestBLSGuards runs 'bls' on the inputs of the findings: 17,000 cadences with times in seconds (ran out of
// memory), times near 1e300 (panicked), a standardised flux (searched silently), and an explicit grid far
// above the cap. Each fails with a message saying what to do, and exit 2: a file that cannot be used is bad input, like a bad flag.
func TestBLSGuards(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"seconds", []string{testutil.WriteLightCurveCSV(t, 17000, 0, 1765.464, func(int) float64 { return 1 })}, "times look like seconds or JD; BKJD days expected", 2},
		{"1e300", []string{testutil.WriteLightCurveCSV(t, 100, 1e300, 1e285, func(int) float64 { return 1 })}, "times look like seconds or JD", 2},
		{"standardised", []string{testutil.WriteLightCurveCSV(t, 3000, 170, 0.0204, func(i int) float64 { return float64(i%7) - 3 })},
			"flux looks standardised or differenced (median 0", 2},
		{"periods", []string{testutil.WriteLightCurveCSV(t, 3000, 170, 0.0204, func(int) float64 { return 1 }), "--periods", "100000000"},
			"the period grid is too large: 100000000 periods × 1 durations", 2},
		// 3,000 cadences 30 d apart: a 90,000 d span (below the 10⁵ d of seconds) whose default grid is 4·10⁷ pairs.
		{"long span", []string{testutil.WriteLightCurveCSV(t, 3000, 170, 30, func(int) float64 { return 1 })},
			"periods (0.5–2.999e+04 d) × up to 8 durations for a 8.997e+04 d span, above the cap of 5000000 (period, duration) pairs; raise --pmin, lower --pmax", 2},
	}
	for _, c := range cases {
		_, _, err := execute(append([]string{"bls"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		if code := run(append([]string{"bls"}, c.args...)); code != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, code, c.code)
		}
	}
}

// TestBLSNormalisesRawFlux searches a flux in e⁻/s (median 15,000): it is divided by its median with a warning,
// and the box depth comes out as a fraction, as for a relative flux.
func TestBLSNormalisesRawFlux(t *testing.T) {
	p := testutil.WriteLightCurveCSV(t, 4400, 170, 29.4244/1440, func(i int) float64 {
		x := 170 + float64(i)*29.4244/1440
		if r := x - 171.3 - 4.2*float64(int((x-171.3)/4.2+0.5)); r > -0.075 && r < 0.075 {
			return 15000 * (1 - 1000e-6)
		}
		return 15000
	})
	out, stderr, err := execute("bls", p, "--json", "--no-detrend", "--pmin", "1", "--pmax", "20", "--periods", "4000", "--durations", "0.1,0.15,0.2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "the flux median is 15000, not ≈ 1; dividing flux and flux_err by it") {
		t.Errorf("no warning on stderr: %q", stderr)
	}
	var v blsJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Peaks) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	if d := v.Peaks[0].Depth; d < 900e-6 || d > 1100e-6 {
		t.Errorf("depth %g, want the 1000 ppm box", d)
	}
}

// TestRVListSkipsBadTask puts a task with e = 1 (which panicked every rv command) beside a good one: 'rv list'
// lists the good one, warns on stderr and names the bad file in the JSON warnings.
func TestRVListSkipsBadTask(t *testing.T) {
	dir := copyTask(t, "seed0_diff6")
	b, _ := os.ReadFile(filepath.Join(dir, "seed0_diff6.json"))
	var m map[string]any
	json.Unmarshal(b, &m)
	m["task_id"] = "bad_e"
	m["config"].(map[string]any)["planets"].([]any)[0].(map[string]any)["e"] = 1.0
	b, _ = json.Marshal(m)
	os.WriteFile(filepath.Join(dir, "bad_e.json"), b, 0o644)

	out, stderr, err := execute("rv", "list", "--json", "--tasks", dir)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Tasks    []struct{ Task string } `json:"tasks"`
		Warnings []struct{ Path, Error string }
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Tasks) != 1 || v.Tasks[0].Task != "seed0_diff6" || len(v.Warnings) != 1 ||
		!strings.HasSuffix(v.Warnings[0].Path, "bad_e.json") || !strings.Contains(v.Warnings[0].Error, "config.planets[0].e = 1 must lie in [0, 1)") {
		t.Errorf("rv list: %s", out)
	}
	if !strings.Contains(stderr, "the file is left out, the other tasks load") || !strings.Contains(stderr, "bad_e.json") {
		t.Errorf("stderr: %q", stderr)
	}
}

func TestPlotUsageErrors(t *testing.T) {
	newHome(t)
	for _, args := range [][]string{
		{"plot", "--out", "x.png"},
		{"plot", "--star", "dev-0000"},
		{"plot", "--star", "dev-0000", "--out", "x.jpg"},
		{"plot", "--star", "A-0000", "--set", "A", "--out", "x.png"},
	} {
		if code := run(args); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
