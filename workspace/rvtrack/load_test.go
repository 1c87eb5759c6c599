package rvtrack

import (
	"testing"

	"transitbench/data/stargazer"
	"transitbench/workspace/internal/taskfixture"
)

// sharedDir is the published task folder, beside the repository (never copied into it).
const sharedDir = "../../../shared/data/stargazer"

func load(t *testing.T, id string) *stargazer.Task {
	t.Helper()
	return taskfixture.Load(t, sharedDir, id)
}
