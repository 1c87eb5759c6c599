package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
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
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"version", "--json"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var v map[string]string
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("version --json is not JSON: %v\n%s", err, out.String())
	}
	if v["version"] != version {
		t.Errorf("version = %q, want %q", v["version"], version)
	}
}
