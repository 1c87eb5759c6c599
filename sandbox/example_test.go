package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"transitbench/sandbox"
)

// A solution that prints one row per star, run on two stars by two workers.
func ExampleRunner() {
	ws, _ := os.MkdirTemp("", "example-workspace-")
	defer os.RemoveAll(ws)
	dir := filepath.Join(ws, "solution")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "run"), []byte("#!/bin/sh\necho \"3.5,$(cat \"$1/t0\"),9.0\"\n"), 0o755)

	sol, err := sandbox.Detect(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sol.Close()
	star := func(id, t0 string) sandbox.Job {
		return sandbox.Job{StarID: id, Prepare: func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "t0"), []byte(t0), 0o644)
		}}
	}
	// Home is the data directory (data.Home() in the project's callers): masked, and the run root.
	r := &sandbox.Runner{Workers: 2, Home: filepath.Join(ws, "data")}
	results := make(chan sandbox.Result)
	go func() {
		if err := r.Run(context.Background(), sol, []sandbox.Job{star("dev-0001", "131.2"), star("dev-0002", "140.7")}, results); err != nil {
			fmt.Println(err)
		}
		close(results)
	}()
	var lines []string
	for res := range results {
		lines = append(lines, fmt.Sprintf("%s %s %s %s", res.StarID, res.ExitReason, res.Isolation, res.Stdout))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Print(l)
	}
	// Output:
	// dev-0001 ok full 3.5,131.2,9.0
	// dev-0002 ok full 3.5,140.7,9.0
}
