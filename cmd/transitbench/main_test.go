package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

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
