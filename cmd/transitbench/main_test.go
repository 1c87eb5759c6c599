package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"transitbench/sandbox"
)

// TestMain lets a test run this test binary as the transitbench command itself: with TRANSITBENCH_TEST_AS_CLI=1
// in its environment the binary runs its arguments as main does and exits with their exit code.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain() // a sandboxed run of a solution started by a command under test
	}
	if os.Getenv("TRANSITBENCH_TEST_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// cliCommand returns a command running this test binary as 'transitbench args...' (see TestMain).
func cliCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TRANSITBENCH_TEST_AS_CLI=1")
	return cmd
}

// execute runs 'transitbench args...' in process and returns what it wrote to stdout and stderr.
func execute(args ...string) (stdout, stderr string, err error) {
	return executeIn(nil, args...)
}

// executeIn is execute with stdin as the command's standard input (nil: the process's).
func executeIn(stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	if stdin != nil {
		root.SetIn(stdin)
	}
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errb.String(), err
}

// executeJSON runs 'transitbench args...' in process, fails the test when the command fails, decodes its
// stdout into v and returns the stdout as it was printed.
func executeJSON(t *testing.T, v any, args ...string) string {
	t.Helper()
	out, stderr, err := execute(args...)
	if err != nil {
		t.Fatalf("transitbench %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("transitbench %s: stdout is not one JSON document: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// newHome gives the test a fresh, empty data directory as TRANSITBENCH_HOME and returns it.
func newHome(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("TRANSITBENCH_HOME", home)
	return home
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"version"}, 0},
		{[]string{"no-such-command"}, 2},
		{[]string{"version", "--no-such-flag"}, 2},
		{[]string{"version", "extra"}, 2},
	}
	for _, c := range cases {
		if got := run(c.args); got != c.want {
			t.Errorf("run(%q) = %d, want %d", c.args, got, c.want)
		}
	}
}

func TestVersionJSON(t *testing.T) {
	var v map[string]string
	executeJSON(t, &v, "version", "--json")
	if v["version"] != version {
		t.Errorf("version = %q, want %q", v["version"], version)
	}
}
