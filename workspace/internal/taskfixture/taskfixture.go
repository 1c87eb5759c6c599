// Package taskfixture reads the published Stargazer tasks for the tests of the workspace's RV packages.
package taskfixture

import (
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/stargazer"
)

// Load reads the published task id from dir, the shared task folder as the calling test's package sees it: a
// real task ("real_…") from dir/real, any other from dir/synthetic. It fails t when the task cannot be read.
func Load(t testing.TB, dir, id string) *stargazer.Task {
	t.Helper()
	sub := "synthetic"
	if strings.HasPrefix(id, "real_") {
		sub = "real"
	}
	task, err := stargazer.ReadFile(filepath.Join(dir, sub, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return task
}
