// Package taskfixture reads the published Stargazer tasks for the tests of the workspace's RV packages.
package taskfixture

import (
	"testing"

	"transitbench/data/stargazer"
	"transitbench/internal/testutil"
)

// Dir is the published task folder, beside the repository (never copied into it), as the tests of a package
// two levels below the repository's root (workspace/rvtrack, workspace/rvbaselines) see it.
const Dir = "../../../shared/data/stargazer"

// Load reads the published task id from Dir: a real task ("real_…") from Dir/real, any other from
// Dir/synthetic. It fails t when the task cannot be read.
func Load(t testing.TB, id string) *stargazer.Task {
	t.Helper()
	task, err := stargazer.ReadFile(testutil.StargazerTaskPath(Dir, id))
	if err != nil {
		t.Fatal(err)
	}
	return task
}
