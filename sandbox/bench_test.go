package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRunTrivial measures the runner's overhead per star: one worker, a shell `run` that prints one line,
// a star directory with one small file. The time per op is the whole cost of a star: its directory, the
// namespaces, the mounts, the limits, the exec and the wait.
func BenchmarkRunTrivial(b *testing.B) {
	sol := shellSolution(b, "echo 1.0,2.0,3.0")
	if err := sol.Prepare(context.Background()); err != nil {
		b.Fatal(err)
	}
	jobs := make([]Job, b.N)
	for i := range jobs {
		jobs[i] = starJob("s", map[string]string{"star.json": `{"id":"s"}`})
	}
	r := &Runner{Workers: 1, UIDBase: testUIDBase, Home: testHome}
	ch := make(chan Result, b.N)
	b.ResetTimer()
	if err := r.Run(context.Background(), sol, jobs, ch); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	close(ch)
	for res := range ch {
		if res.ExitReason != ExitOK || string(res.Stdout) != "1.0,2.0,3.0\n" {
			b.Fatalf("%s: %q %q", res.ExitReason, res.Stdout, res.StderrTail)
		}
	}
}

// BenchmarkPrepareGoStarter measures Prepare of the workspace's Go starter: the snapshot and the go build.
// "same-solution" prepares one solution directory again and again (its build cache is warm after the first
// op); "new-solution" prepares a new directory each time (a new cache, copied from the seed).
func BenchmarkPrepareGoStarter(b *testing.B) {
	src, err := os.ReadFile("../workspace/starter/go/main.go")
	if err != nil {
		b.Fatal(err)
	}
	newDir := func() string {
		dir := filepath.Join(b.TempDir(), "solution")
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644)
		return dir
	}
	prepare := func(dir string) {
		sol, err := Detect(dir)
		if err != nil {
			b.Fatal(err)
		}
		sol.CacheDir = goCacheRoot(testHome)
		if err := sol.Prepare(context.Background()); err != nil {
			b.Fatal(err)
		}
		sol.Close()
	}
	b.Run("same-solution", func(b *testing.B) {
		dir := newDir()
		prepare(dir)
		b.ResetTimer()
		for range b.N {
			prepare(dir)
		}
	})
	b.Run("new-solution", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			dir := newDir()
			b.StartTimer()
			prepare(dir)
		}
	})
}
