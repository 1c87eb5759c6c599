package rvtrack

import (
	"path/filepath"
	"strings"
	"testing"

	"transitbench/data/stargazer"
)

// sharedDir is the published task folder, beside the repository (never copied into it).
const sharedDir = "../../../shared/data/stargazer"

func load(t *testing.T, id string) *stargazer.Task {
	t.Helper()
	sub := "synthetic"
	if strings.HasPrefix(id, "real_") {
		sub = "real"
	}
	task, err := stargazer.ReadFile(filepath.Join(sharedDir, sub, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return task
}
