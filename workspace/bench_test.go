package workspace

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkDevGoStarter runs the Go starter on the 196 dev stars of SPEC A2 with two workers, through the whole
// path a contestant's `transitbench dev` takes: the sandbox per star (namespaces, seccomp, cgroup, fresh uid
// where the machine allows them), the matcher and the results store. The set is built and the starter compiled
// before the clock starts; each iteration is one fresh dev run. Run it alone, e.g.
//
//	go test -run '^$' -bench DevGoStarter -benchtime 1x -count 5 ./workspace/
func BenchmarkDevGoStarter(b *testing.B) {
	home := b.TempDir()
	ws, err := Init(filepath.Join(b.TempDir(), "ws"), InitOptions{Home: home, Lang: "go"})
	if err != nil {
		b.Fatal(err)
	}
	opt := RunOptions{Home: home, Workers: 2, Limit: 1}
	if _, err := ws.Dev(context.Background(), opt, nil); err != nil { // builds the set's cache and the Go binary
		b.Fatal(err)
	}
	opt.Limit, opt.Fresh = 0, true
	for b.Loop() {
		rep, err := ws.Dev(context.Background(), opt, nil)
		if err != nil {
			b.Fatal(err)
		}
		if rep.StarsRun != 196 || !rep.Complete {
			b.Fatalf("dev run: %d stars, complete %v; want the 196 dev stars", rep.StarsRun, rep.Complete)
		}
	}
}
